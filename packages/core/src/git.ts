// The one way the toolchain runs git: an argv (never a shell, so every argument is data), a sync face
// for commands that answer at once and an async face for long runs, one GitError for every failure.
// node:child_process is taken through process.getBuiltinModule on first use, so an entry that never
// runs git never loads it.
import type * as ChildProcess from 'node:child_process';
import { dirname } from 'node:path';
import { InternalError, type LeapErrorOptions } from './errors.js';

/** Options of one git run. */
export interface GitOptions {
  /** The folder git runs in. */
  cwd: string;
  /** The environment (the process's when omitted); `extraEnv` is laid over it. */
  env?: NodeJS.ProcessEnv;
  extraEnv?: Record<string, string>;
  /**
   * Drop the caller's `GIT_*` variables first (a `GIT_DIR` or `GIT_INDEX_FILE` inherited from a hook or a
   * person's shell would point git at another repository); `GIT_SSH` and `GIT_SSH_COMMAND` stay.
   */
  isolate?: boolean;
  /**
   * `GIT_CEILING_DIRECTORIES`: git never looks above this folder for a repository (`true`: the parent of
   * `cwd`), so in a worktree whose `.git` an agent deleted git fails instead of working on the repository
   * around it.
   */
  ceiling?: boolean | string;
  /** Bytes for git's stdin (closed when omitted). */
  input?: string | Buffer;
  /** Return a failed run instead of throwing. */
  allowFailure?: boolean;
  /** The exit code a thrown GitError carries (the command's own table decides; 2 when omitted). */
  exitCode?: number;
}

/** What a git run left. */
export interface GitResult {
  /** git's exit code; a signal is 128 + its number. */
  code: number;
  /** stdout as bytes (a blob, `-z` output) and, decoded once on first read, as UTF-8 text. */
  bytes: Buffer;
  readonly stdout: string;
  stderr: string;
}

/** git failed, or could not be started: its arguments, exit code (null when it never ran), stderr and cause. */
export class GitError extends InternalError {
  readonly args: readonly string[];
  readonly cwd: string;
  readonly code: number | null;
  readonly stderr: string;
  constructor(args: readonly string[], cwd: string, code: number | null, stderr: string, options: LeapErrorOptions = {}) {
    const said = stderr.trim() || (options.cause instanceof Error ? options.cause.message : '') || '(no message)';
    super(`${gitCommandName(args)} ${code === null ? 'could not run' : `failed (exit ${code})`} in ${cwd}: ${said}`, options);
    this.args = args;
    this.cwd = cwd;
    this.code = code;
    this.stderr = stderr;
  }
}

/**
 * How a failure names the command: `git` and its subcommand words (`git worktree add`), never the data
 * arguments after them (a title, a message, a path), which the error's `args` keeps.
 */
export function gitCommandName(args: readonly string[]): string {
  const words = ['git'];
  for (const arg of args.slice(0, 2)) {
    if (!/^[a-z][a-z-]*$/.test(arg)) break;
    words.push(arg);
  }
  return words.join(' ');
}

/** The environment a run gets from its options. */
export function gitEnv(options: Pick<GitOptions, 'cwd' | 'env' | 'extraEnv' | 'isolate' | 'ceiling'>): NodeJS.ProcessEnv {
  const base = options.env ?? process.env;
  let env: NodeJS.ProcessEnv = base;
  if (options.isolate === true) {
    env = {};
    for (const [key, value] of Object.entries(base)) {
      if (!/^GIT_/i.test(key) || key === 'GIT_SSH' || key === 'GIT_SSH_COMMAND') env[key] = value;
    }
  }
  if (options.ceiling !== undefined && options.ceiling !== false) {
    env = { ...env, GIT_CEILING_DIRECTORIES: options.ceiling === true ? dirname(options.cwd) : options.ceiling };
  }
  return options.extraEnv === undefined ? env : { ...env, ...options.extraEnv };
}

let childProcess: typeof ChildProcess | undefined;
function cp(): typeof ChildProcess {
  childProcess ??= process.getBuiltinModule('node:child_process') as typeof ChildProcess;
  return childProcess;
}

const MAX_BUFFER = 1 << 30;

function result(code: number, bytes: Buffer, stderr: string): GitResult {
  let text: string | undefined;
  return {
    code,
    bytes,
    stderr,
    get stdout() {
      text ??= bytes.toString('utf8');
      return text;
    },
  };
}

function finish(args: readonly string[], options: GitOptions, ran: GitResult): GitResult {
  if (ran.code !== 0 && options.allowFailure !== true) {
    throw new GitError(args, options.cwd, ran.code, ran.stderr || ran.stdout, options.exitCode === undefined ? {} : { exitCode: options.exitCode });
  }
  return ran;
}

function signalCode(signal: NodeJS.Signals | null): number {
  const number = signal === null ? undefined : (process.getBuiltinModule('node:os') as typeof import('node:os')).constants.signals[signal];
  return 128 + (number ?? 0);
}

/** Run `git ARGS` and wait for it (for commands that answer at once); throws a GitError when it fails, unless `allowFailure`. */
export function runGitSync(args: readonly string[], options: GitOptions): GitResult {
  const child = cp().spawnSync('git', args, {
    cwd: options.cwd,
    env: gitEnv(options),
    input: options.input ?? '',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: MAX_BUFFER,
  });
  if (child.error !== undefined) {
    throw new GitError(args, options.cwd, null, '', { cause: child.error, ...(options.exitCode === undefined ? {} : { exitCode: options.exitCode }) });
  }
  return finish(args, options, result(child.status ?? signalCode(child.signal), child.stdout, child.stderr.toString('utf8')));
}

/** Run `git ARGS` without blocking the process; rejects with a GitError when it fails, unless `allowFailure`. */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = cp().spawn('git', [...args], {
      cwd: options.cwd,
      env: gitEnv(options),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    child.on('error', (error) => reject(new GitError(args, options.cwd, null, '', { cause: error, ...(options.exitCode === undefined ? {} : { exitCode: options.exitCode }) })));
    child.on('close', (code, signal) => {
      try {
        resolve(finish(args, options, result(code ?? signalCode(signal), Buffer.concat(out), Buffer.concat(err).toString('utf8'))));
      } catch (error) {
        reject(error);
      }
    });
    if (options.input !== undefined) {
      // git may exit before reading all of stdin (a refusal); the close event reports it.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input);
    }
  });
}

/** git's stdout as text, without its final newline. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await runGit(args, options)).stdout.replace(/\n$/, '');
}

/** `gitText`, waiting for git. */
export function gitTextSync(args: readonly string[], options: GitOptions): string {
  return runGitSync(args, options).stdout.replace(/\n$/, '');
}

/** Split git's `-z` output into its parts (paths may hold any byte but NUL). */
export function splitNul(text: string): string[] {
  return text.split('\0').filter((part) => part !== '');
}
