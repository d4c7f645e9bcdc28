// Bundle each bin of the package in the current folder: src/bin/NAME.ts -> dist/bin/NAME.js.
// Workspace packages (@leap/*) are inlined from their TypeScript sources, so a bin's start-up
// loads one file. Code reached only through `await import()` is split into its own chunk
// (dist/bin/chunks/), so its dependencies load when that branch runs, not at start-up. Every
// other dependency stays external. Each bin is built alone, so bins share no start-up chunk.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const bins = Object.values(pkg.bin ?? {});
rmSync('dist/bin/chunks', { recursive: true, force: true });

for (const out of bins) {
  const name = out.replace(/^(\.\/)?dist\//, '').replace(/\.js$/, '');
  await build({
    entryPoints: [{ in: `src/${name}.ts`, out: name }],
    outdir: 'dist',
    bundle: true,
    splitting: true,
    chunkNames: `bin/chunks/${name.replace(/^bin\//, '')}-[hash]`,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: 'linked',
    sourcesContent: false,
    conditions: ['leap-source'],
    banner: { js: '#!/usr/bin/env node' },
    plugins: [{
      name: 'external-deps',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@leap/') ? undefined : { path: args.path, external: true }));
      },
    }],
    logLevel: 'warning',
  });
}
