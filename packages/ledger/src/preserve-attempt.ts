// `leap-ledger preserve-attempt`: keep a half-done step's uncommitted work under refs/leap/attempts/,
// then put the files it touched back as HEAD has them.
//
// Which files the step touched: everything uncommitted when it runs, because finished steps are
// committed (a tick commits the green work with its ledger line). That is: tracked files whose index or
// working-tree content differs from HEAD, files staged but not in HEAD, and untracked files that
// .gitignore does not ignore. Ignored files and the state folder (.tdd/) are never touched; neither are
// commits, other refs, or the user's index outside those paths. The attempt is a commit of the working
// tree (HEAD plus those paths, as on disk, untracked ones included) made on a temporary index
// (GIT_INDEX_FILE), whose parent is HEAD; the ref is made before anything is restored, so a crash in
// between loses nothing.
import { existsSync, readdirSync, realpathSync, rmSync, rmdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UsageError, unlinkIfPresent } from '@leap/core';
import { findStep, parseLedger } from '@leap/core/ledger';
import { changeTarget } from './change-target.js';
import { logLedgerEventOrWarn } from './events.js';
import { RefusedError } from './exit-codes.js';
import { decodeUtf8, readFileBytes } from './read-input.js';
import { readRepoInfo } from './git/repo-info.js';
import { runGit } from './git/run-git.js';
import type { LedgerLocation } from './ledger-source.js';
import { quote } from './quote-title.js';
import { takeLedgerLock } from './transaction/locks.js';
import { recoverLedger } from './transaction/recover.js';

/** The namespace of kept attempts. */
export const ATTEMPTS_REF_PREFIX = 'refs/leap/attempts/';

/** Options of preserveAttempt. */
export interface PreserveOptions extends LedgerLocation {
  step: string;
}

/** A kept attempt: its ref and commit, and the paths that were restored (null ref: nothing was uncommitted). */
export interface PreservedAttempt {
  ref: string | null;
  commit: string | null;
  paths: string[];
}

interface Change {
  path: string;
  inHead: boolean;
  staged: boolean;
}

/** Keep the step's uncommitted work in a ref, log it, then restore the files it touched to HEAD. */
export async function preserveAttempt(options: PreserveOptions): Promise<PreservedAttempt> {
  const target = changeTarget(options, 'preserve-attempt');
  const { env, stateDir } = target;
  const lock = takeLedgerLock(stateDir);
  try {
    await recoverLedger(stateDir, { env, lockHeld: true });
    const ledger = parseLedger(decodeUtf8(readFileBytes(target.path, 'a ledger'), target.path), target.path);
    const step = findStep(ledger, options.step);
    if (step.state === 'done') {
      throw new UsageError(`${target.path}:${step.line}: step ${quote(step.title)} is done; only a todo or refactor-pending step has a half-done attempt`);
    }
    const info = await readRepoInfo(target.cwd, env);
    const changes = await uncommittedChanges(info.root, stateDir, env);
    if (changes.length === 0) return { ref: null, commit: null, paths: [] };
    const stepNumber = ledger.steps.indexOf(step) + 1;
    const commit = await commitWorkingTree(info.root, info.indexFile, info.head, changes, env, attemptMessage(target.issue, stepNumber, step.title));
    const ref = await createAttemptRef(info.root, env, target.issue, stepNumber, commit);
    logLedgerEventOrWarn('leap-ledger', stateDir, env, { action: 'preserve-attempt', title: step.title, commit, ref }, { issue: target.issue, step: step.title });
    await restoreToHead(info.root, changes, env);
    return { ref, commit, paths: changes.map((c) => c.path) };
  } finally {
    lock.release();
  }
}

function attemptMessage(issue: number | null, step: number, title: string): string {
  return `leap attempt: ${issue === null ? 'ledger' : `issue ${issue}`}, step ${step}\n\n${title}\n`;
}

