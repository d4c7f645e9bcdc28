// Every `leap slice` command removes the worktrees a dead engine left, SIGKILL included (CONTRACT section 7).
import { existsSync } from 'node:fs';
import { LeapError, readLockHolder, runGitSync, slicePaths } from '@leap/core';
import { mainWorktreeRoot, mayHaveSliceWorktrees } from './definition/worktree-hint.js';
import { GIT_FAILURE_EXIT } from './engine/git.js';
import { pruneWorktreeFolders } from './engine/records.js';
import { liveEngine, sliceLockFile } from './slice-lock.js';

export { mayHaveSliceWorktrees };

/** Its stdout, or core's GitError with exit 1 (never 2). */
export const gitStdout = (cwd: string, args: string[]) => runGitSync(args, { cwd, exitCode: GIT_FAILURE_EXIT }).stdout;

/** Worktrees on `leap/SLICE/*`, and (branch null) ours on no branch yet: a `worktree add` cut off by a SIGKILL. */
export function sliceWorktrees(repoRoot: string, sliceId: string): { path: string; branch: string | null }[] {
  const prefix = `refs/heads/leap/${sliceId}/`;
  const ours = `${slicePaths(repoRoot, sliceId).worktrees}/`;
  const out: { path: string; branch: string | null }[] = [];
  // -z: a path may hold a newline. The first record, the main working tree, is never removed.
  for (const record of gitStdout(repoRoot, ['worktree', 'list', '--porcelain', '-z']).split('\0\0').slice(1)) {
    const fields = record.split('\0');
    const path = fields.find((f) => f.startsWith('worktree '))?.slice('worktree '.length);
    const branch = fields.find((f) => f.startsWith('branch '))?.slice('branch '.length);
    if (path === undefined) continue;
    if (branch?.startsWith(prefix) === true) out.push({ path, branch: branch.slice('refs/heads/'.length) });
    else if (branch === undefined && path.startsWith(ours)) out.push({ path, branch: null });
  }
  return out;
}

/** Remove the slice's left worktrees when no other live engine holds it; returns the paths removed. */
export function reapSlice(root: string, sliceId: string): string[] {
  // Run from a ball's worktree, the lock to respect is the main repository's.
  const repoRoot = mainWorktreeRoot(root);
  const holder = readLockHolder(sliceLockFile(repoRoot, sliceId));
  // The engine itself reaps under its own lock; another live engine's worktrees are in use.
  if (holder !== null && holder.pid !== process.pid && liveEngine(repoRoot, sliceId) !== null) return [];
  const removed: string[] = [];
  if (!mayHaveSliceWorktrees(repoRoot, sliceId)) return removed;
  for (const { path } of sliceWorktrees(repoRoot, sliceId)) {
    if (existsSync(path)) gitStdout(repoRoot, ['worktree', 'remove', '--force', '--force', path]);
    removed.push(path);
  }
  if (removed.length > 0) {
    gitStdout(repoRoot, ['worktree', 'prune']);
    pruneWorktreeFolders(slicePaths(repoRoot, sliceId));
  }
  return removed;
}

// `leap slice clean`: its worktrees, then branches `leap/SLICE/*`, go; `.leap/SLICE/` stays (CONTRACT section 7).
export function refuseWhileLive(repoRoot: string, sliceId: string): void {
  const pid = liveEngine(repoRoot, sliceId);
  const running = `slice ${JSON.stringify(sliceId)} is being run by live process ${pid}`;
  if (pid !== null && pid !== process.pid)
    throw new LeapError(`${running}: clean it once that run ends`, { exitCode: 2 });
}

export function cleanSlice(repoRoot: string, sliceId: string) {
  refuseWhileLive(repoRoot, sliceId);
  const worktrees = reapSlice(repoRoot, sliceId);
  const format = ['for-each-ref', '--format=%(HEAD)%(refname)', `refs/heads/leap/${sliceId}/`];
  const listed = gitStdout(repoRoot, format).split('\n');
  // Deleting the branch a person has checked out would leave their HEAD on nothing.
  const head = listed.find((r) => r.startsWith('*'))?.slice(1);
  const deleted = listed.map((r) => r.slice(1)).filter((ref) => ref !== '' && ref !== head);
  for (const ref of deleted) gitStdout(repoRoot, ['update-ref', '-d', ref]);
  const name = (ref: string) => ref.slice('refs/heads/'.length);
  return { worktrees, branches: deleted.map(name), kept: head === undefined ? [] : [name(head)] };
}
