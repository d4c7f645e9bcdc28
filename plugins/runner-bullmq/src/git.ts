// git through core's one runner (argv, never a shell: every argument is data), with the worker's environment.
import { runGit } from '@leap/core';

/** Every git's environment here: no password prompt (a worker has no terminal to answer it), ssh in batch mode. */
export function workerGitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env))
    if (!/^GIT_/i.test(k) || k === 'GIT_SSH_COMMAND' || k === 'GIT_SSH') out[k] = v;
  return { ...out, GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes' };
}

export async function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return (await runGit(args, { cwd, env: workerGitEnv(env) })).stdout;
}

export const succeeds = (p: Promise<unknown>) => p.then(() => true).catch(() => false);
export const errorOf = (p: Promise<unknown>) => p.then(() => null).catch((error: Error) => error);

export const hasCommit = (cwd: string, rev: string, env?: NodeJS.ProcessEnv) =>
  succeeds(git(cwd, ['cat-file', '-e', `${rev}^{commit}`], env));
