// The two ways a ledger commit ends, shared by the tick itself and by recovery after a crash:
// undo (HEAD never moved) or finish (HEAD moved to the journal's commit).
import { existsSync, renameSync, statSync } from 'node:fs';
import { unlinkIfPresent } from '@leap/core';
import { indexLockDraft, ownsIndexLock, releaseIndexLock } from './locks.js';
import type { Journal } from './journal.js';
import { killPoint } from './kill-point.js';

/** Put the ledger's old bytes back from the backup link; returns true when the ledger had been replaced. */
function restoreBackup(ledger: string, backup: string): boolean {
  if (!existsSync(backup)) return false;
  if (existsSync(ledger) && statSync(ledger).ino === statSync(backup).ino) {
    // Linked but not replaced yet: the ledger is the old file itself.
    unlinkIfPresent(backup);
    return false;
  }
  renameSync(backup, ledger);
  return true;
}

/** Undo a transaction whose commit did not land: old ledger bytes back, our files and index.lock gone. */
export function undoTransaction(journal: Journal): { ledgerRestored: boolean } {
  unlinkIfPresent(journal.ledgerTemp);
  const ledgerRestored = restoreBackup(journal.ledger, journal.backup);
  killPoint('undo: ledger restored');
  unlinkIfPresent(journal.tmpIndex);
  unlinkIfPresent(`${journal.tmpIndex}.lock`);
  unlinkIfPresent(indexLockDraft(journal.indexFile, journal.token));
  releaseIndexLock(journal.indexFile, journal.token);
  return { ledgerRestored };
}

/**
 * Finish a transaction whose commit landed: the committed index (our copy) replaces the index while we still
 * hold index.lock, then the lock and the backup go. `restage` is true when index.lock was no longer ours (someone
 * removed it and may have written the index since): then the copy is dropped and the caller re-stages the ledger.
 * With `keepIndex` (HEAD has moved on past the commit) the index is left as it is and the copy dropped.
 */
export function finishTransaction(journal: Journal, options: { keepIndex?: boolean } = {}): { restage: boolean } {
  const lockIsOurs = ownsIndexLock(journal.indexFile, journal.token);
  let restage = false;
  if (existsSync(journal.tmpIndex)) {
    if (options.keepIndex === true) {
      unlinkIfPresent(journal.tmpIndex);
    } else if (lockIsOurs) {
      renameSync(journal.tmpIndex, journal.indexFile);
    } else {
      unlinkIfPresent(journal.tmpIndex);
      restage = true;
    }
  }
  killPoint('finish: index in place');
  unlinkIfPresent(`${journal.tmpIndex}.lock`);
  unlinkIfPresent(indexLockDraft(journal.indexFile, journal.token));
  releaseIndexLock(journal.indexFile, journal.token);
  killPoint('finish: index.lock released');
  unlinkIfPresent(journal.backup);
  unlinkIfPresent(journal.ledgerTemp);
  return { restage };
}
