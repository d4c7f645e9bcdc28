// git from an argv, never a shell (docs/decisions/no-simple-git.md); node:child_process loads on first use.
import { dirname } from 'node:path';
import { InternalError, type LeapErrorOptions } from './errors.js';

export interface GitOptions {
  cwd: string;
  /** The environment (the process's when omitted); `extraEnv` is laid over it. */
  env?: NodeJS.ProcessEnv;
  extraEnv?: Record<string, string>;
  /** Drop inherited `GIT_*` variables (a hook's `GIT_DIR` would point git elsewhere); `GIT_SSH*` stay. */
  isolate?: boolean;
  /** `GIT_CEILING_DIRECTORIES` (`true`: cwd's parent): a worktree that lost its `.git` fails, not the outer repo. */
  ceiling?: boolean | string;
  input?: string | Buffer;
  allowFailure?: boolean;
  /** The exit code a thrown GitError carries (the command's own table decides; 2 when omitted). */
  exitCode?: number;
}

/** `code`: git's exit code (a signal is 128 + its number); stdout as `bytes` and, decoded on first read, as text. */
export type GitResult = ReturnType<typeof result>;

/** git failed, or could not be started (code null). */
export class GitError extends InternalError {
  constructor(
    readonly args: readonly string[],
    readonly cwd: string,
    readonly code: number | null,
    readonly stderr: string,
    options: LeapErrorOptions = {},
  ) {
    const said = stderr.trim() || (options.cause instanceof Error ? options.cause.message : '') || '(no message)';
    const what = code === null ? 'could not run' : `failed (exit ${code})`;
    super(`${gitCommandName(args)} ${what} in ${cwd}: ${said}`, options);
  }
}

/** `git` and its subcommand words (`git worktree add`), never data arguments, which the error's `args` keeps. */
export function gitCommandName(args: readonly string[]): string {
  const words = args.slice(0, 2);
  const data = words.findIndex((arg) => !/^[a-z][a-z-]*$/.test(arg));
  return ['git', ...words.slice(0, data === -1 ? 2 : data)].join(' ');
}

export function gitEnv(options: GitOptions): NodeJS.ProcessEnv {
  const base = options.env ?? process.env;
  const keep = ([key]: [string, unknown]) => !/^GIT_/i.test(key) || key === 'GIT_SSH' || key === 'GIT_SSH_COMMAND';
  let env: NodeJS.ProcessEnv = options.isolate === true ? Object.fromEntries(Object.entries(base).filter(keep)) : base;
  if (options.ceiling !== undefined && options.ceiling !== false)
    env = { ...env, GIT_CEILING_DIRECTORIES: options.ceiling === true ? dirname(options.cwd) : options.ceiling };
  return options.extraEnv === undefined ? env : { ...env, ...options.extraEnv };
}

const cp = () => process.getBuiltinModule('node:child_process');

function result(code: number, bytes: Buffer, stderr: string) {
  let text: string | undefined;
  return {
    code,
    bytes,
    stderr,
    get stdout() {
      return (text ??= bytes.toString('utf8'));
    },
  };
}

function finish(args: readonly string[], options: GitOptions, ran: GitResult): GitResult {
  if (ran.code === 0 || options.allowFailure === true) return ran;
  throw new GitError(args, options.cwd, ran.code, ran.stderr || ran.stdout, { exitCode: options.exitCode });
}

function signalCode(signal: NodeJS.Signals | null): number {
  return 128 + (signal === null ? 0 : (process.getBuiltinModule('node:os').constants.signals[signal] ?? 0));
}

export function runGitSync(args: readonly string[], options: GitOptions): GitResult {
  const { cwd, input = '', exitCode } = options;
  const child = cp().spawnSync('git', args, { cwd, env: gitEnv(options), input, maxBuffer: 1 << 30 });
  if (child.error !== undefined) throw new GitError(args, cwd, null, '', { cause: child.error, exitCode });
  return finish(args, options, result(child.status ?? signalCode(child.signal), child.stdout, child.stderr.toString()));
}

export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const { cwd, exitCode } = options;
  return new Promise<GitResult>((resolve, reject) => {
    const child = cp().spawn('git', [...args], {
      cwd,
      env: gitEnv(options),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const [out, err]: [Buffer[], Buffer[]] = [[], []];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    child.on('error', (cause) => reject(new GitError(args, cwd, null, '', { cause, exitCode })));
    child.on('close', (code, signal) =>
      resolve(result(code ?? signalCode(signal), Buffer.concat(out), Buffer.concat(err).toString())),
    );
    if (options.input !== undefined) {
      // git may exit before reading all of stdin (a refusal); the close event reports it.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input);
    }
  }).then((ran) => finish(args, options, ran));
}

export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await runGit(args, options)).stdout.replace(/\n$/, '');
}

export function gitTextSync(args: readonly string[], options: GitOptions): string {
  return runGitSync(args, options).stdout.replace(/\n$/, '');
}

/** Split git's `-z` output into its parts (paths may hold any byte but NUL). */
export const splitNul = (text: string): string[] => text.split('\0').filter((part) => part !== '');
