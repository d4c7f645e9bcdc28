// The repository's ignored top-level entries (node_modules, a virtual environment, an .env), linked into a
// checkout so its proofs, builders and reviewers find the dependencies the user installed; never the records,
// the worktrees or the state folder, and never part of a ball's change (checkout.ts leaves them out).
import { existsSync, realpathSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LEAP_DIR } from '@leap/core';
import { git } from './git.js';

/** The ignored entries at the top of `repoRoot`, as git lists them; [] when git cannot say. */
export async function ignoredEntries(repoRoot: string, stateDir: string): Promise<string[]> {
  const out = await git(repoRoot, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory']).catch(() => '');
  const skip = new Set(['.git', LEAP_DIR, relative(repoRoot, stateDir).split('/')[0]]);
  return out
    .split('\0')
    .map((e) => e.replace(/\/$/, ''))
    .filter((name) => name !== '' && !name.includes('/') && !skip.has(name));
}

/**
 * Link each of `names` the checkout `dir` lacks to where the repository's own leads (a link of the user's is
 * followed: a sandbox shows the target, not the links on the way); the names linked.
 */
export function linkEntries(repoRoot: string, dir: string, names: readonly string[]): string[] {
  const linked = names.filter((name) => !existsSync(join(dir, name)));
  for (const name of linked) {
    const entry = join(repoRoot, name);
    let target = entry;
    try {
      target = realpathSync(entry);
    } catch {
      // A link of the user's that leads nowhere: linked as it is.
    }
    symlinkSync(target, join(dir, name));
  }
  return linked;
}

/** Where the entries linked into `dir` lead: what a sandbox of the checkout must let its leaf read. */
export function linkTargets(dir: string, linked: readonly string[]): string[] {
  return linked.flatMap((name) => {
    try {
      return [realpathSync(join(dir, name))];
    } catch {
      return [];
    }
  });
}
