// Bundle each bin of the package in the current folder: src/bin/NAME.ts -> dist/bin/NAME.js.
// Workspace packages (@leap/*) are inlined from their TypeScript sources, so a bin loads one
// file; every other dependency stays external and is imported lazily where it is used.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const bins = Object.values(pkg.bin ?? {});
const entryPoints = bins.map((out) => ({ in: out.replace(/^(\.\/)?dist\//, 'src/').replace(/\.js$/, '.ts'), out: out.replace(/^(\.\/)?dist\//, '').replace(/\.js$/, '') }));

if (entryPoints.length > 0) {
  await build({
    entryPoints,
    outdir: 'dist',
    bundle: true,
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
