// Git through core's one runner, not simple-git (docs/decisions/no-simple-git.md).
import { runGit, retryWorktreeRace, serial } from '@leap/core';

/** A git failure: the run could not go on. Never 2, which says bad input and nothing touched (CONTRACT section 7). */
export const GIT_FAILURE_EXIT = 1;

/** How many gits run at once in one folder (as simple-git's queue allowed): a run's balls, not hundreds. */
const PER_FOLDER = 16;

const folders = new Map<string, { running: number; waiting: (() => void)[] }>();

async function enter(dir: string): Promise<() => void> {
  const f = folders.get(dir) ?? { running: 0, waiting: [] };
  folders.set(dir, f);
  if (f.running >= PER_FOLDER) await new Promise<void>((resolve) => f.waiting.push(resolve));
  else f.running++;
  return () => {
    const next = f.waiting.shift();
    if (next !== undefined) next();
    else if (--f.running === 0) folders.delete(dir);
  };
}

/** No caller GIT_*, a ceiling at `dir`: in a worktree whose .git a builder deleted, git fails, not the repo around. */
export async function git(dir: string, args: string[]): Promise<string> {
  const leave = await enter(dir);
  try {
    return (await runGit(args, { cwd: dir, isolate: true, ceiling: true, exitCode: GIT_FAILURE_EXIT })).stdout;
  } finally {
    leave();
  }
}

const worktreeQueues = new Map<string, ReturnType<typeof serial>>();

/** One at a time per repository, retried on another process's race (docs/decisions/slice-git-calls.md). */
export function worktreeGit(repo: string, args: string[]): Promise<string> {
  const queue = worktreeQueues.get(repo) ?? serial();
  worktreeQueues.set(repo, queue);
  return queue(() => retryWorktreeRace(() => git(repo, ['worktree', ...args])));
}

export const tryGit = (dir: string, args: string[]): Promise<string | null> => git(dir, args).catch(() => null);

export async function resolveCommit(dir: string, rev: string): Promise<string | null> {
  if (rev.startsWith('-')) return null;
  const out = await tryGit(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  return out === null || out.trim() === '' ? null : out.trim();
}

export async function isAncestor(dir: string, ancestor: string, descendant: string): Promise<boolean> {
  return (await tryGit(dir, ['merge-base', '--is-ancestor', ancestor, descendant])) !== null;
}

export async function mergeTree(dir: string, ours: string, theirs: string): Promise<string | null> {
  const out = await tryGit(dir, ['merge-tree', '--write-tree', '--no-messages', ours, theirs]);
  return out === null ? null : (out.split('\n')[0]?.trim() ?? '');
}

export async function commitTree(dir: string, tree: string, ours: string, theirs: string, message: string) {
  return (await git(dir, ['commit-tree', tree, '-p', ours, '-p', theirs, '-m', message])).trim();
}

export async function mergeCommits(dir: string, ours: string, theirs: string, message: string): Promise<string | null> {
  const tree = await mergeTree(dir, ours, theirs);
  return tree === null ? null : commitTree(dir, tree, ours, theirs, message);
}
