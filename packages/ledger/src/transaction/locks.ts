// The two locks of a ledger commit: ours on the state folder (one ledger change at a time), and git's
// index.lock, which `git commit` would hold too, so no other git process writes the index meanwhile.
// Git never reads a lock's content, only its existence, so ours holds the transaction's token: that is
// how recovery tells our stale lock from another git process's live one.
import { closeSync, linkSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureStateDir, readLockHolder, tryLock, unlinkIfPresent, type Lock } from '@leap/core';
import { BusyError, RefusedError } from '../exit-codes.js';
import { killPoint } from './kill-point.js';

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

/** Where `takeIndexLock` writes the lock before linking it into place (recovery removes one left behind). */
export function indexLockDraft(indexFile: string, token: string): string {
  return `${indexFile}.leap-${token}.lock-draft`;
}

/**
 * Take git's `index.lock`, marked with the transaction's token. The lock is written whole under another name
 * and hard-linked into place (a link, like an exclusive create, fails when the lock exists), so there is
 * never an `index.lock` without the token: a process killed between creating the file and writing it would
 * leave an empty one, which recovery could not tell from a live git's and git would refuse for good.
 */
export function takeIndexLock(indexFile: string, token: string): void {
  const draft = indexLockDraft(indexFile, token);
  writeFileSync(draft, lockContent(token), { mode: 0o644 });
  killPoint('index.lock drafted');
  try {
    linkSync(draft, `${indexFile}.lock`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw indexLockHeld(indexFile, error);
    }
    // A file system without hard links: an exclusive create, then the token (a kill between them leaves the
    // empty lock this avoids elsewhere).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    unlinkIfPresent(draft);
    createIndexLock(indexFile, token);
    return;
  }
  unlinkIfPresent(draft);
}

const indexLockHeld = (indexFile: string, cause: unknown): RefusedError =>
  new RefusedError(`${indexFile}.lock exists: another git process is using the index (if none is, a crashed one left it: remove it)`, { cause });

function createIndexLock(indexFile: string, token: string): void {
  let fd: number;
  try {
    fd = openSync(`${indexFile}.lock`, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw indexLockHeld(indexFile, error);
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
