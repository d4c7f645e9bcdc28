// A run starts only from a clean tree (CONTRACT section 9): the user's other changes are said, never committed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runGitSync } from '@leap/core';

// What `npm i -D` of the toolchain changes at the root: committed with the set-up.
const INSTALL_FILES = new Set('package.json package-lock.json npm-shrinkwrap.json pnpm-lock.yaml yarn.lock'.split(' '));

export const git = (root: string, args: string[], input = '') =>
  runGitSync(args, { cwd: root, allowFailure: true, input });

export function needsIgnoreFile(root: string): boolean {
  if (existsSync(join(root, '.gitignore')) || !existsSync(join(root, 'node_modules'))) return false;
  return git(root, ['check-ignore', '-q', 'node_modules']).code === 1;
}

/** The files to commit (what init wrote and git would track, and the install's own), and the user's other changes. */
export function treeAfter(root: string, written: string[]): { commit: string[]; dirty: string[] } {
  const ran = git(root, ['status', '--porcelain', '-z', '--untracked-files=normal']);
  // Entries are `XY PATH`; an untracked folder is one entry, `DIR/`.
  const changed = ran.code === 0 ? ran.stdout.split('\0').flatMap((e) => (e.length > 3 ? [e.slice(3)] : [])) : [];
  const commit = [...tracked(root, written), ...changed.filter((p) => INSTALL_FILES.has(p))];
  const dirty = changed.filter((p) => !commit.includes(p) && !written.some((w) => p.endsWith('/') && w.startsWith(p)));
  return { commit, dirty };
}

// Not the state folder's .gitignore (it ignores itself), nor what the user's ignore files exclude.
function tracked(root: string, written: string[]): string[] {
  if (written.length === 0) return [];
  const ran = git(root, ['check-ignore', '-z', '--no-index', '--stdin'], `${written.join('\0')}\0`);
  const ignored = new Set(ran.code === 0 ? ran.stdout.split('\0').filter((p) => p !== '') : []);
  return written.filter((p) => !ignored.has(p));
}
