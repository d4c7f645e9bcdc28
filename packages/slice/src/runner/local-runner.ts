// CONTRACT sections 8 and 11: a worktree per ball on leap/SLICE/BALL, kept across rounds, removed at any end.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildRoundIn } from '../engine/build-round.js';
import { git, worktreeGit } from '../engine/git.js';
import { ignoredEntries, linkEntries } from '../engine/linked.js';
import { pruneWorktreeFolders, type RoundRequest, type RoundResult, type SliceRunner } from '../engine/records.js';
import type { SlicePaths } from '../engine/records.js';

export type LocalRunnerOptions = { repoRoot: string; paths: SlicePaths; stateDir: string; env: NodeJS.ProcessEnv };

export function createLocalRunner(options: LocalRunnerOptions): SliceRunner {
  const held = new Map<string, { dir: string; head: string; linked: string[] }>();
  let ignored: Promise<string[]> | null = null;
  // One worktree add/remove at a time (worktreeGit): moving a branch, git dies on a worktree entry being written.
  const removing = new Map<string, Promise<void>>();
  // A worktree git could not remove is deleted by hand, and git's record of it pruned at the close.
  let stale = false;
  const remove = async (ball: string) => {
    const checkout = held.get(ball);
    if (checkout === undefined) return;
    held.delete(ball);
    await worktreeGit(options.repoRoot, ['remove', '--force', '--force', checkout.dir]).catch(() => {
      stale = true;
      rmSync(checkout.dir, { recursive: true, force: true });
    });
  };
  // Removed while the engine goes on; a checkout of the same ball, and close(), wait for it.
  const release = (ball: string) => {
    const gone = remove(ball).finally(() => {
      if (removing.get(ball) === gone) removing.delete(ball);
    });
    removing.set(ball, gone);
  };
  const checkout = async (request: RoundRequest) => {
    await removing.get(request.ball);
    const have = held.get(request.ball);
    if (have !== undefined && have.head === request.commit) return have;
    if (have !== undefined) await remove(request.ball);
    const dir = options.paths.worktree(request.ball);
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    // -B: the branch made or moved and checked out in one step; the ignored entries are listed (once) meanwhile.
    const entries = (ignored ??= ignoredEntries(options.repoRoot, options.stateDir));
    await worktreeGit(options.repoRoot, ['add', '-q', '-B', request.branch, dir, request.commit]);
    const checkout = { dir, head: request.commit, linked: linkEntries(options.repoRoot, dir, await entries) };
    held.set(request.ball, checkout);
    return checkout;
  };
  return {
    name: 'local',
    async buildRound(request: RoundRequest): Promise<RoundResult> {
      const { dir, linked } = await checkout(request);
      const result = await buildRoundIn({ dir, stateDir: options.stateDir, env: options.env, linked }, request);
      const entry = held.get(request.ball);
      if (entry !== undefined) entry.head = result.commit ?? request.commit;
      return result;
    },
    releaseBall: async (_slice: string, ball: string) => release(ball),
    async close() {
      for (const ball of [...held.keys()]) release(ball);
      await Promise.all(removing.values());
      if (stale) await worktreeGit(options.repoRoot, ['prune']).catch(() => undefined);
      pruneWorktreeFolders(options.paths);
      // The housekeeping git would have done after each of the run's commits (they skip it), once.
      await git(options.repoRoot, ['maintenance', 'run', '--auto', '--quiet']).catch(() => undefined);
    },
  };
}
