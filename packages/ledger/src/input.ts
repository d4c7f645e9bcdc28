// A command's input (the ledger of `--issue N`, `--ledger FILE` or stdin, strict UTF-8) and its exit codes.
import { isUtf8 } from 'node:buffer';
import { existsSync, fstatSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { FileFormatError, LeapError, UsageError, checkIssue, envIssue, orElse, readToEnd } from '@leap/core';
import { resolveStateDir, statePaths } from '@leap/core';

// Every exit code of leap-ledger; the README and each --help show the same table.
export const EXIT = { ok: 0, nothing: 1, usage: 2, busy: 3, refused: 4, internal: 5 } as const;

/** Another ledger command holds the ledger lock, or the processes of an interrupted one still run. */
export class BusyError extends LeapError {
  override readonly exitCode = EXIT.busy;
}

/** Git (or a hook) refused the change; nothing was changed. */
export class RefusedError extends LeapError {
  override readonly exitCode = EXIT.refused;
}

/** Where a command runs; `cwd` and `env` default to the process's. */
export type RunAt = { cwd?: string; env?: NodeJS.ProcessEnv };

export type LedgerLocation = RunAt & { issue?: number | string | null; ledger?: string | null };

/** A ledger's text, the name messages use for it (its path, or `<stdin>`), its path, and the bytes read. */
export type LedgerText = { text: string; file: string; path: string | null; bytes: Buffer };

/** Where a changing command acts; `issue` is null for `--ledger FILE`. */
export type ChangeTarget = ReturnType<typeof changeTarget>;

/** The ledger named by `--issue` or `--ledger`, or null when neither is given. */
export function locateLedger({ issue, ledger, cwd = process.cwd(), env = process.env }: LedgerLocation) {
  if (issue != null && ledger != null) throw new UsageError('Expected --issue N or --ledger FILE, not both');
  if (ledger === '') throw new UsageError('Expected --ledger FILE to name a file, got ""');
  if (ledger != null) return { path: resolve(cwd, ledger), issue: null };
  if (issue == null) return null;
  const n = checkIssue(issue, '--issue');
  return { path: statePaths(resolveStateDir(env, cwd)).ledger(n), issue: n };
}

/** A changing command's ledger: `--issue N`, `--ledger FILE`, else the run's VERI_ISSUE. */
export function changeTarget(at: LedgerLocation, command: string) {
  const [cwd, env] = [at.cwd ?? process.cwd(), at.env ?? process.env];
  const stateDir = resolveStateDir(env, cwd);
  const located = locateLedger({ ...at, cwd, env });
  if (located !== null) return { ...located, stateDir, cwd, env };
  const issue = envIssue(env);
  const name = 'expected --issue N or --ledger FILE (or VERI_ISSUE in the environment) to name the ledger';
  if (issue === null) throw new UsageError(`${command}: ${name}`);
  return { path: statePaths(stateDir).ledger(issue), issue, stateDir, cwd, env };
}

export const LEDGER_HINT = 'a ledger (cat .tdd/issue-N.md | leap-ledger current), or --issue N or --ledger FILE,';

export function readLedger(at: LedgerLocation, stdin = () => readStdin(LEDGER_HINT)): LedgerText {
  const located = locateLedger(at);
  const [path, issue] = [located?.path ?? null, located?.issue ?? null];
  const init = `the ledger of issue ${issue} (make one with leap-ledger init --issue ${issue})`;
  const bytes = path === null ? stdin() : readFileBytes(path, issue === null ? 'a ledger' : init);
  return { text: decodeUtf8(bytes, path ?? '<stdin>'), file: path ?? '<stdin>', path, bytes };
}

/** Decode UTF-8 exactly (a byte-order mark is kept); other bytes are a FileFormatError naming the line. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // The fast decoder turns bad bytes into U+FFFD: only a text holding one needs the strict check.
  if (!text.includes('\uFFFD') || isUtf8(bytes)) return text;
  // The first line that does not decode (a multi-byte sequence never holds a newline byte).
  const lines = Buffer.from(bytes).toString('latin1').split('\n');
  const line = lines.findIndex((bytesOfLine) => !isUtf8(Buffer.from(bytesOfLine, 'latin1'))) + 1;
  throw new FileFormatError(file, line, 'expected UTF-8 text, found bytes that are not UTF-8');
}

/** Read a file whole; a missing file (or a folder) is a UsageError saying what the file should have been. */
export function readFileBytes(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const why = { ENOENT: 'no such file', EISDIR: 'is a folder' }[(error as NodeJS.ErrnoException).code ?? ''];
    if (why === undefined) throw error;
    throw new UsageError(`${path}: ${why} (expected ${what})`, { cause: error });
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Stdin to its end; a terminal (any character device but /dev/null) is a UsageError instead of a wait. */
export function readStdin(hint: string): Buffer {
  const isTerminal = (stdin: Stats) => stdin.isCharacterDevice() && stdin.rdev !== statSync('/dev/null').rdev;
  if (orElse(() => isTerminal(fstatSync(0)), false))
    throw new UsageError(`expected ${hint} on stdin, found a terminal`);
  // One buffer that doubles when full; a non-blocking pipe inherited from a parent is waited for a little.
  return readToEnd(0, { buffer: Buffer.allocUnsafeSlow(1 << 20) }, () => Atomics.wait(pause, 0, 0, 5));
}

/** The journal of an interrupted tick (`.tmp` while it is written). */
export const journalPath = (stateDir: string): string => join(stateDir, 'ledger-transaction.json');

/** Whether an interrupted tick left its journal, or a half-written one (two stats: every command asks first). */
export const hasPendingTransaction = (stateDir: string): boolean =>
  existsSync(journalPath(stateDir)) || existsSync(`${journalPath(stateDir)}.tmp`);
