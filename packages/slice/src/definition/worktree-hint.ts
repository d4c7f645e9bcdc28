// Whether a slice may have worktrees to reap, from git's files: no git process or heavy module for validate and plan.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { UsageError, findRepoRoot, orElse } from '@leap/core';

function commonGitDir(repoRoot: string): string | null {
  const dotGit = join(repoRoot, '.git');
  return orElse(() => {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const gitdir = /^gitdir: (.*)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    if (gitdir === undefined) return null;
    const own = isAbsolute(gitdir) ? gitdir : resolve(repoRoot, gitdir);
    const common = readFileSync(join(own, 'commondir'), 'utf8').trim();
    return isAbsolute(common) ? common : resolve(own, common);
  }, null);
}

/** Whether any worktree may be on a branch `leap/SLICE/*`; true when unsure. */
export function mayHaveSliceWorktrees(repoRoot: string, sliceId: string): boolean {
  const common = commonGitDir(repoRoot);
  if (common === null) return true;
  let names: string[];
  try {
    names = readdirSync(join(common, 'worktrees'));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  const ref = `ref: refs/heads/leap/${sliceId}/`;
  return names.some((name) => {
    const head = orElse(() => readFileSync(join(common, 'worktrees', name, 'HEAD'), 'utf8'), null);
    // A worktree cut off while `git worktree add` made it still has git's placeholder HEAD (all zeros): unsure.
    return head === null || head.startsWith(ref) || /^0{40,64}\s*$/.test(head);
  });
}

/** The main working tree of `root`'s repository: `root`, unless a linked worktree (a ball's), whose records are its. */
export function mainWorktreeRoot(root: string): string {
  if (orElse(() => statSync(join(root, '.git')).isDirectory(), true)) return root;
  const common = commonGitDir(root);
  return common !== null && basename(common) === '.git' ? dirname(common) : root;
}

/** `leap slice validate|plan`: the worktrees a dead engine left, reaped when git's files say there may be some. */
export async function reapFrom(cwd: string, sliceId: string): Promise<void> {
  const found = findRepoRoot(cwd);
  const root = found === null ? null : mainWorktreeRoot(found);
  if (root !== null && mayHaveSliceWorktrees(root, sliceId)) (await import('../reap.js')).reapSlice(root, sliceId);
}

/** The repository root above `cwd`; throws a UsageError (exit 2) outside any repository. */
export function requireRepoRoot(cwd: string): string {
  const root = findRepoRoot(cwd);
  const where = `${resolve(cwd)} is not inside a git repository`;
  if (root === null) throw new UsageError(`${where}: run the command in the repository the slice works on`);
  return root;
}
