// Bundle each bin of the package in the current folder: src/bin/NAME.ts -> dist/bin/NAME.cjs.
// Workspace packages (@leap/*) are inlined from their TypeScript sources, so a bin's start-up
// loads one file. Code reached only through `await import()` is split into its own chunk
// (dist/bin/chunks/), so its dependencies load when that branch runs, not at start-up. Every
// other dependency stays external. Each bin is built alone, so bins share no start-up chunk.
//
// The output is CommonJS: on Node 20 a CommonJS entry starts about 10 ms sooner than an ES
// module (the ESM loader is never initialised), a tenth of `node -e 0` (bench/RESULTS.md). esbuild
// splits only ESM, so pass 1 bundles ESM with splitting into a scratch folder, naming every file
// .cjs already, and pass 2 converts each file to CommonJS in place of the originals: static
// imports become require(), `await import()` of a chunk becomes a lazy require(), and
// `import.meta.url` the file's own URL. The sources stay ES modules.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

// Minified, names kept: the bundles' total size must not grow with the code (issue 20's budget; bench/RESULTS.md
// has the figure), and whitespace and long local names are most of it. keepNames keeps every function's and
// class's `name` (LeapError's `name` is its class's, and stack traces name functions); the linked source maps
// lead back to the TypeScript (`node --enable-source-maps`).
const MINIFY = { minify: true, keepNames: true };

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const bins = Object.values(pkg.bin ?? {});
const scratch = 'dist/.bin-esm';
rmSync('dist/bin/chunks', { recursive: true, force: true });
rmSync(scratch, { recursive: true, force: true });

for (const out of bins) {
  // package.json names the committed shim ./bin/NAME.cjs (it exists at install time, so npm links it); the
  // bundle it requires is dist/bin/NAME.cjs, built from src/bin/NAME.ts.
  const name = out.replace(/^(\.\/)?(dist\/)?/, '').replace(/\.cjs$/, '');
  if (!/^bin\/[^/]+$/.test(name)) throw new Error(`bin ${out}: expected ./bin/NAME.cjs`);
  await build({
    entryPoints: [{ in: `src/${name}.ts`, out: name }],
    outdir: scratch,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    splitting: true,
    chunkNames: `bin/chunks/${name.replace(/^bin\//, '')}-[hash]`,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: 'linked',
    sourcesContent: false,
    ...MINIFY,
    conditions: ['leap-source'],
    banner: { js: '#!/usr/bin/env node' },
    plugins: [
      {
        name: 'external-deps',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@leap/') ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
    logLevel: 'warning',
  });
}

const files = readdirSync(scratch, { recursive: true }).filter((f) => f.endsWith('.cjs'));
for (const file of files) {
  const source = readFileSync(join(scratch, file), 'utf8');
  const usesMeta = source.includes('import.meta.url');
  await build({
    entryPoints: [join(scratch, file)],
    outfile: join('dist', file),
    bundle: false,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Every import() becomes a lazy require(): an import() would start the ESM loader after all. An
    // ES-module-only dependency loaded this way relies on require(esm), which Node >= 20.19 (engines) has.
    supported: { 'dynamic-import': false },
    define: usesMeta ? { 'import.meta.url': '__leapFileUrl' } : {},
    // The directive first: behind the banner, esbuild's own "use strict" would be a plain string and the
    // module sloppy, unlike the ES modules it comes from.
    banner: usesMeta
      ? { js: '"use strict";const __leapFileUrl = require("node:url").pathToFileURL(__filename).href;' }
      : {},
    // Pass 1 minified and kept every name with __name(); the CommonJS wrapping added here is minified too
    // (renaming again is safe: the names kept are set explicitly, and keepNames here would set them twice).
    minify: MINIFY.minify,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  });
}
rmSync(scratch, { recursive: true, force: true });
// tsc compiled the bins too (it type-checks them); the bundles replace its ES module output.
for (const out of bins) {
  const base = `dist/${out.replace(/^(\.\/)?(dist\/)?/, '').replace(/\.cjs$/, '')}`;
  for (const ext of ['.js', '.js.map', '.d.ts', '.d.ts.map']) rmSync(`${base}${ext}`, { force: true });
}
