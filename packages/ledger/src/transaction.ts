// The tick in ONE `git commit --include`; its journal lets recovery finish or undo it (docs/decisions/ledger-commit.md)
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, readdirSync, realpathSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { FileFormatError, UsageError, appendEvent, createEvent, ensureStateDir, isProcessAlive } from '@leap/core';
import { readEventContextAnyway, readFileIfExists, readLockHolder, readProcBytes, runGitSync } from '@leap/core';
import { statePaths, tryLock, unlinkIfPresent, writeFd, writeFileAtomic, type GitOptions } from '@leap/core';
import { killPoint as corePoint } from '@leap/core';
import { clearRefactorPending, showTitle, tickStep } from '@leap/core/ledger';
import { BusyError, EXIT, RefusedError, changeTarget, decodeUtf8, hasPendingTransaction } from './input.js';
import { journalPath, readFileBytes, type ChangeTarget, type LedgerLocation } from './input.js';

/** `git ARGS`, argv only (titles and messages pass byte for byte); an unexpected failure is exit 5. */
export const git = (args: string[], options: GitOptions) => runGitSync(args, { exitCode: EXIT.internal, ...options });

/** The repository around `dir`: its top folder, `git rev-parse --git-path NAME`, HEAD, and whether `probe` resolves. */
export function readRepo(dir: string, env: NodeJS.ProcessEnv, name: string, probe = 'HEAD') {
  const args = ['rev-parse', '--show-toplevel', '--git-path', name, 'HEAD', probe];
  const found = git(args, { cwd: dir, env, allowFailure: true });
  const [root = '', path = '', head = ''] = found.stdout.split('\n');
  if (root === '') throw new UsageError(`${dir} is not inside a git working tree: ${found.stderr.trim()}`);
  const unborn = `the repository ${root} has no commit yet (HEAD is unborn): make a first commit, then tick`;
  if (!/^[0-9a-f]{40,64}$/.test(head)) throw new RefusedError(unborn);
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
const killPoint = (name: string): void => corePoint('LEAP_LEDGER', name);

type Tick = { action: 'tick' | 'clear-refactor-pending'; issue: number | null; title: string; ledger: string };

/** `newSha`: the new ledger's sha256; `added`: the tick staged the ledger; its processes have LEAP_LEDGER_TXN=token. */
export type Journal = Tick & Record<'token' | 'root' | 'oldHead' | 'newSha', string> & { pid: number; added: boolean };

/** Recovery: undone (the commit never landed) or finished, HEAD after it, its line, the sha256 of the tick's ledger. */
export type RecoveryReport = Tick &
  Record<'head' | 'message' | 'interruptedSha', string> & { outcome: 'undone' | 'finished' };

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The files a tick writes beside its ledger: a hard link to the old bytes, and the new bytes before their rename. */
const sidecar = (ledger: string, kind: 'backup' | 'new'): string =>
  join(dirname(ledger), `.${basename(ledger)}.leap-${kind}`);

/** `message` defaults to `green: TITLE` (tick) or `refactor: TITLE`; `head`: HEAD as read (another is refused). */
export type TickOptions = LedgerLocation & { step: string; message?: string } & CommitFlags;
type CommitFlags = { noVerify?: boolean; allowEmpty?: boolean; head?: string };

/** A landed tick, what recovery did first, and HEAD as it left it (null when a post-commit hook ran: ask git). */
export type LedgerCommitResult = ReturnType<typeof commitStep> & { recovered: RecoveryReport | null };

const committing =
  (action: Journal['action']) =>
  async (options: TickOptions): Promise<LedgerCommitResult> => {
    const t = changeTarget(options, action);
    return locked(t.stateDir, t.env, (recovered) => ({ ...commitStep(t, options, action), recovered }));
  };

/** Mark a todo step done and refactor-pending, in ONE commit with the step's staged green work. */
export const tick = committing('tick');

/** Remove a step's refactor-pending marker, in ONE commit with the refactor's staged work. */
export const clearRefactor = committing('clear-refactor-pending');

function commitStep(t: ChangeTarget, o: TickOptions, action: Journal['action']) {
  const [issue, title] = [t.issue, o.step];
  let ledger: string;
  try {
    ledger = realpathSync(t.path);
  } catch (cause) {
    throw new UsageError(`${t.path}: no such ledger file`, { cause });
  }
  const edit = action === 'tick' ? tickStep : clearRefactorPending;
  const bytes = Buffer.from(edit(decodeUtf8(readFileBytes(ledger, 'a ledger'), t.path), title, t.path));
  const message = o.message ?? `${action === 'tick' ? 'green' : 'refactor'}: ${title}`;
  if (/^[ \t\n\r\f\v]*$/.test(message))
    throw new UsageError('Expected a commit message (-m MESSAGE) with some text, got an empty one');
  const repo = readRepo(dirname(ledger), t.env, 'hooks', `:./${basename(ledger)}`);
  const [root, oldHead] = [repo.root, repo.head];
  const on = { cwd: root, env: t.env };
  const moved = `HEAD moved while the commit was being made, so it was not committed: HEAD is ${oldHead}`;
  if (o.head !== undefined && o.head !== oldHead) throw new RefusedError(`${moved}, not ${o.head}`);
  const staged =
    o.allowEmpty === true || git(['diff', '--cached', '--quiet'], { ...on, allowFailure: true }).code !== 0;
  const nothing = `nothing staged: stage the step's work (git add) before "${action}", or pass --allow-empty`;
  if (!staged) throw new RefusedError(nothing);
  killPoint('HEAD read');
  const [token, newSha, added] = [randomBytes(8).toString('hex'), sha256(bytes), !repo.probed];
  const j: Journal = { token, pid: process.pid, action, issue, title, ledger, root, oldHead, newSha, added };
  writeJournal(t.stateDir, j);
  killPoint('journal written');
  try {
    commitInGit(j, bytes, message, o.noVerify === true, t.env);
  } catch (error) {
    undoTick(j, t.env);
    writeJournal(t.stateDir, null);
    throw error;
  }
  killPoint('committed');
  const [commit = '', body = ''] = git(['log', '-1', '--format=%H%x00%B'], on).stdout.split('\0');
  killPoint('commit read');
  unlinkIfPresent(sidecar(ledger, 'backup'));
  killPoint('backup removed');
  logEvent(t.stateDir, t.env, { action, title, commit, file: ledger, issue, step: title });
  killPoint('event logged');
  writeJournal(t.stateDir, null);
  killPoint('journal removed');
  // A post-commit hook ran after the commit and may have moved HEAD: the caller asks git.
  const postCommit = existsSync(join(repo.path, 'post-commit'));
  return { commit, title, ledger, head: postCommit ? null : { sha: commit, subject: body.split('\n')[0] as string } };
}

// The new ledger in place of the old (kept as a hard link), then `git commit --include` it: the commit point.
function commitInGit(j: Journal, bytes: Buffer, message: string, noVerify: boolean, env: NodeJS.ProcessEnv): void {
  const on = { cwd: j.root, env, extraEnv: { LEAP_LEDGER_TXN: j.token } };
  const [backup, spec] = [sidecar(j.ledger, 'backup'), `:(literal)${relative(j.root, j.ledger)}`];
  unlinkIfPresent(backup);
  linkSync(j.ledger, backup);
  killPoint('ledger backed up');
  writeFileAtomic(j.ledger, bytes, { tempPath: sidecar(j.ledger, 'new'), mode: statSync(j.ledger).mode & 0o7777 });
  killPoint('ledger written');
  // `--include` skips a path the index does not hold: an untracked (even ignored) ledger is added first.
  if (j.added) git(['add', '--force', '--intent-to-add', '--', spec], on);
  killPoint('ledger in the index');
  // The message is one argv element: git may refuse before it would read stdin.
  const args = ['-c', 'maintenance.auto=false', 'commit', '--quiet', '--include', `--message=${message}`];
  const made = git([...args, ...(noVerify ? ['--no-verify'] : []), '--', spec], { ...on, allowFailure: true });
  const refused = `the commit was refused (git commit exited ${made.code}); nothing was committed`;
  if (made.code !== 0) throw new RefusedError(`${refused}:\n${made.stderr.trim()}`);
  writeFd(2, made.stderr);
}

/** Write the journal whole (a reader sees the old one or the new), or remove it and a half-written one. */
function writeJournal(stateDir: string, journal: Journal | null): void {
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
function undoTick(j: Journal, env: NodeJS.ProcessEnv): boolean {
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

type RecoverOptions = { env?: NodeJS.ProcessEnv; lockHeld?: boolean };

/** Finish or undo an interrupted tick; null when there is none, or when a live command holds the ledger lock. */
export async function recoverLedger(stateDir: string, options: RecoverOptions = {}): Promise<RecoveryReport | null> {
  if (!hasPendingTransaction(stateDir)) return null;
  const lock = options.lockHeld === true ? null : tryLock(join(stateDir, 'ledger.lock'));
  if (options.lockHeld !== true && lock === null) return null;
  try {
    const journal = readJournal(stateDir);
    // Without a journal the tick was killed while writing it, before it touched anything.
    if (journal === null) return (writeJournal(stateDir, null), null);
    return await settle(stateDir, journal, options.env ?? process.env);
  } finally {
    lock?.release();
  }
}

async function settle(stateDir: string, j: Journal, env: NodeJS.ProcessEnv): Promise<RecoveryReport> {
  const { action, title, issue, ledger, oldHead, root } = j;
  const what = `${action} of ${showTitle(title)}`;
  const live = await waitForTransaction(j.token, Number(env.LEAP_LEDGER_RECOVERY_WAIT_MS) || 30_000);
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
