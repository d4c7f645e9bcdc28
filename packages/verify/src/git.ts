// Git for leap-verify: core's one runner (argv only; failures are core's GitError naming the command
// and carrying git's own words), waiting for each git: verification's git calls run one after another.
import { runGitSync, splitNul } from '@leap/core';

export { splitNul };

/** Run `git ARGS` in `cwd` (with `env`, else ours) and return its stdout; throws a GitError with git's stderr. */
export function gitStdout(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): string {
  return runGitSync(args, env === undefined ? { cwd } : { cwd, env }).stdout;
}

/** True when `sha` names a commit of the repository. */
export function isCommit(cwd: string, sha: string): boolean {
  return runGitSync(['rev-parse', '--verify', '--quiet', `${sha}^{commit}`], { cwd, allowFailure: true }).code === 0;
}
