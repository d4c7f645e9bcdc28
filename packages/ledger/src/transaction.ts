// A tick's journal and recovery (docs/decisions/ledger-commit.md): a commit that landed is finished, else undone.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { FileFormatError, UsageError, appendEvent, createEvent, ensureStateDir, isProcessAlive } from '@leap/core';
import { readEventContextAnyway, readFileIfExists, readLockHolder, readProcBytes, runGitSync } from '@leap/core';
import { statePaths, tryLock, unlinkIfPresent, writeFd, writeFileAtomic, type GitOptions } from '@leap/core';
import { killPoint as corePoint } from '@leap/core';
import { showTitle } from '@leap/core/ledger';
import { BusyError, EXIT, RefusedError } from './errors.js';
import { hasPendingTransaction, journalPath } from './input.js';

/** `git ARGS`, argv only (titles and messages pass byte for byte); an unexpected failure is exit 5. */
export const git = (args: string[], options: GitOptions) => runGitSync(args, { exitCode: EXIT.internal, ...options });

/** The repository around `dir`: its top folder, `git rev-parse --git-path NAME`, HEAD, and whether `probe` resolves. */
export function readRepo(dir: string, env: NodeJS.ProcessEnv, name: string, probe = 'HEAD') {
  const args = ['rev-parse', '--show-toplevel', '--git-path', name, 'HEAD', probe];
  const found = git(args, { cwd: dir, env, allowFailure: true });
  const [root = '', path = '', head = ''] = found.stdout.split('\n');
  if (root === '') throw new UsageError(`${dir} is not inside a git working tree: ${found.stderr.trim()}`);
  if (!/^[0-9a-f]{40,64}$/.test(head)) {
    throw new RefusedError(`the repository ${root} has no commit yet (HEAD is unborn): make a first commit, then tick`);
  }
  return { root, path: resolve(dir, path), head, probed: found.code === 0 };
}

/** Run `body` holding the ledger lock (one ledger change at a time), once an interrupted tick is settled. */
export async function locked<T>(stateDir: string, env: NodeJS.ProcessEnv, body: (r: RecoveryReport | null) => T) {
  const file = join(ensureStateDir(stateDir), 'ledger.lock');
  const lock = tryLock(file);
  const holder = `another ledger command (pid ${readLockHolder(file)?.pid ?? '?'})`;
  if (lock === null) throw new BusyError(`${file}: ${holder} is changing the ledger; retry when it ends`);
  killPoint('ledger lock taken');
  try {
    return await body(await recoverLedger(stateDir, { env, lockHeld: true }));
  } finally {
    lock.release();
  }
}

/** A `tick` event's fields, and the issue and step it acted on (null: the run's). */
export type LedgerEvent = Parameters<typeof createEvent<'tick'>>[1] & { issue: number | null; step: string | null };

/** Append a `tick` event; a failure only warns: the change it records has happened. */
export function logEvent(stateDir: string, env: NodeJS.ProcessEnv, { issue, step, ...fields }: LedgerEvent): void {
  const file = statePaths(stateDir).events;
  try {
    const run = readEventContextAnyway(stateDir, env);
    const context = { issue: issue ?? run.issue, step: step ?? run.step, skillCommit: run.skillCommit };
    appendEvent(file, createEvent('tick', fields, context));
  } catch (error) {
    writeFd(2, `leap-ledger: warning: could not append to ${file}: ${(error as Error).message}\n`);
  }
}

/** Tests only: with LEAP_LEDGER_KILL_AT=k, SIGKILL this process at its k-th kill point (or the one named k). */
export const killPoint = (name: string): void => corePoint('LEAP_LEDGER', name);

/** `newSha`: the new ledger's sha256; `added`: the tick staged the ledger; its processes have LEAP_LEDGER_TXN=token. */
export interface Journal {
  token: string;
  pid: number;
  action: 'tick' | 'clear-refactor-pending';
  issue: number | null;
  title: string;
  ledger: string;
  root: string;
  oldHead: string;
  newSha: string;
  added: boolean;
}