// `git status` once, untracked files listed one by one; the state folder is left out.
async function uncommittedChanges(root: string, stateDir: string, env: NodeJS.ProcessEnv): Promise<Change[]> {
  const status = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'], { cwd: root, env });
  const stateRel = relative(root, existsSync(stateDir) ? realpathSync(stateDir) : resolve(stateDir));
  const insideState = (path: string) => !stateRel.startsWith('..') && !isAbsolute(stateRel) && stateRel !== '' && (path === stateRel || path.startsWith(`${stateRel}/`));
  const changes: Change[] = [];
  for (const entry of status.stdout.split('\0')) {
    if (entry.length < 4) continue;
    const x = entry[0] as string;
    const y = entry[1] as string;
    const path = entry.slice(3);
    if (insideState(path)) continue;
    if (x === 'U' || y === 'U' || (x === 'A' && y === 'A') || (x === 'D' && y === 'D')) {
      throw new RefusedError(`cannot preserve the attempt: ${JSON.stringify(path)} is unmerged (resolve the conflict first)`);
    }
    changes.push({ path, inHead: x !== 'A' && x !== '?', staged: x !== ' ' && x !== '?' });
  }
  return changes;
}

// A commit of HEAD plus the changed paths as they are on disk, built on a temporary index.
async function commitWorkingTree(root: string, indexFile: string, head: string, changes: Change[], env: NodeJS.ProcessEnv, message: string): Promise<string> {
  const tmpIndex = `${indexFile}.leap-attempt-${randomBytes(6).toString('hex')}`;
  const onTmp = { cwd: root, env, extraEnv: { GIT_INDEX_FILE: tmpIndex } };
  try {
    await runGit(['read-tree', head], onTmp);
    await runGit(['update-index', '--add', '--remove', '-z', '--stdin'], { ...onTmp, input: changes.map((c) => `${c.path}\0`).join('') });
    const tree = (await runGit(['write-tree'], onTmp)).stdout.trim();
    return (await runGit(['commit-tree', tree, '-p', head, '-F', '-'], { ...onTmp, input: message })).stdout.trim();
  } finally {
    unlinkIfPresent(tmpIndex);
    unlinkIfPresent(`${tmpIndex}.lock`);
  }
}

async function createAttemptRef(root: string, env: NodeJS.ProcessEnv, issue: number | null, step: number, commit: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  const base = `${ATTEMPTS_REF_PREFIX}${issue === null ? 'ledger' : `issue-${issue}`}/step-${step}-${stamp}`;
  for (let n = 1; ; n++) {
    const ref = n === 1 ? base : `${base}-${n}`;
    // An empty old value: create only, never overwrite a kept attempt.
    const made = await runGit(['update-ref', '-m', 'leap-ledger preserve-attempt', ref, commit, ''], { cwd: root, env, allowFailure: true });
    if (made.code === 0) return ref;
    if (n >= 20) throw new RefusedError(`could not create an attempt ref under ${base}: ${made.stderr.trim()}`);
  }
}

// Tracked paths come back from HEAD (index and working tree); paths HEAD lacks leave the index and the disk.
async function restoreToHead(root: string, changes: Change[], env: NodeJS.ProcessEnv): Promise<void> {
  const literal = (list: Change[]) => list.map((c) => `:(literal)${c.path}\0`).join('');
  const tracked = changes.filter((c) => c.inHead);
  const added = changes.filter((c) => !c.inHead);
  if (tracked.length > 0) {
    await runGit(['checkout', 'HEAD', '--pathspec-from-file=-', '--pathspec-file-nul'], { cwd: root, env, input: literal(tracked) });
  }
  const staged = added.filter((c) => c.staged);
  if (staged.length > 0) {
    await runGit(['rm', '--cached', '-f', '-q', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], { cwd: root, env, input: literal(staged) });
  }
  for (const change of added) {
    const file = join(root, change.path);
    rmSync(file, { force: true });
    pruneEmptyFolders(root, dirname(file));
  }
}

// Remove folders left empty by the removal, up to (not including) the top folder.
function pruneEmptyFolders(root: string, folder: string): void {
  let dir = folder;
  while (dir.startsWith(root + sep) && existsSync(dir) && readdirSync(dir).length === 0) {
    rmdirSync(dir);
    dir = dirname(dir);
  }
}
