// A command's input: the ledger of `--issue N`, `--ledger FILE` or stdin, decoded as strict UTF-8.
import { existsSync, fstatSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FileFormatError, UsageError, checkIssue, envIssue, readToEnd, resolveStateDir, statePaths } from '@leap/core';

/** How a command names its ledger; `cwd` and `env` default to the process's. */
export type LedgerLocation = {
  issue?: number | string | null;
  ledger?: string | null;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
};

/** A ledger's text, the name messages use for it (its path, or `<stdin>`), its path, and the bytes read. */
export type LedgerText = { text: string; file: string; path: string | null; bytes: Buffer };

/** Where a changing command acts; `issue` is null for `--ledger FILE`. */
export type ChangeTarget = {
  path: string;
  issue: number | null;
  stateDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
};

const given = (value: unknown): boolean => value !== undefined && value !== null;

/** The ledger named by `--issue` or `--ledger`, or null when neither is given. */
export function locateLedger({ issue, ledger, cwd = process.cwd(), env = process.env }: LedgerLocation) {
  if (given(issue) && given(ledger)) throw new UsageError('Expected --issue N or --ledger FILE, not both');
  if (ledger === '') throw new UsageError('Expected --ledger FILE to name a file, got ""');
  if (given(ledger)) return { path: resolve(cwd, ledger as string), issue: null };
  if (!given(issue)) return null;
  const n = checkIssue(issue as number | string, '--issue');
  return { path: statePaths(resolveStateDir(env, cwd)).ledger(n), issue: n };
}

/** A changing command's ledger: `--issue N`, `--ledger FILE`, else the run's VERI_ISSUE. */
export function changeTarget(at: LedgerLocation, command: string): ChangeTarget {
  const [cwd, env] = [at.cwd ?? process.cwd(), at.env ?? process.env];
  const stateDir = resolveStateDir(env, cwd);
  const located = locateLedger({ ...at, cwd, env });
  if (located !== null) return { ...located, stateDir, cwd, env };
  const issue = envIssue(env);
  const name = 'expected --issue N or --ledger FILE (or VERI_ISSUE in the environment) to name the ledger';
  if (issue === null) throw new UsageError(`${command}: ${name}`);
  return { path: statePaths(stateDir).ledger(issue), issue, stateDir, cwd, env };
}

/** What a query expects on stdin. */
export const LEDGER_HINT = 'a ledger (cat .tdd/issue-N.md | leap-ledger current), or --issue N or --ledger FILE,';

export function readLedger(at: LedgerLocation, stdin = () => readStdin(LEDGER_HINT)): LedgerText {
  const located = locateLedger(at);
  if (located === null) {
    const bytes = stdin();
    return { text: decodeUtf8(bytes, '<stdin>'), file: '<stdin>', path: null, bytes };
  }
  const { path, issue } = located;
  const init = `(make one with leap-ledger init --issue ${issue})`;
  const bytes = readFileBytes(path, issue === null ? 'a ledger' : `the ledger of issue ${issue} ${init}`);
  return { text: decodeUtf8(bytes, path), file: path, path, bytes };
}

/** Decode UTF-8 exactly (a byte-order mark is kept); other bytes are a FileFormatError naming the line. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // The fast decoder turns bad bytes into U+FFFD: only a text holding one needs the strict check.
  if (!text.includes('\uFFFD')) return text;
  const decodes = (part: Uint8Array): boolean => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(part) !== undefined;
    } catch {
      return false;
    }
  };
  if (decodes(bytes)) return text; // a real U+FFFD
  // The first line that does not decode (a multi-byte sequence never holds a newline byte).
  const lines = Buffer.from(bytes).toString('latin1').split('\n');
  const line = lines.findIndex((bytesOfLine) => !decodes(Buffer.from(bytesOfLine, 'latin1'))) + 1;
  throw new FileFormatError(file, line, 'expected UTF-8 text, found bytes that are not UTF-8');
}

/** Read a file whole; a missing file (or a folder) is a UsageError saying what the file should have been. */
export function readFileBytes(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') {
      throw new UsageError(`${path}: ${code === 'ENOENT' ? 'no such file' : 'is a folder'} (expected ${what})`, {
        cause: error,
      });
    }
    throw error;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Stdin to its end; a terminal (any character device but /dev/null) is a UsageError instead of a wait. */
export function readStdin(hint: string): Buffer {
  let terminal = false;
  try {
    const stdin = fstatSync(0);
    terminal = stdin.isCharacterDevice() && stdin.rdev !== statSync('/dev/null').rdev;
  } catch {
    // No stdin: read as empty.
  }
  if (terminal) throw new UsageError(`expected ${hint} on stdin, found a terminal`);
  // One buffer that doubles when full; a non-blocking pipe inherited from a parent is waited for a little.
  return readToEnd(0, { buffer: Buffer.allocUnsafeSlow(1 << 20) }, () => Atomics.wait(pause, 0, 0, 5));
}

/** The journal of an interrupted tick (`.tmp` while it is written). */
export const journalPath = (stateDir: string): string => join(stateDir, 'ledger-transaction.json');

/** Whether an interrupted tick left its journal, or a half-written one (two stats: every command asks first). */
export const hasPendingTransaction = (stateDir: string): boolean =>
  existsSync(journalPath(stateDir)) || existsSync(`${journalPath(stateDir)}.tmp`);
