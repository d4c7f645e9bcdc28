// The repository a command works in: the nearest folder up from `cwd` holding `.git` (a folder,
// or a file in a linked worktree), as git finds it, without starting git.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '@leap/core';

/** The repository root above `cwd`; throws a UsageError (exit 2) outside any repository. */
export function findRepoRoot(cwd: string): string {
  for (let at = resolve(cwd); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) throw new UsageError(`${resolve(cwd)} is not inside a git repository: run the command in the repository the slice works on`);
  }
}

/** Like findRepoRoot, but null outside any repository. */
export function repoRootOrNull(cwd: string): string | null {
  try {
    return findRepoRoot(cwd);
  } catch {
    return null;
  }
}
