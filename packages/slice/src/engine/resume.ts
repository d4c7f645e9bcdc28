// Passes kept while their bytes hold, else reopened; ended episodes archived; an interrupted one goes on.
import { existsSync, readFileSync } from 'node:fs';
import { candidateAt } from './candidate-at.js';
import { isAncestor } from './git.js';
import { spineBranch } from './integrate.js';
import { archiveEpisode, readRecord, readRounds, type ResultRecord, type SlicePaths } from './records.js';
import { ballBranch } from './ball-records.js';
import { progressOf, type BallProgress, type BallsProgress } from './scheduler.js';

export interface ResumeInput {
  repo: string;
  slice: string;
  paths: SlicePaths;
  spineTip: string;
  say: (line: string) => void;
}

export type Resumed = Pick<BallProgress, 'result' | 'reused' | 'checkpoint' | 'rounds'>;

/** Each ball's resumed progress, and whether a passed ball was reopened (the slice's earlier record is void). */
export async function resumeBalls(input: ResumeInput, order: readonly string[], balls: BallsProgress) {
  const found = new Map<string, Resumed>();
  let reopened = false;
  for (const id of order) {
    const state = progressOf(balls, id);
    const result = readRecord<ResultRecord>(input.paths.result(id));
    if (result?.receipt === 1 && result.commit !== null && result.candidate !== null) {
      // The bytes that count are where the candidate lives now: the spine once merged, else the ball's branch.
      const onSpine = result.merged !== null && (await isAncestor(input.repo, result.merged, input.spineTip));
      const where = onSpine ? input.spineTip : `refs/heads/${ballBranch(input.slice, id)}`;
      const now = await candidateAt(input.repo, where, state.ball).catch(() => null);
      if (now === result.candidate) {
        found.set(id, { result, reused: true, checkpoint: null, rounds: [] });
        input.say(`ball ${id}: passed on an earlier run (candidate ${result.candidate.slice(0, 12)}), not rebuilt`);
        continue;
      }
      const on = onSpine ? spineBranch(input.slice) : ballBranch(input.slice, id);
      const was = `sha256 ${result.candidate.slice(0, 12)} -> ${now?.slice(0, 12) ?? 'unreadable'} on ${on}`;
      input.say(`ball ${id}: the bytes of its candidate changed (${was}): reopened, and the slice regraded`);
      reopened = true;
    }
    if (result !== null) {
      const file = input.paths.checkpoint(id);
      const checkpoint = result.receipt === 0 && existsSync(file) ? readFileSync(file, 'utf8') : null;
      archiveEpisode(input.paths, id);
      found.set(id, { result: null, reused: false, checkpoint, rounds: [] });
      continue;
    }
    const rounds = readRounds(input.paths, id);
    if (rounds.length > 0) input.say(`ball ${id}: going on after round ${rounds.length} of an interrupted run`);
    found.set(id, { result: null, reused: false, checkpoint: null, rounds });
  }
  return { found, reopened };
}
