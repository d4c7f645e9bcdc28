// Git for the ledger: core's one runner (argv only, so titles and messages pass byte for byte), waiting
// for each git (a ledger command runs its few git calls one after another, and spawnSync starts sooner
// than spawn), with the ledger's exit code for a git that failed unexpectedly (EXIT.internal, 5).
import { runGitSync, type GitOptions, type GitResult } from '@leap/core';
import { EXIT } from '../exit-codes.js';

export type { GitOptions, GitResult };

/** Run `git ARGS`; a failure (unless `allowFailure`) is core's GitError carrying exit code 5. */
export async function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return runGitSync(args, { exitCode: EXIT.internal, ...options });
}
