// Git (no shell: each argument one argv element) and the project's test command (`bash -c CMD`, the
// command one argv element). node:child_process is imported on first use, never by `leap tdd status`.
import { InternalError } from '@leap/core';

/** One finished command. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Git in one repository, with one environment. */
export interface Git {
  /** Run git ARGS; a non-zero exit throws an InternalError with git's words, unless `allowFailure`. */
  (args: readonly string[], options?: { input?: string; allowFailure?: boolean }): Promise<Ran>;
  /** `git ARGS` trimmed stdout. */
  out(args: readonly string[]): Promise<string>;
  readonly cwd: string;
}

/**
 * Git in `cwd` with `env`: spawned without a shell, so every argument (a title, a message) is one argv
 * element as is; one process per call, where zx's `$` would add a bash in front of each of the dozens a
 * step makes (that doubled the conductor's own share of a run).
 */
export async function createGit(cwd: string, env: NodeJS.ProcessEnv): Promise<Git> {
  const { spawn } = await import('node:child_process');
  const run = (args: readonly string[], options: { input?: string; allowFailure?: boolean } = {}): Promise<Ran> => new Promise((resolve, reject) => {
    const child = spawn('git', [...args], { cwd, env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    child.on('error', (error) => reject(new InternalError(`cannot run git: ${error.message}`, { cause: error })));
    child.on('close', (code) => {
      const ran = { code: code ?? 128, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
      if (ran.code !== 0 && options.allowFailure !== true) {
        reject(new InternalError(`git ${args.slice(0, 3).join(' ')} failed (exit ${ran.code}): ${ran.stderr.trim() || ran.stdout.trim()}`));
      } else {
        resolve(ran);
      }
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
  const git = run as Git;
  git.out = async (args) => (await run(args)).stdout.trim();
  (git as { cwd: string }).cwd = cwd;
  return git;
}

/**
 * Run the project's test command as `bash -c CMD` in `cwd`, stdin closed, as the ground truth's runs do
 * (no second shell in front, nor zx's 45 ms load); resolves to its exit code (a signal is 128+N) and output.
 */
export async function runTestCommand(testCmd: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const [{ spawn }, { constants }] = await Promise.all([import('node:child_process'), import('node:os')]);
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', testCmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (error) => resolve({ code: 127, stdout: '', stderr: `cannot run bash: ${error.message}` }));
    child.on('close', (code, signal) => resolve({
      code: code ?? 128 + (signal === null ? 0 : constants.signals[signal]),
      stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
    }));
  });
}
