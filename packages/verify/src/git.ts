// Running git without a shell; failures name the command and carry git's own message.
import { InternalError } from '@leap/core';
import { childProcess } from './lazy-builtins.js';

/** Run `git ARGS` in `cwd` (with `env`, else ours) and return its stdout; throws an InternalError with git's stderr. */
export function runGit(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): string {
  try {
    return childProcess().execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
  } catch (cause) {
    const stderr = String((cause as { stderr?: unknown }).stderr ?? '').trim();
    throw new InternalError(`git ${args.join(' ')} failed in ${cwd}: ${stderr || (cause as Error).message}`, { cause });
  }
}

/** Split git's `-z` output into paths. */
export function splitNul(text: string): string[] {
  return text.split('\0').filter((part) => part !== '');
}

/** True when `sha` names a commit of the repository. */
export function isCommit(cwd: string, sha: string): boolean {
  try {
    runGit(cwd, ['rev-parse', '--verify', '--quiet', `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}
