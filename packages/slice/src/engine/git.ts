// Git for the engine, through simple-git (loaded on first use, so no fast path pays for it).
import { dirname } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { LeapError, retryWorktreeRace, serial } from '@leap/core';

const clients = new Map<string, Promise<SimpleGit>>();

// git's trace lines on stderr (GIT_TRACE=2), which the engine asks for and never shows.
const TRACE_LINE = /^\d\d:\d\d:\d\d\.\d+ [^ ]+ +trace: /;
const withoutTrace = (text: string) => text.split('\n').filter((l) => !TRACE_LINE.test(l)).join('\n').trim();

// Variables simple-git refuses to pass on (an editor, a pager, an askpass program: none is used here).
const REFUSED = new Set(['editor', 'visual', 'pager', 'prefix', 'ssh_askpass']);

// The environment of every git the engine runs: the caller's, without GIT_* variables (a GIT_DIR or
// GIT_INDEX_FILE of the caller's would point git elsewhere) and those simple-git refuses, with GIT_TRACE=2. simple-git waits 50 ms
// more after a command that printed nothing (update-ref, merge-base --is-ancestor, worktree remove:
// most of the engine's); the trace line each git writes on stderr ends that wait.
// GIT_CEILING_DIRECTORIES, the folder's parent: git never looks above the folder for a repository, so in a ball's
// worktree whose .git a builder deleted, git fails instead of working on the main repository around it.
function gitEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^git_/i.test(key) && !REFUSED.has(key.toLowerCase().trim())) env[key] = value;
  return { ...env, GIT_TRACE: '2', GIT_CEILING_DIRECTORIES: dirname(dir) };
}

// One client per folder; simple-git queues each client's commands, so allow as many at once as a run has balls.
// A command is done when its output closes: simple-git's default also arms a 50 ms timer at every exit,
// which kept the engine's process alive 50 ms past its last git call.
function client(dir: string): Promise<SimpleGit> {
  let made = clients.get(dir);
  if (made === undefined) {
    made = import('simple-git').then(({ simpleGit }) => simpleGit({
      baseDir: dir, maxConcurrentProcesses: 16, trimmed: false, allowEnvironment: ['GIT_TRACE', 'GIT_CEILING_DIRECTORIES'], completion: { onClose: true, onExit: false },
      // Any non-zero exit is a failure, with or without words on stderr (`merge-base --is-ancestor` says none).
      errors: (error, result) => error ?? (result.exitCode === 0 ? undefined : new Error(withoutTrace(Buffer.concat(result.stdErr).toString('utf8')) || `exit code ${result.exitCode}`)),
    }).env(gitEnv(dir)));
    clients.set(dir, made);
  }
  return made;
}

/** Run `git ARGS` in `dir`; its stdout, or a LeapError naming the command and what git said. */
export async function git(dir: string, args: string[]): Promise<string> {
  const g = await client(dir);
  const t0 = Date.now();
  try {
    return await g.raw(args);
  } catch (cause) {
    throw new LeapError(`git ${args.join(' ')} (in ${dir}) failed: ${String((cause as Error).message).trim()}`, { cause, exitCode: 2 });
  } finally {
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

/** Forget the client of a folder that is gone (a removed worktree). */
export function forgetGit(dir: string): void {
  clients.delete(dir);
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
  return out === null ? null : out.split('\n')[0]?.trim() ?? '';
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
