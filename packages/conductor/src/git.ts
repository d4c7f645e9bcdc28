// Git through core's one runner, no shell (docs/decisions/no-simple-git.md), and HEAD read from .git's files.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGit, type GitResult } from '@leap/core';

/** The run ended without its work done; never 2, which says bad input and nothing touched. */
export const GIT_FAILURE_EXIT = 1;

export interface Git {
  /** A non-zero exit throws core's GitError (exit GIT_FAILURE_EXIT) with git's words, unless `allowFailure`. */
  (args: readonly string[], options?: { input?: string; allowFailure?: boolean }): Promise<GitResult>;
  out(args: readonly string[]): Promise<string>;
  readonly cwd: string;
}

export async function createGit(
  cwd: string,
  env: NodeJS.ProcessEnv,
  before?: (args: readonly string[]) => void,
): Promise<Git> {
  const git = async (args: readonly string[], options = {}) => {
    before?.(args);
    return runGit(args, { cwd, env, exitCode: GIT_FAILURE_EXIT, ...options });
  };
  return Object.assign(git, { cwd, out: async (args: readonly string[]) => (await git(args)).stdout.trim() });
}

/** As `git log -1 --format=%H%x00%s` prints it (this run's commits are loose); null when only git can say for sure. */
export function headFromFiles(root: string, env: NodeJS.ProcessEnv): { sha: string; subject: string } | null {
  const gitDir = join(root, '.git');
  if (gitElsewhere(env, gitDir)) return null;
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'latin1');
    const ref = /^ref: (refs\/heads\/[^\n]+)\n$/.exec(head)?.[1];
    const sha = ref === undefined ? head.slice(0, -1) : refSha(gitDir, ref);
    if (sha === null || !SHA.test(sha)) return null;
    const { inflateSync } = process.getBuiltinModule('node:zlib') as typeof import('node:zlib');
    const object = inflateSync(readFileSync(join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2)))).toString('utf8');
    const body = object.indexOf('\0');
    const headers = object.indexOf('\n\n', body);
    if (!object.startsWith('commit ') || body < 0 || headers < 0 || object.slice(body, headers).includes('\nencoding '))
      return null;
    const subject = /^([^\n]+)\n$/.exec(object.slice(headers + 2))?.[1];
    return subject === undefined || subject !== subject.trim() ? null : { sha, subject };
  } catch {
    return null;
  }
}

/** As `git symbolic-ref --short -q HEAD` and `rev-parse --verify -q refs/heads/BRANCH`; null when only git can say. */
export function branchFromFiles(
  root: string,
  env: NodeJS.ProcessEnv,
  branch: string,
): { current: string; exists: boolean } | null {
  const gitDir = join(root, '.git');
  if (gitElsewhere(env, gitDir)) return null;
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'latin1');
    const current =
      /^ref: refs\/heads\/([^\n]+)\n$/.exec(head)?.[1] ??
      (SHA.test(head.slice(0, -1)) && head.endsWith('\n') ? '' : null);
    if (current === null) return null;
    const sha = refSha(gitDir, `refs/heads/${branch}`);
    if (sha !== null && !SHA.test(sha)) return null;
    return { current, exists: sha !== null };
  } catch {
    return null;
  }
}

const SHA = /^[0-9a-f]{40}$/;

// GIT_DIR and kin, or a reftable (git 2.45+; HEAD then names the stub branch `.invalid`): the files cannot say.
function gitElsewhere(env: NodeJS.ProcessEnv, gitDir: string): boolean {
  return (
    env.GIT_DIR !== undefined ||
    env.GIT_COMMON_DIR !== undefined ||
    env.GIT_OBJECT_DIRECTORY !== undefined ||
    existsSync(join(gitDir, 'reftable'))
  );
}

/** Its loose file, else its line in packed-refs; null when neither has it; throws when the files cannot say. */
function refSha(gitDir: string, ref: string): string | null {
  const loose = readIfThere(join(gitDir, ref));
  if (loose !== null) {
    if (!/^[^\n]*\n$/.test(loose)) throw new Error(`${ref}: not one line`);
    return loose.slice(0, -1);
  }
  const packed = readIfThere(join(gitDir, 'packed-refs'))?.split('\n');
  const line = packed?.find((l) => l.endsWith(` ${ref}`) && !l.startsWith('#') && !l.startsWith('^'));
  return line === undefined ? null : line.slice(0, line.indexOf(' '));
}

function readIfThere(file: string): string | null {
  try {
    return readFileSync(file, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
