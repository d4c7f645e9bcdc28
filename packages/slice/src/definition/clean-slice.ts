// `leap slice clean`: the slice's worktrees, then its branches `leap/SLICE/*`, are removed; its
// records under `.leap/SLICE/` stay (CONTRACT section 7).
import { LeapError } from '@leap/core';
import { reapSlice, runGit } from '../reap.js';
import { liveEngine } from '../slice-lock.js';

/** What `cleanSlice` removed. */
export interface CleanResult {
  worktrees: string[];
  branches: string[];
}

/** Remove the slice's worktrees and branches; throws a LeapError (exit 2) while a live engine runs it. */
export function cleanSlice(repoRoot: string, sliceId: string): CleanResult {
  const pid = liveEngine(repoRoot, sliceId);
  if (pid !== null && pid !== process.pid) throw new LeapError(`slice ${JSON.stringify(sliceId)} is being run by live process ${pid}: clean it once that run ends`, { exitCode: 2 });
  const worktrees = reapSlice(repoRoot, sliceId);
  const refs = runGit(repoRoot, ['for-each-ref', '--format=%(refname)', `refs/heads/leap/${sliceId}/`]).split('\n').filter((r) => r !== '');
  for (const ref of refs) runGit(repoRoot, ['update-ref', '-d', ref]);
  return { worktrees, branches: refs.map((r) => r.slice('refs/heads/'.length)) };
}
