// The transaction journal: written (atomically) before a tick touches anything, so the next ledger command
// knows what an interrupted tick was doing and can finish it or undo it. Every file the transaction makes
// has a name known from the journal (or from the state folder alone), so recovery leaves nothing behind.
import { join } from 'node:path';
import { FileFormatError, readFileIfExists, unlinkIfPresent, writeFileAtomic } from '@leap/core';

/** What an interrupted ledger commit left to recover from. */
export interface Journal {
  version: 1;
  /** Random; every process the transaction starts carries LEAP_LEDGER_TXN=token, and our index.lock holds it. */
  token: string;
  pid: number;
  action: 'tick' | 'clear-refactor-pending';
  issue: number | null;
  title: string;
  ledger: string;
  /** The ledger's path from the top folder, as git names it. */
  ledgerRel: string;
  /** A hard link to the ledger's old bytes, made before the ledger is replaced. */
  backup: string;
  /** Where the new ledger is written before it is renamed over the ledger. */
  ledgerTemp: string;
  root: string;
  indexFile: string;
  /** The transaction's copy of the index, committed and then renamed over the index. */
  tmpIndex: string;
  oldHead: string;
  /** sha256 of the ledger's old and new bytes. */
  oldSha: string;
  newSha: string;
  /** Set just before HEAD moves: the commit HEAD moves to. */
  newCommit: string | null;
  startedAt: string;
}

/** The journal file of a state folder. */
export function journalPath(stateDir: string): string {
  return join(stateDir, 'ledger-transaction.json');
}

/** The journal's temp file: a journal being written; alone, it means the transaction never started. */
export function journalTempPath(stateDir: string): string {
  return `${journalPath(stateDir)}.tmp`;
}

/** Write the journal whole: a reader sees the old journal or the new one. */
export function writeJournal(stateDir: string, journal: Journal): void {
  writeFileAtomic(journalPath(stateDir), `${JSON.stringify(journal, null, 2)}\n`, { tempPath: journalTempPath(stateDir) });
}

/** The journal, or null when no transaction is pending; a journal that is not ours is a FileFormatError. */
export function readJournal(stateDir: string): Journal | null {
  const file = journalPath(stateDir);
  const text = readFileIfExists(file);
  if (text === null) return null;
  let journal: Partial<Journal>;
  try {
    journal = JSON.parse(text) as Partial<Journal>;
  } catch (cause) {
    throw new FileFormatError(file, undefined, `expected the JSON journal of an interrupted tick, found unreadable JSON (${(cause as Error).message}); remove it once the ledger and HEAD agree`, {
      cause,
    });
  }
  for (const key of ['token', 'ledger', 'ledgerRel', 'backup', 'ledgerTemp', 'root', 'indexFile', 'tmpIndex', 'oldHead', 'oldSha', 'newSha'] as const) {
    if (typeof journal[key] !== 'string') {
      throw new FileFormatError(file, undefined, `expected the journal of an interrupted tick with a string "${key}", found ${JSON.stringify(journal[key])}`);
    }
  }
  return journal as Journal;
}

/** Remove the journal (the transaction is over) and any half-written one. */
export function removeJournal(stateDir: string): void {
  unlinkIfPresent(journalPath(stateDir));
  unlinkIfPresent(journalTempPath(stateDir));
}
