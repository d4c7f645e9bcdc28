// Bundle a package's library entry points (package.json "exports" entries that carry a
// "leap-source" condition) into dist/bundle/: an entry loads one or two files instead of one per
// module. Entries are built together with code splitting, so modules they share (errors.ts)
// live in one chunk and stay one instance: `instanceof` works across entry points.
// Dependencies stay external; tsc's declarations in dist/ remain the "types".
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const entryPoints = [];
for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
  if (typeof target !== 'object' || target['leap-source'] === undefined) continue;
  const out = target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '');
  if (!out.startsWith('bundle/'))
    throw new Error(`${subpath}: "default" must point into ./dist/bundle/, got ${target.default}`);
  entryPoints.push({ in: target['leap-source'], out });
}
rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints,
  outdir: 'dist',
  bundle: true,
  splitting: true,
  chunkNames: 'bundle/chunks/[name]-[hash]',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  sourcesContent: false,
  packages: 'external',
  logLevel: 'warning',
});
