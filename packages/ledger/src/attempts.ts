// `preserve-attempt`: uncommitted work kept under refs/leap/attempts/, files reset to HEAD (never the state folder).
import { existsSync, readdirSync, realpathSync, rmSync, rmdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UsageError, resolveStateDir, unlinkIfPresent } from '@leap/core';
import { findStep, parseLedger, showTitle } from '@leap/core/ledger';
import { RefusedError, changeTarget, decodeUtf8, readFileBytes, type LedgerLocation, type RunAt } from './input.js';
import { git, locked, logEvent, readRepo } from './transaction.js';

const PREFIX = 'refs/leap/attempts/';

/** A kept attempt: its ref and commit, and the paths restored (ref null: nothing was uncommitted). */
export type PreservedAttempt = { ref: string | null; commit: string | null; paths: string[] };

/** A kept attempt, as `attempts list` shows it; `date` is when it was kept (ISO 8601). */
export type Attempt = { ref: string; commit: string; date: string; issue: number | null; title: string };

/** Where the attempts commands look: the repository around `cwd`, and issue N's attempts only. */
type AttemptsOptions = RunAt & { issue?: number | null };

type Change = { path: string; inHead: boolean; staged: boolean };

/** Whose attempt to keep; `leave`: paths (as git status gives them) neither kept nor restored, the user's say. */
type PreserveOptions = LedgerLocation & { step: string; leave?: readonly string[] };

/** Keep the step's uncommitted work in a ref (logged), then restore the files it touched to HEAD. */
export async function preserveAttempt(options: PreserveOptions): Promise<PreservedAttempt> {
  const t = changeTarget(options, 'preserve-attempt');
  return locked(t.stateDir, t.env, () => {
    const ledger = parseLedger(decodeUtf8(readFileBytes(t.path, 'a ledger'), t.path), t.path);
    const step = findStep(ledger, options.step);
    const done = `step ${showTitle(step.title)} is done; only a todo or refactor-pending step has a half-done attempt`;
    if (step.state === 'done') throw new UsageError(`${t.path}:${step.line}: ${done}`);
    const repo = { ...readRepo(t.cwd, t.env, 'index'), env: t.env };
    const changes = uncommitted(repo, t.stateDir).filter((c) => !options.leave?.includes(c.path));
    if (changes.length === 0) return { ref: null, commit: null, paths: [] };
    const [k, title, issue] = [ledger.steps.indexOf(step) + 1, step.title, t.issue];
    const [named, folder] = issue === null ? ['ledger', 'ledger'] : [`issue ${issue}`, `issue-${issue}`];
    const commit = commitWorkingTree(repo, changes, `leap attempt: ${named}, step ${k}\n\n${title}\n`);
    const ref = createRef(repo, `${PREFIX}${folder}/step-${k}`, commit);
    logEvent(t.stateDir, t.env, { action: 'preserve-attempt', title, commit, ref, issue, step: title });
    restoreToHead(repo, changes);
    return { ref, commit, paths: changes.map((c) => c.path) };
  });
}

type Repo = { root: string; path: string; head: string; env: NodeJS.ProcessEnv };

// `git status` once, untracked files one by one; the state folder is left out.
function uncommitted({ root, env }: Repo, stateDir: string): Change[] {
  const state = relative(root, existsSync(stateDir) ? realpathSync(stateDir) : resolve(stateDir));
  const outside = state === '' || state.startsWith('..') || isAbsolute(state);
  const args = ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all'];
  const changes: Change[] = [];
  for (const entry of git(args, { cwd: root, env }).stdout.split('\0')) {
    const [x, y, path] = [entry[0], entry[1], entry.slice(3)];
    if (entry.length < 4 || (!outside && (path === state || path.startsWith(`${state}/`)))) continue;
    const unmerged = `cannot preserve the attempt: ${JSON.stringify(path)} is unmerged (resolve the conflict first)`;
    if (x === 'U' || y === 'U' || (x === y && (x === 'A' || x === 'D'))) throw new RefusedError(unmerged);
    changes.push({ path, inHead: x !== 'A' && x !== '?', staged: x !== ' ' && x !== '?' });
  }
  return changes;
}

// A commit of HEAD plus the changed paths as they are on disk, parent HEAD, made on a temporary index.
function commitWorkingTree({ root, path, head, env }: Repo, changes: Change[], message: string): string {
  const index = `${path}.leap-attempt-${process.pid}`;
  const on = { cwd: root, env, extraEnv: { GIT_INDEX_FILE: index } };
  try {
    git(['read-tree', head], on);
    const paths = changes.map((c) => `${c.path}\0`).join('');
    git(['update-index', '--add', '--remove', '-z', '--stdin'], { ...on, input: paths });
    const tree = git(['write-tree'], on).stdout.trim();
    return git(['commit-tree', tree, '-p', head, '-F', '-'], { ...on, input: message }).stdout.trim();
  } finally {
    unlinkIfPresent(index);
    unlinkIfPresent(`${index}.lock`);
  }
}

