// The bins' bundles, in bytes (issue 20's budget: their total size does not grow). What `npm run build` writes
// under every package's and plugin's dist/bin/ (each bin's entry and its lazily loaded chunks; source maps
// aside): what a user installs and what start-up reads. The budget is the total of the build of 2026-12-01
// (e6c8daa, the last before issue 20's redesign began), 1,313,865 bytes in 91 files, measured on 2026-12-05 by
// building that commit beside today's; the bins have been minified (names kept) since, see tools/bundle-bins.mjs.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const BUDGET_BYTES = 1_313_865;

export default async function bundleSize(ctx) {
  let bytes = 0;
  let files = 0;
  const perPackage = [];
  for (const group of ['packages', 'plugins']) {
    for (const name of readdirSync(join(ctx.root, group))) {
      const dir = join(ctx.root, group, name, 'dist', 'bin');
      let entries;
      try {
        entries = readdirSync(dir, { recursive: true });
      } catch {
        continue; // a package without bins
      }
      let own = 0;
      for (const entry of entries) {
        if (!entry.endsWith('.cjs')) continue;
        own += statSync(join(dir, entry)).size;
        files++;
      }
      bytes += own;
      if (own > 0) perPackage.push(`${name} ${(own / 1024).toFixed(0)} KB`);
    }
  }
  if (files === 0) {
    ctx.note('bundle-size: no bundle is built (npm run build); skipped');
    return;
  }
  ctx.note(
    `bundle size: ${files} files, ${bytes.toLocaleString('en')} bytes (${perPackage.join(', ')}); the build of 2026-12-01 (e6c8daa): 91 files, 1,313,865 bytes`,
  );
  ctx.check(
    "the bins' bundles, total size (every dist/bin/**/*.cjs, source maps aside)",
    `${(bytes / 1e6).toFixed(2)} MB`,
    '<= 1.31 MB (the build of 2026-12-01)',
    bytes <= BUDGET_BYTES,
  );
}
