// Run git with an argv array (never a shell): arguments, titles and messages pass byte for byte.
// node:child_process is imported on first use, so queries that never run git never load it.
import type { SpawnSyncOptions, SpawnSyncReturns } from 'node:child_process';
import { LedgerInternalError } from '../exit-codes.js';

type SpawnSync = (command: string, args: readonly string[], options: SpawnSyncOptions) => SpawnSyncReturns<Buffer>;
let spawnSyncImpl: SpawnSync | undefined;

/** Load node:child_process's spawnSync once. */
export async function loadSpawnSync(): Promise<SpawnSync> {
  spawnSyncImpl ??= (await import('node:child_process')).spawnSync as SpawnSync;
  return spawnSyncImpl;
}

/** Options of one git run. */
export interface GitOptions {
  cwd: string;
  /** The environment (the process's when omitted); `extraEnv` is laid over it. */
  env?: NodeJS.ProcessEnv;
  extraEnv?: Record<string, string>;
  input?: string | Buffer;
  /** Return a failed run instead of throwing. */
  allowFailure?: boolean;
}

/** What a git run left. */
export interface GitResult {
  status: number;
  stdout: Buffer;
  stderr: string;
}

/** Run `git ARGS`; throws a LedgerInternalError with git's stderr when it fails (unless allowFailure). */
export async function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const spawnSync = await loadSpawnSync();
  const env = options.extraEnv === undefined ? (options.env ?? process.env) : { ...(options.env ?? process.env), ...options.extraEnv };
  const child = spawnSync('git', args, {
    cwd: options.cwd,
    env,
    input: options.input ?? '',
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 1 << 30,
  });
  if (child.error !== undefined) {
    throw new LedgerInternalError(`could not run git ${args[0] ?? ''}: ${child.error.message}`, { cause: child.error });
  }
  const result = { status: child.status ?? 128, stdout: child.stdout, stderr: child.stderr.toString('utf8') };
  if (result.status !== 0 && options.allowFailure !== true) throw gitFailure(args, result);
  return result;
}

/** Run git and return its stdout as text, without the final newline. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  const { stdout } = await runGit(args, options);
  return stdout.toString('utf8').replace(/\n$/, '');
}

/** The error for a failed git run: the command (not its data arguments) and git's own words. */
export function gitFailure(args: readonly string[], result: GitResult): LedgerInternalError {
  return new LedgerInternalError(`git ${args[0] ?? ''} failed (exit ${result.status}): ${result.stderr.trim() || '(no message)'}`);
}
