// The tick transaction: ONE commit holds the step's staged work and its ledger line, or nothing changes.
//
// It commits with plumbing on a copy of the index, so it never rescans the working tree (a plain
// `git commit` stats every tracked file): rev-parse, write-tree, update-index, write-tree, commit-tree,
// update-ref. The hooks a commit runs (pre-commit, prepare-commit-msg, commit-msg, post-commit) run as
// `git commit` runs them. The order, and what a crash at each point leaves for recovery:
//  1. ledger lock; recover any earlier transaction; edit the ledger text in memory (bad title: stop here);
//  2. write the journal (old HEAD, every path the transaction will write), take index.lock, copy the index;
//  3. write-tree of the copy: unmerged paths or nothing staged stop here (spared with allowEmpty and no hook to run first);
//  4. hard-link the ledger to a backup, write the new ledger, stage it in the copy, run the hooks;
//  5. write-tree, commit-tree, record the new commit in the journal;
//  6. update-ref HEAD NEW OLD: the commit point;
//  7. rename the copy over the index, drop index.lock and the backup, log the event, drop the journal.
// Before 6 a crash is undone (ledger back from the backup, copy and lock removed); after it, finished.
import { copyFileSync, existsSync, linkSync, realpathSync, statSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { UsageError, isoTimestamp, unlinkIfPresent, writeFd, writeFileAtomic, type Lock } from '@leap/core';
import { LedgerInternalError, RefusedError } from '../exit-codes.js';
import { logLedgerEventOrWarn } from '../events.js';
import { decodeUtf8, readFileBytes } from '../read-input.js';
import { cleanupMessage, messageSubject } from '../git/commit-message.js';
import { refuseOnHook, runHook, runMessageHooks, type HookContext } from '../git/hooks.js';
import { readRepoInfo, type RepoInfo } from '../git/repo-info.js';
import { runGit, type GitOptions } from '../git/run-git.js';
import { removeJournal, writeJournal, type Journal } from './journal.js';
import { killPoint } from './kill-point.js';
import { takeIndexLock, takeLedgerLock } from './locks.js';
import { recoverLedger, type RecoveryReport } from './recover.js';
import { finishTransaction, undoTransaction } from './settle.js';

/** A change of one ledger line, committed with the staged work. */
export interface LedgerCommitRequest {
  action: 'tick' | 'clear-refactor-pending';
  /** The ledger file. */
  ledger: string;
  issue: number | null;
  title: string;
  /** The new ledger text from the old; throws for an unknown title or a step in the wrong state. */
  edit: (text: string, title: string, file: string) => string;
  message: string;
  /** Skip the pre-commit and commit-msg hooks (`git commit --no-verify`). */
  noVerify?: boolean;
  /** Commit even when nothing but the ledger line changes. */
  allowEmpty?: boolean;
  /** HEAD as the caller read it (see TickOptions.head). */
  head?: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** Name for messages on stderr. */
  prog?: string;
}

/** A landed ledger commit. */
export interface LedgerCommitResult {
  commit: string;
  title: string;
  ledger: string;
  /** What recovery did first, when an earlier transaction had been interrupted. */
  recovered: RecoveryReport | null;
  /**
   * HEAD once the commit landed (the commit and its message's first line, the message hooks' edits included), so a caller
   * need not ask git again; null when a post-commit hook ran after it (it may have moved HEAD).
   */
  head: { sha: string; subject: string } | null;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Commit the edited ledger line together with the staged work, atomically (see the top of this file). */
export async function commitLedgerChange(request: LedgerCommitRequest): Promise<LedgerCommitResult> {
  const prog = request.prog ?? 'leap-ledger';
  const lock = takeLedgerLock(request.stateDir);
  killPoint('ledger lock taken');
  try {
    const recovered = await recoverLedger(request.stateDir, { env: request.env, lockHeld: true, prog });
    return { ...(await commitLocked(request, prog)), recovered };
  } finally {
    releaseQuietly(lock);
  }
}

async function commitLocked(request: LedgerCommitRequest, prog: string): Promise<Omit<LedgerCommitResult, 'recovered'>> {
  const { env, stateDir } = request;
  const ledger = realLedgerPath(request.ledger);
  const oldBytes = readFileBytes(ledger, 'a ledger');
  const newText = request.edit(decodeUtf8(oldBytes, request.ledger), request.title, request.ledger);
  const newBytes = Buffer.from(newText, 'utf8');
  const message = cleanupMessage(request.message);
  if (message === '') throw new UsageError('Expected a commit message (-m MESSAGE) with some text, got an empty one');
  // HEAD's tree is asked only to refuse an empty tick.
  const info = await readRepoInfo(dirname(ledger), env, request.allowEmpty === true ? request.head : undefined);
  const ledgerRel = relative(info.root, ledger);
  if (ledgerRel.startsWith('..') || isAbsolute(ledgerRel)) {
    throw new UsageError(`${request.ledger}: the ledger is outside the repository ${info.root}, so it cannot be committed with the work`);
  }
  const token = randomBytes(8).toString('hex');
  const journal: Journal = {
    version: 1,
    token,
    pid: process.pid,
    action: request.action,
    issue: request.issue,
    title: request.title,
    ledger,
    ledgerRel,
    backup: join(dirname(ledger), `.${basename(ledger)}.leap-backup`),
    ledgerTemp: join(dirname(ledger), `.${basename(ledger)}.leap-new`),
    root: info.root,
    indexFile: info.indexFile,
    tmpIndex: `${info.indexFile}.leap-${token}`,
    oldHead: info.head,
    oldSha: sha256(oldBytes),
    newSha: sha256(newBytes),
    newCommit: null,
    startedAt: isoTimestamp(),
  };
  try {
    writeJournal(stateDir, journal);
  } catch (error) {
    removeJournal(stateDir);
    throw error;
  }
  killPoint('journal written');
  const txnEnv = { LEAP_LEDGER_TXN: token };
  const onCopy: GitOptions = { cwd: info.root, env, extraEnv: { ...txnEnv, GIT_INDEX_FILE: journal.tmpIndex } };
  const hooks: HookContext = { hooksDir: info.hooksDir, root: info.root, env, extraEnv: { ...txnEnv, GIT_INDEX_FILE: journal.tmpIndex } };
  let commit: string;
  let subject: string;
  try {
    takeIndexLock(info.indexFile, token);
    killPoint('index.lock taken');
    copyIndex(info, journal.tmpIndex);
    killPoint('index copied');
    // The staged work is checked before any hook runs. With --allow-empty and no hook to run before the commit,
    // only unmerged paths could refuse, and the write-tree of step 5 finds them as well (refused the same way,
    // undone the same way), so this one is spared.
    const early = request.allowEmpty !== true || commitHooksExist(hooks.hooksDir, request.noVerify === true);
    if (early) {
      const staged = await runGit(['write-tree'], { ...onCopy, allowFailure: true });
      if (staged.code !== 0) throw unmergedPaths(staged.stderr);
      if (request.allowEmpty !== true && staged.stdout.trim() === info.headTree) {
        throw new RefusedError(`nothing staged: stage the step's work (git add) before "${request.action}", or pass --allow-empty`);
      }
    }
    killPoint('staged work checked');
    makeBackup(ledger, journal.backup);
    killPoint('ledger backed up');
    writeFileAtomic(ledger, newBytes, { tempPath: journal.ledgerTemp, mode: statSync(ledger).mode & 0o7777 });
    killPoint('ledger written');
    await runGit(['update-index', '--add', '--', ledgerRel], onCopy);
    killPoint('ledger staged');
    if (request.noVerify !== true) await refuseOnHook(hooks, 'pre-commit', []);
    const finalMessage = await runMessageHooks(hooks, info.gitDir, message, request.noVerify === true);
    killPoint('hooks passed');
    const written = await runGit(['write-tree'], { ...onCopy, allowFailure: !early });
    if (written.code !== 0) throw unmergedPaths(written.stderr);
    const tree = written.stdout.trim();
    killPoint('tree written');
    commit = (await runGit(['commit-tree', tree, '-p', info.head, '-F', '-'], { ...onCopy, input: finalMessage })).stdout.trim();
    killPoint('commit object written');
    journal.newCommit = commit;
    writeJournal(stateDir, journal);
    killPoint('commit recorded in the journal');
    subject = messageSubject(finalMessage);
    const moved = await runGit(['update-ref', '-m', `commit: ${subject}`, 'HEAD', commit, info.head], { ...onCopy, allowFailure: true });
    if (moved.code !== 0) throw new RefusedError(`HEAD moved while the commit was being made, so it was not committed: ${moved.stderr.trim()}`);
  } catch (error) {
    undoOrKeepJournal(stateDir, journal, prog);
    throw error;
  }
  killPoint('HEAD moved (committed)');
  try {
    finishTransaction(journal);
  } catch (error) {
    writeFd(2, `${prog}: commit ${commit} landed, but putting its index in place failed (${(error as Error).message}); the next ledger command will finish it\n`);
    return { commit, title: request.title, ledger, head: null };
  }
  logLedgerEventOrWarn(prog, stateDir, env, { action: request.action, title: request.title, commit, file: ledger }, { issue: request.issue, step: request.title });
  killPoint('event logged');
  removeJournal(stateDir);
  killPoint('journal removed');
  // As after git commit (--no-verify included): post-commit sees the new index; its status changes nothing.
  const postCommit = await runHook({ ...hooks, extraEnv: { ...txnEnv, GIT_INDEX_FILE: info.indexFile } }, 'post-commit', []);
  return { commit, title: request.title, ledger, head: postCommit === null ? { sha: commit, subject } : null };
}

function unmergedPaths(stderr: string): RefusedError {
  return new RefusedError(`cannot commit: the index has unmerged paths (resolve the conflict first): ${stderr.trim()}`);
}

// Whether a hook that runs before the commit is made exists (executable or not: hasHook says which run).
function commitHooksExist(hooksDir: string, noVerify: boolean): boolean {
  const names = noVerify ? ['prepare-commit-msg'] : ['pre-commit', 'prepare-commit-msg', 'commit-msg'];
  return names.some((name) => existsSync(join(hooksDir, name)));
}

function realLedgerPath(ledger: string): string {
  try {
    return realpathSync(ledger);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`${ledger}: no such ledger file`, { cause: error });
    throw error;
  }
}

// The copy keeps every stat of the index, so nothing is rehashed; a repository without an index file gets one from HEAD.
function copyIndex(info: RepoInfo, tmpIndex: string): void {
  try {
    copyFileSync(info.indexFile, tmpIndex);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new RefusedError(`${info.indexFile}: no index file (run git status once to create it)`, { cause: error });
    }
    throw error;
  }
}

function makeBackup(ledger: string, backup: string): void {
  unlinkIfPresent(backup);
  linkSync(ledger, backup);
}

// Undo in this process; if even that fails, the journal stays so the next ledger command finishes the undo.
function undoOrKeepJournal(stateDir: string, journal: Journal, prog: string): void {
  try {
    undoTransaction(journal);
    removeJournal(stateDir);
  } catch (error) {
    writeFd(2, `${prog}: could not undo the failed ${journal.action} at once (${(error as Error).message}); the next ledger command will\n`);
  }
}

function releaseQuietly(lock: Lock): void {
  try {
    lock.release();
  } catch (error) {
    throw new LedgerInternalError(`could not release ${lock.file}: ${(error as Error).message}`, { cause: error });
  }
}
