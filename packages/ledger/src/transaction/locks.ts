// The two locks of a ledger commit: ours on the state folder (one ledger change at a time), and git's
// index.lock, which `git commit` would hold too, so no other git process writes the index meanwhile.
// Git never reads a lock's content, only its existence, so ours holds the transaction's token: that is
// how recovery tells our stale lock from another git process's live one.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateDir, readLockHolder, tryLock, type Lock } from '@leap/core';
import { BusyError, RefusedError } from '../exit-codes.js';
import { unlinkIfPresent } from './journal.js';

/** The ledger lock file of a state folder. */
export function ledgerLockPath(stateDir: string): string {
  return join(stateDir, 'ledger.lock');
}

/** Take the ledger lock, or throw a BusyError naming the live holder. */
export function takeLedgerLock(stateDir: string): Lock {
  ensureStateDir(stateDir);
  const file = ledgerLockPath(stateDir);
  const lock = tryLock(file);
  if (lock !== null) return lock;
  const holder = readLockHolder(file);
  throw new BusyError(`${file}: another ledger command (pid ${holder?.pid ?? '?'}) is changing the ledger; retry when it ends`);
}

const lockContent = (token: string): string => `leap-ledger transaction ${token}\n`;

/** Take git's `index.lock` (exclusive create), marked with the transaction's token. */
export function takeIndexLock(indexFile: string, token: string): void {
  let fd: number;
  try {
    fd = openSync(`${indexFile}.lock`, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new RefusedError(`${indexFile}.lock exists: another git process is using the index (if none is, a crashed one left it: remove it)`, { cause: error });
    }
    throw error;
  }
  try {
    writeSync(fd, lockContent(token));
  } finally {
    closeSync(fd);
  }
}

/** True when `index.lock` exists and is the transaction's. */
export function ownsIndexLock(indexFile: string, token: string): boolean {
  try {
    return readFileSync(`${indexFile}.lock`, 'utf8') === lockContent(token);
  } catch {
    return false;
  }
}

/** Remove `index.lock` if it is the transaction's; returns whether it was. */
export function releaseIndexLock(indexFile: string, token: string): boolean {
  if (!ownsIndexLock(indexFile, token)) return false;
  unlinkIfPresent(`${indexFile}.lock`);
  return true;
}
