// The step's ledger line and its staged work in ONE `git commit --include` (docs/decisions/ledger-commit.md).
import { existsSync, linkSync, realpathSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, relative } from 'node:path';
import { UsageError, unlinkIfPresent, writeFd, writeFileAtomic } from '@leap/core';
import { clearRefactorPending, tickStep } from '@leap/core/ledger';
import { RefusedError } from './errors.js';
import { changeTarget, decodeUtf8, readFileBytes, type ChangeTarget, type LedgerLocation } from './input.js';
import { git, killPoint, locked, logEvent, readRepo, sha256, sidecar, undoTick, writeJournal } from './transaction.js';
import type { Journal, RecoveryReport } from './transaction.js';

export interface TickOptions extends LedgerLocation {
  /** The step's title, matched exactly. */
  step: string;
  /** The commit message; `green: TITLE` (tick) or `refactor: TITLE` (clear) by default. */
  message?: string;
  noVerify?: boolean;
  /** Commit even when nothing but the ledger line is staged. */
  allowEmpty?: boolean;
  /** HEAD's commit as the caller read it: another HEAD refuses the tick. */
  head?: string;
}

/** A landed tick: its commit, and HEAD as it left it (null when a post-commit hook ran after it: ask git). */
export interface LedgerCommitResult {
  commit: string;
  title: string;
  ledger: string;
  /** What recovery did first, when an earlier tick had been interrupted. */
  recovered: RecoveryReport | null;
  head: { sha: string; subject: string } | null;
}

/** Mark a todo step done and refactor-pending, in ONE commit with the step's staged green work. */
export async function tick(options: TickOptions): Promise<LedgerCommitResult> {
  const t = changeTarget(options, 'tick');
  return locked(t.stateDir, t.env, (recovered) => ({ ...commitStep(t, options, 'tick'), recovered }));
}

/** Remove a step's refactor-pending marker, in ONE commit with the refactor's staged work. */
export async function clearRefactor(options: TickOptions): Promise<LedgerCommitResult> {
  const t = changeTarget(options, 'clear-refactor-pending');
  return locked(t.stateDir, t.env, (recovered) => ({ ...commitStep(t, options, 'clear-refactor-pending'), recovered }));
}

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
  const {
    root,
    head: oldHead,
    path: hooks,
    probed,
  } = readRepo(dirname(ledger), t.env, 'hooks', `:./${basename(ledger)}`);
  const on = { cwd: root, env: t.env };
  const moved = `HEAD moved while the commit was being made, so it was not committed: HEAD is ${oldHead}`;
  if (o.head !== undefined && o.head !== oldHead) throw new RefusedError(`${moved}, not ${o.head}`);
  const staged =
    o.allowEmpty === true || git(['diff', '--cached', '--quiet'], { ...on, allowFailure: true }).code !== 0;
  const nothing = `nothing staged: stage the step's work (git add) before "${action}", or pass --allow-empty`;
  if (!staged) throw new RefusedError(nothing);
  killPoint('HEAD read');
  const [token, newSha, added] = [randomBytes(8).toString('hex'), sha256(bytes), !probed];
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
  const postCommit = existsSync(join(hooks, 'post-commit'));
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
