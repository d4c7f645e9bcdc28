// A package's build, run in its folder: every file of src/ transpiled to dist/ by esbuild, as tsc would emit it
// (ES modules, linked source maps). Types are checked once for the tree by `tsc -p tsconfig.tests.json` in
// `npm test`; tools/declarations.mjs writes the declarations a release publishes (docs/decisions/transpile-builds.md).
import { readdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// Emptied first: a file deleted from src/ leaves nothing behind for a test or a bundle to import.
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: readdirSync('src', { recursive: true })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/${f}`),
  outdir: 'dist',
  outbase: 'src',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
