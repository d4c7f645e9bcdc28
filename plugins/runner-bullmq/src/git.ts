// git without a shell: every argument is data.
import { execFile } from 'node:child_process';
import { LeapError } from '@leap/core';

/** The environment of every git here: no prompt for a password (a worker has no terminal to answer it), ssh in batch mode. */
export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!/^GIT_/i.test(k) || k === 'GIT_SSH_COMMAND' || k === 'GIT_SSH') out[k] = v;
  return { ...out, GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes' };
}

/** Run `git ARGS` in `cwd`; stdout, or a LeapError with what git said. */
export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: gitEnv(env), maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error === null) return resolve(stdout);
      const said = (stderr || error.message).trim().split('\n').slice(-3).join(' | ');
      reject(new LeapError(`git ${args.join(' ')} failed: ${said}`, { cause: error, exitCode: 2 }));
    });
  });
}

/** Whether `rev` names a commit in `cwd`. */
export async function hasCommit(cwd: string, rev: string, env?: NodeJS.ProcessEnv): Promise<boolean> {
  return git(cwd, ['cat-file', '-e', `${rev}^{commit}`], env).then(() => true, () => false);
}
