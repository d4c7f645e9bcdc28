// Recovery: the first ledger command after an interrupted transaction reads its journal, waits for the
// processes it left (a git still running may yet move HEAD), then looks at HEAD: still the old commit,
// the transaction is undone; the journal's new commit (or a descendant of it), it is finished. Either way
// the ledger file agrees with HEAD again, an event records it, and stderr says what was done.
import { existsSync, openSync, readSync, fstatSync, closeSync } from 'node:fs';
import { statePaths, tryLock, writeFd, type Lock } from '@leap/core';
import { BusyError } from '../exit-codes.js';
import { logLedgerEventOrWarn } from '../events.js';
import { runGit } from '../git/run-git.js';
import { quote } from '../quote-title.js';
import { journalPath, journalTempPath, readJournal, removeJournal, type Journal } from './journal.js';
import { killPoint } from './kill-point.js';
import { ledgerLockPath } from './locks.js';
import { waitForTransactionProcesses } from './orphans.js';
import { finishTransaction, undoTransaction } from './settle.js';

/** What recovery did. */
export interface RecoveryReport {
  /** undone: HEAD never moved; finished: HEAD is the transaction's commit or a descendant of it. */
  outcome: 'undone' | 'finished';
  action: Journal['action'];
  title: string;
  issue: number | null;
  ledger: string;
  /** HEAD after recovery. */
  head: string;
  /** sha256 of the ledger bytes the interrupted transaction wrote (a query on piped bytes compares them). */
  interruptedSha: string;
  /** The line printed on stderr. */
  message: string;
}

/** Options of recoverLedger. */
export interface RecoverOptions {
  env?: NodeJS.ProcessEnv;
  /** The caller holds the ledger lock already. */
  lockHeld?: boolean;
  prog?: string;
  /** How long to wait for the interrupted transaction's processes; LEAP_LEDGER_RECOVERY_WAIT_MS, else 30 s. */
  waitMs?: number;
}

/** True when the state folder holds the journal of an interrupted transaction, or a half-written one (two stats). */
export function hasPendingTransaction(stateDir: string): boolean {
  return existsSync(journalPath(stateDir)) || existsSync(journalTempPath(stateDir));
}

/**
 * Finish or undo an interrupted ledger transaction; null when there is none, or when a live command holds
 * the lock (its transaction is not interrupted, and only a lock holder may recover).
 */
export async function recoverLedger(stateDir: string, options: RecoverOptions = {}): Promise<RecoveryReport | null> {
  if (!hasPendingTransaction(stateDir)) return null;
  let lock: Lock | null = null;
  if (options.lockHeld !== true) {
    lock = tryLock(ledgerLockPath(stateDir));
    if (lock === null) return null;
  }
  try {
    const journal = readJournal(stateDir);
    if (journal === null) {
      // Killed while writing its journal: that transaction had not touched anything yet.
      removeJournal(stateDir);
      return null;
    }
    return await recoverJournal(stateDir, journal, options);
  } finally {
    lock?.release();
  }
}

async function recoverJournal(stateDir: string, journal: Journal, options: RecoverOptions): Promise<RecoveryReport> {
  const env = options.env ?? process.env;
  const prog = options.prog ?? 'leap-ledger';
  const waitMs = options.waitMs ?? (Number(env.LEAP_LEDGER_RECOVERY_WAIT_MS) || 30_000);
  const live = await waitForTransactionProcesses(journal.token, waitMs);
  if (live.length > 0) {
    throw new BusyError(`an interrupted ${journal.action} of ${quote(journal.title)} still has running processes (pid ${live.join(', ')}); retry when they end`);
  }
  killPoint('recovery: processes gone');
  const head = await readHead(journal.root, env);
  const landed = journal.newCommit !== null && (head === journal.newCommit || (await isAncestor(journal.root, env, journal.newCommit, head)));
  let outcome: RecoveryReport['outcome'];
  let detail: string;
  if (landed) {
    // Past our commit (someone removed our index.lock and committed), the index is theirs now: leave it.
    const movedOn = head !== journal.newCommit;
    const { restage } = finishTransaction(journal, { keepIndex: movedOn });
    if (restage) await runGit(['update-index', '--add', '--', journal.ledgerRel], { cwd: journal.root, env });
    killPoint('recovery: finished');
    if (!eventLogged(statePaths(stateDir).events, journal.action, journal.newCommit as string)) {
      logLedgerEventOrWarn(
        prog,
        stateDir,
        env,
        { action: journal.action, title: journal.title, commit: journal.newCommit as string, file: journal.ledger },
        { issue: journal.issue, step: journal.title },
      );
    }
    outcome = 'finished';
    detail = movedOn
      ? `its commit ${journal.newCommit} had landed and HEAD has moved on since (to ${head}), so only its files were removed; the ledger and the index are as they were found`
      : `its commit ${journal.newCommit} had landed, so it was finished: the ledger, the index and HEAD agree`;
  } else {
    const { ledgerRestored } = undoTransaction(journal);
    outcome = 'undone';
    detail = `its commit had not landed, so it was undone: ${ledgerRestored ? 'the ledger is back to its bytes before the tick' : 'the ledger had not been changed'}; the index and HEAD are as before`;
  }
  killPoint('recovery: settled');
  logLedgerEventOrWarn(prog, stateDir, env, { action: 'restore', title: journal.title, commit: head, file: journal.ledger }, { issue: journal.issue, step: journal.title });
  removeJournal(stateDir);
  const message = `recovered an interrupted ${journal.action} of ${quote(journal.title)} (pid ${journal.pid}): ${detail}`;
  writeFd(2, `${prog}: ${message}\n`);
  return { outcome, action: journal.action, title: journal.title, issue: journal.issue, ledger: journal.ledger, head, interruptedSha: journal.newSha, message };
}

async function readHead(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const result = await runGit(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: root, env, allowFailure: true });
  return result.stdout.trim();
}

async function isAncestor(root: string, env: NodeJS.ProcessEnv, ancestor: string, head: string): Promise<boolean> {
  if (head === '') return false;
  const result = await runGit(['merge-base', '--is-ancestor', ancestor, head], { cwd: root, env, allowFailure: true });
  return result.code === 0;
}

// Whether the event log's last 256 KiB already holds this transaction's event (it may have been written
// just before the crash).
function eventLogged(file: string, action: string, commit: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer
      .toString('utf8')
      .split('\n')
      .some((line) => line.includes(`"commit":"${commit}"`) && line.includes(`"action":"${action}"`));
  } finally {
    closeSync(fd);
  }
}
