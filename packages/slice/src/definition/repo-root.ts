import { resolve } from 'node:path';
import { UsageError, findRepoRoot } from '@leap/core';

/** The repository root above `cwd`; throws a UsageError (exit 2) outside any repository. */
export function requireRepoRoot(cwd: string): string {
  const root = findRepoRoot(cwd);
  const where = `${resolve(cwd)} is not inside a git repository`;
  if (root === null) throw new UsageError(`${where}: run the command in the repository the slice works on`);
  return root;
}