// BASE-YYYYMMDDTHHMMSSmmmZ, created and never overwritten (the old value must be none); -2, -3... when taken.
function createRef({ root, env }: Repo, base: string, commit: string): string {
  const on = { cwd: root, env, allowFailure: true };
  const stamped = `${base}-${new Date().toISOString().replace(/[-:.]/g, '')}`;
  for (let n = 1; ; n++) {
    const ref = n === 1 ? stamped : `${stamped}-${n}`;
    const made = git(['update-ref', '-m', 'leap-ledger preserve-attempt', ref, commit, ''], on);
    if (made.code === 0) return ref;
    if (n >= 20) throw new RefusedError(`could not create an attempt ref under ${stamped}: ${made.stderr.trim()}`);
  }
}

// Tracked paths come back from HEAD (index, work tree); paths HEAD lacks leave the index, the disk, emptied folders.
function restoreToHead({ root, env }: Repo, changes: Change[]): void {
  const [tracked, added] = [changes.filter((c) => c.inHead), changes.filter((c) => !c.inHead)];
  const staged = added.filter((c) => c.staged);
  const fromFile = (list: Change[]) => ({ cwd: root, env, input: list.map((c) => `:(literal)${c.path}\0`).join('') });
  const spec = ['--pathspec-from-file=-', '--pathspec-file-nul'];
  if (tracked.length > 0) git(['checkout', 'HEAD', ...spec], fromFile(tracked));
  if (staged.length > 0) git(['rm', '--cached', '-f', '-q', '--ignore-unmatch', ...spec], fromFile(staged));
  for (const { path } of added) {
    rmSync(join(root, path), { force: true });
    let dir = dirname(join(root, path));
    while (dir.startsWith(root + sep) && existsSync(dir) && readdirSync(dir).length === 0) {
      rmdirSync(dir);
      dir = dirname(dir);
    }
  }
}

/** The kept attempts, oldest first; only issue N's with `issue`. */
export async function listAttempts(options: AttemptsOptions = {}): Promise<Attempt[]> {
  const on = { cwd: options.cwd ?? process.cwd(), env: options.env };
  const prefix = `${PREFIX}${options.issue == null ? '' : `issue-${options.issue}/`}`;
  const format = '--format=%(refname)%00%(objectname)%00%(creatordate:iso-strict)%00%(contents:body)%00';
  const records = git(['for-each-ref', '--sort=creatordate', format, prefix], on).stdout.split('\0\n');
  const fields = records.map((record) => record.split('\0')).filter((f) => f.length >= 4);
  return fields.map(([ref = '', commit = '', date = '', body = '']) => {
    const issue = /^refs\/leap\/attempts\/issue-([0-9]+)\//.exec(ref)?.[1];
    return { ref, commit, date, issue: issue === undefined ? null : Number(issue), title: body.replace(/\n$/, '') };
  });
}

/** `REF<TAB>DATE<TAB>TITLE` lines, or JSON lines. */
export const formatAttempts = (attempts: readonly Attempt[], json: boolean): string =>
  attempts.map((a) => (json ? `${JSON.stringify(a)}\n` : `${a.ref}\t${a.date}\t${a.title}\n`)).join('');

/** Apply a kept attempt's changes to the working tree (a 3-way merge when they no longer apply cleanly). */
export async function applyAttempt(name: string, options: AttemptsOptions = {}): Promise<Attempt> {
  const [cwd, env] = [options.cwd ?? process.cwd(), options.env ?? process.env];
  const ref = name.startsWith('refs/') ? name : `${PREFIX}${name}`;
  if (!ref.startsWith(PREFIX)) throw new UsageError(`Expected an attempt under ${PREFIX}, got ${JSON.stringify(name)}`);
  const stateDir = resolveStateDir(env, cwd);
  return locked(stateDir, env, async () => {
    const attempt = (await listAttempts({ cwd, env })).find((a) => a.ref === ref);
    const none = `no kept attempt ${JSON.stringify(ref)} (leap-ledger attempts list shows them)`;
    if (attempt === undefined) throw new UsageError(none);
    const { commit, title, issue } = attempt;
    const on = { cwd: readRepo(cwd, env, 'index').root, env };
    const diff = ['diff', '--binary', '--full-index', '--no-color', '--no-ext-diff', `${commit}^`, commit];
    const patch = git(diff, on).bytes;
    const apply = (how: string[]) =>
      git(['apply', ...how, '--whitespace=nowarn'], { ...on, input: patch, allowFailure: true });
    const plain = patch.length === 0 ? null : apply([]);
    const merged = plain === null || plain.code === 0 ? null : apply(['--3way']);
    const why = (merged?.stderr || plain?.stderr || '').trim();
    const stale = `the attempt ${ref} does not apply to the working tree as it is now: ${why}`;
    if (merged !== null && merged.code !== 0) throw new RefusedError(stale);
    logEvent(stateDir, env, { action: 'restore', title, commit, ref, issue, step: title });
    return attempt;
  });
}
