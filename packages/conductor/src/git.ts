// Git and the project's test command, through zx: its quoting keeps every title and message data.
// zx is imported on first use only, so `leap tdd status` and `--help` never load it.
import { InternalError } from '@leap/core';

type Zx = typeof import('zx');
let loading: Promise<Zx> | null = null;
const loadZx = (): Promise<Zx> => (loading ??= import('zx'));

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

/** Git in `cwd` with `env` (zx quotes each argument: no shell ever reads a title). */
export async function createGit(cwd: string, env: NodeJS.ProcessEnv): Promise<Git> {
  const { $ } = await loadZx();
  const run = async (args: readonly string[], options: { input?: string; allowFailure?: boolean } = {}): Promise<Ran> => {
    const shell = $({ cwd, env, quiet: true, nothrow: true, verbose: false, ...(options.input === undefined ? {} : { input: options.input }) });
    const done = await shell`git ${[...args]}`;
    const ran = { code: done.exitCode ?? 128, stdout: done.stdout, stderr: done.stderr };
    if (ran.code !== 0 && options.allowFailure !== true) {
      throw new InternalError(`git ${args.slice(0, 3).join(' ')} failed (exit ${ran.code}): ${ran.stderr.trim() || ran.stdout.trim()}`);
    }
    return ran;
  };
  const git = run as Git;
  git.out = async (args) => (await run(args)).stdout.trim();
  (git as { cwd: string }).cwd = cwd;
  return git;
}

/** Run the project's test command with bash in `cwd` (zx hands it to bash as one argument); resolves to its exit code and output. */
export async function runTestCommand(testCmd: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const { $ } = await loadZx();
  const done = await $({ cwd, env, quiet: true, nothrow: true, verbose: false })`bash -c ${testCmd}`;
  return { code: done.exitCode ?? 128, stdout: done.stdout, stderr: done.stderr };
}