/** What recovery did (undone: the commit never landed; finished: HEAD holds it), HEAD after it, the line it printed. */
export interface RecoveryReport {
  outcome: 'undone' | 'finished';
  action: Journal['action'];
  title: string;
  issue: number | null;
  ledger: string;
  head: string;
  /** sha256 of the ledger bytes the interrupted tick wrote. */
  interruptedSha: string;
  message: string;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The files a tick writes beside its ledger: a hard link to the old bytes, and the new bytes before their rename. */
export const sidecar = (ledger: string, kind: 'backup' | 'new'): string =>
  join(dirname(ledger), `.${basename(ledger)}.leap-${kind}`);

/** Write the journal whole (a reader sees the old one or the new), or remove it and a half-written one. */
export function writeJournal(stateDir: string, journal: Journal | null): void {
  const [file, temp] = [journalPath(stateDir), `${journalPath(stateDir)}.tmp`];
  if (journal !== null) writeFileAtomic(file, `${JSON.stringify(journal, null, 2)}\n`, { tempPath: temp });
  else [file, temp].forEach(unlinkIfPresent);
}

/** The journal, or null; one that is not a tick's journal is a FileFormatError naming it. */
export function readJournal(stateDir: string): Journal | null {
  const [file, text] = [journalPath(stateDir), readFileIfExists(journalPath(stateDir))];
  if (text === null) return null;
  const expected = (what: string, cause?: unknown) =>
    new FileFormatError(file, undefined, `expected ${what}`, { cause });
  let journal: Record<string, unknown> | null;
  try {
    journal = JSON.parse(text);
  } catch (cause) {
    const how = `found unreadable JSON (${(cause as Error).message}); remove it once the ledger and HEAD agree`;
    throw expected(`the JSON journal of an interrupted tick, ${how}`, cause);
  }
  const missing = ['token', 'ledger', 'root', 'oldHead', 'newSha'].find((key) => typeof journal?.[key] !== 'string');
  if (missing === undefined) return journal as unknown as Journal;
  const found = JSON.stringify(journal?.[missing]);
  throw expected(`the journal of an interrupted tick with a string "${missing}", found ${found}`);
}

/** Undo a tick whose commit did not land: the very same ledger file back from its link, the tick's index entry gone. */
export function undoTick(j: Journal, env: NodeJS.ProcessEnv): boolean {
  const backup = sidecar(j.ledger, 'backup');
  unlinkIfPresent(sidecar(j.ledger, 'new'));
  // Linked but not replaced yet: the ledger is still the old file itself.
  const restored = existsSync(backup) && statSync(j.ledger, { throwIfNoEntry: false })?.ino !== statSync(backup).ino;
  if (restored) renameSync(backup, j.ledger);
  else unlinkIfPresent(backup);
  killPoint('undo: ledger restored');
  if (j.added) git(['update-index', '--force-remove', '--', relative(j.root, j.ledger)], { cwd: j.root, env });
  return restored;
}

/** Options of recoverLedger: `lockHeld` when the caller holds the ledger lock; the wait defaults to 30 s. */
export type RecoverOptions = { env?: NodeJS.ProcessEnv; lockHeld?: boolean; waitMs?: number };

/** Finish or undo an interrupted tick; null when there is none, or when a live command holds the ledger lock. */
export async function recoverLedger(stateDir: string, options: RecoverOptions = {}): Promise<RecoveryReport | null> {
  if (!hasPendingTransaction(stateDir)) return null;
  const lock = options.lockHeld === true ? null : tryLock(join(stateDir, 'ledger.lock'));
  if (options.lockHeld !== true && lock === null) return null;
  try {
    const journal = readJournal(stateDir);
    // Without a journal the tick was killed while writing it, before it touched anything.
    if (journal === null) return (writeJournal(stateDir, null), null);
    const env = options.env ?? process.env;
    return await settle(stateDir, journal, env, options.waitMs ?? (Number(env.LEAP_LEDGER_RECOVERY_WAIT_MS) || 30_000));
  } finally {
    lock?.release();
  }
}

async function settle(stateDir: string, j: Journal, env: NodeJS.ProcessEnv, waitMs: number): Promise<RecoveryReport> {
  const { action, title, issue, ledger, oldHead, root } = j;
  const what = `${action} of ${showTitle(title)}`;
  const live = await waitForTransaction(j.token, waitMs);
  const running = `an interrupted ${what} still has running processes (pid ${live.join(', ')}); retry when they end`;
  if (live.length > 0) throw new BusyError(running);
  killPoint('recovery: processes gone');
  const head = git(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: root, env, allowFailure: true }).stdout.trim();
  const landed = head === oldHead ? null : landedCommit(j, env);
  const about = { title, file: ledger, issue, step: title };
  let detail = `its commit ${landed} had landed, so it was finished: the ledger, the index and HEAD agree`;
  if (landed === null) {
    const back = undoTick(j, env) ? 'is back to its bytes before the tick' : 'had not been changed';
    detail = `its commit had not landed, so it was undone: the ledger ${back}; the index and HEAD are as before`;
  } else {
    for (const kind of ['backup', 'new'] as const) unlinkIfPresent(sidecar(ledger, kind));
    const log = (readFileIfExists(statePaths(stateDir).events) ?? '').split('\n');
    const ours = (line: string) => line.includes(`"commit":"${landed}"`) && line.includes(`"action":"${action}"`);
    if (!log.some(ours)) logEvent(stateDir, env, { action, commit: landed, ...about });
    killPoint('recovery: finished');
    const moved = `had landed and HEAD has moved on since (to ${head}), so only its files were removed`;
    if (head !== landed) detail = `its commit ${landed} ${moved}; the ledger and the index are as they were found`;
  }
  killPoint('recovery: settled');
  logEvent(stateDir, env, { action: 'restore', commit: head, ...about });
  writeJournal(stateDir, null);
  const message = `recovered an interrupted ${what} (pid ${j.pid}): ${detail}`;
  writeFd(2, `leap-ledger: ${message}\n`);
  const outcome = landed === null ? 'undone' : 'finished';
  return { outcome, action, title, issue, ledger, head, interruptedSha: j.newSha, message };
}

