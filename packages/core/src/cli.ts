// Bins call `runCli`; nothing below them calls process.exit (docs/decisions/exit-codes-at-entry.md).
import { writeSync } from 'node:fs';
import { UsageError, didYouMean } from './errors.js';

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Sync, without Node's streams (ms at start-up); a closed reader or fd is ignored, a full pipe (EAGAIN) retried. */
export function writeFd(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

export interface CliOptions {
  internalExitCode?: number;
  /** Skip Node's slow teardown: only for commands whose writes are all sync and whose children have all ended. */
  exitWhenDone?: boolean;
}

/** `main`'s return is the exit code; a thrown error with an `exitCode` prints as `PROG: message` and gives it. */
export async function runCli(
  prog: string,
  main: () => Promise<number | undefined> | number | undefined,
  options: CliOptions = {},
): Promise<void> {
  try {
    process.exitCode = (await main()) ?? 0;
  } catch (error) {
    const code = (error as { exitCode?: unknown }).exitCode;
    const internal = typeof code !== 'number';
    const said = internal ? `internal error: ${(error as Error)?.stack ?? String(error)}` : (error as Error).message;
    writeFd(2, `${prog}: ${said}\n`);
    process.exitCode = internal ? (options.internalExitCode ?? 2) : code;
  }
  if (options.exitWhenDone === true) process.exit();
}

export type CliOption = { type: 'string' | 'boolean'; short?: string; multiple?: boolean };

export type CliValues<T extends Record<string, CliOption>> = {
  [K in keyof T]?: T[K]['type'] extends 'string' ? (T[K]['multiple'] extends true ? string[] : string) : boolean;
};

const NODE_HINT = /\. To specify a positional argument starting with a '-'[\s\S]*$/;

/** `util.parseArgs` with strict checking, whose complaints become UsageErrors that show the usage line. */
export function parseCli<T extends Record<string, CliOption>>(
  argv: string[],
  options: T,
  usage: string,
  config: { allowPositionals?: boolean; stopAtPositional?: boolean; exitCode?: number } = {},
): { values: CliValues<T>; positionals: string[] } {
  const bound = bindValues(argv, options, config.stopAtPositional === true);
  const at = config.stopAtPositional === true ? bound.findIndex((arg) => arg === '--' || !arg.startsWith('-')) : -1;
  const args = at === -1 ? bound : bound.slice(0, at);
  const rest = at === -1 ? [] : bound.slice(bound[at] === '--' ? at + 1 : at);
  if (args.length === 0) return { values: {} as CliValues<T>, positionals: rest };
  try {
    const { parseArgs } = process.getBuiltinModule('node:util');
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: config.allowPositionals ?? true });
    return { values: { ...parsed.values } as CliValues<T>, positionals: [...parsed.positionals, ...rest] };
  } catch (cause) {
    // Node appends to an unknown option a hint about `--`, noise on a command line; keep its first sentence.
    let message = (cause as Error).message.replace(NODE_HINT, '');
    const unknown = /^Unknown option '(--[^'=]+)/.exec(message)?.[1];
    const flags = Object.keys(options).map((name) => `--${name}`);
    if (unknown !== undefined) message += didYouMean(unknown, flags);
    throw new UsageError(`${message}\n${usage}`, { cause, exitCode: config.exitCode ?? 2 });
  }
}

// `--name VALUE` and `-n VALUE` of string options become `--name=VALUE`, up to `--` (or the first positional).
function bindValues(argv: string[], options: Record<string, CliOption>, stopAtPositional: boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--' || (stopAtPositional && !arg.startsWith('-'))) return [...out, ...argv.slice(i)];
    const name = arg.replace(/^--?/, '');
    const isLong = arg.startsWith('--');
    const entry = Object.entries(options).find(([long, o]) => (isLong ? long === name : o.short === name));
    const bind = arg.startsWith('-') && !arg.includes('=') && entry?.[1].type === 'string' && i + 1 < argv.length;
    out.push(bind ? `--${entry[0]}=${argv[++i]}` : arg);
  }
  return out;
}

const killPoints = new Map<string, number>();

/** Tests only: with PREFIX_KILL_AT=k, SIGKILL this process at its k-th kill point (or the one named k). */
export function killPoint(prefix: string, name: string): void {
  const at = process.env[`${prefix}_KILL_AT`];
  if (at === undefined || at === '') return;
  const n = (killPoints.get(prefix) ?? 0) + 1;
  killPoints.set(prefix, n);
  if (process.env[`${prefix}_KILL_TRACE`] === '1') writeFd(2, `kill point ${n}: ${name}\n`);
  if (n !== Number(at) && at !== name) return;
  process.kill(process.pid, 'SIGKILL');
  for (;;) Atomics.wait(pause, 0, 0, 1000);
}
