// Git through core's one runner, synchronous: verification's git calls run one after another.
import { runGitSync, orElse } from '@leap/core';

export function gitStdout(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): string {
  return runGitSync(args, env === undefined ? { cwd } : { cwd, env }).stdout;
}

export const gitOrNull = (cwd: string, args: readonly string[]) => orElse(() => gitStdout(cwd, args), null);

export function isCommit(cwd: string, sha: string): boolean {
  return runGitSync(['rev-parse', '--verify', '--quiet', `${sha}^{commit}`], { cwd, allowFailure: true }).code === 0;
}