// The tick's commit if it landed: the first commit after the old HEAD, toward HEAD, changing the ledger to its bytes.
function landedCommit(j: Journal, env: NodeJS.ProcessEnv): string | null {
  const [on, rel] = [{ cwd: j.root, env, allowFailure: true }, relative(j.root, j.ledger)];
  const first = git(['rev-list', '--reverse', '--ancestry-path', `${j.oldHead}..HEAD`, '--', `:(literal)${rel}`], on);
  const commit = first.stdout.split('\n')[0] ?? '';
  const blob = commit === '' ? null : git(['cat-file', 'blob', `${commit}:${rel}`], on);
  return blob?.code === 0 && sha256(blob.bytes) === j.newSha ? commit : null;
}

/** Live processes a tick started (their environment holds LEAP_LEDGER_TXN=token), found in /proc: Linux only. */
export function transactionProcesses(token: string): number[] {
  const needle = Buffer.from(`LEAP_LEDGER_TXN=${token}\0`);
  const pids = existsSync('/proc') ? readdirSync('/proc').filter((entry) => /^[0-9]+$/.test(entry)) : [];
  // includes() reads a view of core's shared buffer before isProcessAlive refills it.
  const ours = (pid: number) => readProcBytes(`/proc/${pid}/environ`)?.includes(needle) && isProcessAlive({ pid });
  return pids.map(Number).filter((pid) => pid !== process.pid && ours(pid));
}

/** Wait until no process of the tick runs; returns the pids still running after `timeoutMs`. */
export async function waitForTransaction(token: string, timeoutMs: number): Promise<number[]> {
  const end = Date.now() + timeoutMs;
  let live = transactionProcesses(token);
  while (live.length > 0 && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    live = transactionProcesses(token);
  }
  return live;
}
