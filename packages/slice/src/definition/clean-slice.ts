// `leap slice clean`: its worktrees, then branches `leap/SLICE/*`, go; `.leap/SLICE/` stays (CONTRACT section 7).
import { LeapError } from '@leap/core';
import { reapSlice, gitStdout } from '../reap.js';
import { liveEngine } from '../slice-lock.js';

export type CleanResult = { worktrees: string[]; branches: string[]; kept: string[] };

export function refuseWhileLive(repoRoot: string, sliceId: string): void {
  const pid = liveEngine(repoRoot, sliceId);
  const running = `slice ${JSON.stringify(sliceId)} is being run by live process ${pid}`;
  if (pid !== null && pid !== process.pid)
    throw new LeapError(`${running}: clean it once that run ends`, { exitCode: 2 });
}

export function cleanSlice(repoRoot: string, sliceId: string): CleanResult {
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
