// Where a command's ledger is: `--issue N` (the state folder's issue-N.md), `--ledger FILE`, or stdin.
import { resolve } from 'node:path';
import { UsageError, checkIssue, resolveStateDir, statePaths } from '@leap/core';
import { decodeUtf8, readFileBytes, readStdinBytes, stdinIsDevice } from './read-input.js';

/** How a command names its ledger; `cwd` and `env` default to the process's. */
export interface LedgerLocation {
  issue?: number | string | null;
  ledger?: string | null;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** A ledger file and the issue it belongs to (null for `--ledger FILE`). */
export interface LedgerFile {
  path: string;
  issue: number | null;
}

/** The ledger file named by `--issue` or `--ledger`, or null when neither is given. */
export function locateLedger(location: LedgerLocation): LedgerFile | null {
  const cwd = location.cwd ?? process.cwd();
  const hasIssue = location.issue !== undefined && location.issue !== null;
  const hasLedger = location.ledger !== undefined && location.ledger !== null;
  if (hasIssue && hasLedger) throw new UsageError('Expected --issue N or --ledger FILE, not both');
  if (hasLedger) {
    if (location.ledger === '') throw new UsageError('Expected --ledger FILE to name a file, got ""');
    return { path: resolve(cwd, location.ledger as string), issue: null };
  }
  if (!hasIssue) return null;
  const issue = checkIssue(location.issue as number | string, '--issue');
  const stateDir = resolveStateDir(location.env ?? process.env, cwd);
  return { path: statePaths(stateDir).ledger(issue), issue };
}

/** A ledger's text and the name errors use for it. */
export interface LedgerText {
  text: string;
  /** The path, or `<stdin>`. */
  file: string;
  path: string | null;
  issue: number | null;
  /** The bytes read, for comparing with a recovered transaction's. */
  bytes: Buffer;
}

/** Read the ledger from its file, or from stdin when no file is named. */
export function readLedger(location: LedgerLocation, stdin: () => Buffer = defaultStdin): LedgerText {
  const located = locateLedger(location);
  if (located === null) {
    const bytes = stdin();
    return { text: decodeUtf8(bytes, '<stdin>'), file: '<stdin>', path: null, issue: null, bytes };
  }
  const bytes = readFileBytes(located.path, located.issue === null ? 'a ledger' : `the ledger of issue ${located.issue} (make one with leap-ledger init --issue ${located.issue})`);
  return { text: decodeUtf8(bytes, located.path), file: located.path, path: located.path, issue: located.issue, bytes };
}

function defaultStdin(): Buffer {
  return readStdinBytes(stdinIsDevice(), 'a ledger (cat .tdd/issue-N.md | leap-ledger current), or --issue N or --ledger FILE,');
}
