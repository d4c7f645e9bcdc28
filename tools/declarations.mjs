// The packages' declarations (dist/**/*.d.ts) for a release: one tsc program over every package's sources
// (tsconfig.declarations.json), written to a scratch folder, each file then renamed into its package's dist/,
// so two releases side by side never leave a half-written one. Exit 0 written, 1 tsc failed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
// Inside the tree, on the packages' file system: a rename across file systems fails.
const scratch = mkdtempSync(join(root, 'node_modules', '.cache', 'leap-declarations-'));
try {
  const args = [tsc, '-p', join(root, 'tsconfig.declarations.json'), '--declarationDir', scratch];
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    process.stderr.write(`declarations: tsc -p tsconfig.declarations.json failed (exit ${run.status ?? run.signal})\n`);
    process.exitCode = 1;
  } else {
    for (const file of readdirSync(scratch, { recursive: true })) {
      if (!file.endsWith('.d.ts')) continue;
      const [area, pkg, , ...rest] = file.split(sep); // packages/NAME/src/PATH.d.ts
      const target = join(root, area, pkg, 'dist', ...rest);
      mkdirSync(dirname(target), { recursive: true });
      renameSync(join(scratch, file), target);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
