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

const signalCode = (signal: NodeJS.Signals | null): number =>
  128 + (signal === null ? 0 : (process.getBuiltinModule('node:os').constants.signals[signal] ?? 0));

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

export const gitText = async (args: readonly string[], options: GitOptions): Promise<string> =>
  (await runGit(args, options)).stdout.replace(/\n$/, '');
export const gitTextSync = (args: readonly string[], options: GitOptions): string =>
  runGitSync(args, options).stdout.replace(/\n$/, '');

export const splitNul = (text: string): string[] => text.split('\0').filter((part) => part !== '');

/** HEAD's commit (null before the first), its branch (null when detached), and each changed path: X is the index's
 * side, Y the work tree's (`.` unchanged; `?` both for an untracked path). */
export type StatusV2 = { oid: string | null; branch: string | null; entries: { x: string; y: string; path: string }[] };

// Fields before the path in `1`, `2` (its origin follows as an entry of its own) and `u` entries (git-status(1)).
const FIELDS: Record<string, number | undefined> = { 1: 8, 2: 9, u: 10 };

/** Parse `git status --porcelain=v2 -z` output (with or without `--branch`); paths may hold spaces and any byte. */
export function parseStatusV2(out: string): StatusV2 {
  const found: StatusV2 = { oid: null, branch: null, entries: [] };
  const entries = out.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    if (entry.startsWith('# branch.oid '))
      found.oid = /^[0-9a-f]{40,64}$/.test(entry.slice(13)) ? entry.slice(13) : null;
    else if (entry.startsWith('# branch.head '))
      found.branch = entry === '# branch.head (detached)' ? null : entry.slice(14);
    else if (entry.startsWith('? ')) found.entries.push({ x: '?', y: '?', path: entry.slice(2) });
    else {
      const fields = entry[1] === ' ' ? FIELDS[entry[0] as string] : undefined;
      if (fields === undefined) continue;
      const parts = entry.split(' ');
      const xy = parts[1] ?? '..';
      found.entries.push({ x: xy[0] ?? '.', y: xy[1] ?? '.', path: parts.slice(fields).join(' ') });
      if (entry[0] === '2') i++;
    }
  }
  return found;
}
