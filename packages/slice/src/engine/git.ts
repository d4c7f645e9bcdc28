// Git for the engine, through core's one runner (argv only; node:child_process loaded on first use, so no
// fast path pays for it). simple-git was here for its `.raw()` alone: no parser of it was used, and core's
// runner spawns the same one git per call without its 50 ms exit timer (which the engine had to end with
// GIT_TRACE=2) or its ~1 s import under load (ARCHITECTURE.md has the measurement).
import { runGit, retryWorktreeRace, serial } from '@leap/core';

/**
 * The exit code a git failure gives `leap slice run` (and status, clean): 1, the run could not go on
 * (CONTRACT section 7 pins no other code for it). Never 2, which says bad input and nothing touched.
 */
export const GIT_FAILURE_EXIT = 1;

/** How many gits run at once in one folder (as simple-git's queue allowed): a run's balls, not hundreds. */
const PER_FOLDER = 16;

const folders = new Map<string, { running: number; waiting: (() => void)[] }>();

// A place among the gits of `dir`, waiting while PER_FOLDER run there.
async function enter(dir: string): Promise<() => void> {
  let folder = folders.get(dir);
  if (folder === undefined) {
    folder = { running: 0, waiting: [] };
    folders.set(dir, folder);
  }
  const f = folder;
  if (f.running >= PER_FOLDER) await new Promise<void>((resolve) => f.waiting.push(resolve));
  else f.running++;
  return () => {
    const next = f.waiting.shift();
    if (next !== undefined) next();
    else if (--f.running === 0) folders.delete(dir);
  };
}

/**
 * Run `git ARGS` in `dir`; its stdout, or core's GitError (exit GIT_FAILURE_EXIT) naming the command and what git said. Every git
 * gets the caller's environment without its GIT_* variables (a GIT_DIR or GIT_INDEX_FILE of the caller's
 * would point git elsewhere), and GIT_CEILING_DIRECTORIES, the folder's parent: git never looks above the
 * folder for a repository, so in a ball's worktree whose .git a builder deleted, git fails instead of
 * working on the main repository around it.
 */
export async function git(dir: string, args: string[]): Promise<string> {
  const leave = await enter(dir);
  const t0 = Date.now();
  try {
    return (await runGit(args, { cwd: dir, isolate: true, ceiling: true, exitCode: GIT_FAILURE_EXIT })).stdout;
  } finally {
    leave();
    if (process.env.LEAP_TRACE_GIT === '1') process.stderr.write(`[git ${Date.now() - t0} ms @${Date.now() % 100000}] ${args.slice(0, 3).join(' ')}\n`);
  }
}

const worktreeQueues = new Map<string, ReturnType<typeof serial>>();

/**
 * `git worktree ARGS` in the repository `repo`: one at a time per repository (a `worktree add -B` reads
 * every other worktree's files, which a `worktree add` or `remove` running beside it is writing), and
 * again when another process's worktree command raced it.
 */
export function worktreeGit(repo: string, args: string[]): Promise<string> {
  let queue = worktreeQueues.get(repo);
  if (queue === undefined) {
    queue = serial();
    worktreeQueues.set(repo, queue);
  }
  return queue(() => retryWorktreeRace(() => git(repo, ['worktree', ...args])));
}

/** `git ARGS`, or null when git fails (a ref that does not exist). */
export async function tryGit(dir: string, args: string[]): Promise<string | null> {
  try {
    return await git(dir, args);
  } catch {
    return null;
  }
}

/** The full sha of a commit-ish, or null when it does not name a commit. */
export async function resolveCommit(dir: string, rev: string): Promise<string | null> {
  if (rev.startsWith('-')) return null;
  const out = await tryGit(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  return out === null || out.trim() === '' ? null : out.trim();
}

/** Whether `ancestor` is `descendant` or one of its ancestors. */
export async function isAncestor(dir: string, ancestor: string, descendant: string): Promise<boolean> {
  return (await tryGit(dir, ['merge-base', '--is-ancestor', ancestor, descendant])) !== null;
}

/** The tree of the merge of `ours` and `theirs` (`git merge-tree --write-tree`, no checkout), or null on a conflict. */
export async function mergeTree(dir: string, ours: string, theirs: string): Promise<string | null> {
  const out = await tryGit(dir, ['merge-tree', '--write-tree', '--no-messages', ours, theirs]);
  return out === null ? null : (out.split('\n')[0]?.trim() ?? '');
}

/** The merge commit of `tree` with parents `ours` and `theirs`. */
export async function commitTree(dir: string, tree: string, ours: string, theirs: string, message: string): Promise<string> {
  return (await git(dir, ['commit-tree', tree, '-p', ours, '-p', theirs, '-m', message])).trim();
}

/**
 * Merge commits without a checkout (`git merge-tree --write-tree`, then `commit-tree`): the merge of
 * `ours` and `theirs`, or null on a conflict. Balls' scopes are disjoint, so conflicts mean a broken slice.
 */
export async function mergeCommits(dir: string, ours: string, theirs: string, message: string): Promise<string | null> {
  const tree = await mergeTree(dir, ours, theirs);
  return tree === null ? null : commitTree(dir, tree, ours, theirs, message);
}
