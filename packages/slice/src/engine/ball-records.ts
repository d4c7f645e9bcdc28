// A ball's end (CONTRACT section 7): result.json, a hold's checkpoint, its events and line, each written once.
import { isoTimestamp } from '@leap/core';
import type { Slice } from '../definition/slice-schema.js';
import { renderCheckpoint } from './checkpoint.js';
import type { EngineLog } from './events.js';
import { writeRecord, writeText, type ResultRecord, type RoundRecord, type SlicePaths } from './records.js';
import type { BallProgress } from './scheduler.js';

export interface RecordsContext {
  slice: Slice;
  /** The slice file, named in a checkpoint. */
  file: string;
  base: string;
  paths: SlicePaths;
  log: EngineLog;
  say: (line: string) => void;
}

export const ballBranch = (slice: string, ball: string): string => `leap/${slice}/${ball}`;

export function finishBall(ctx: RecordsContext, state: BallProgress, receipt: -1 | 1, reason: string, rounds: readonly RoundRecord[], commit: string | null, candidate: string | null): ResultRecord {
  const result: ResultRecord = { receipt, reason, candidate, rounds: rounds.length, merged: null, ts: isoTimestamp(), commit };
  writeRecord(ctx.paths.result(state.ball.id), result);
  ctx.log.emit('receipt', { slice: ctx.slice.id, ball: state.ball.id, value: receipt, candidate, evidence: reason });
  ctx.log.emit('ball', { slice: ctx.slice.id, ball: state.ball.id, state: 'done', wave: state.wave, receipt, reason });
  ctx.say(`ball ${state.ball.id}: ${receipt === 1 ? `1 pass after ${rounds.length} round(s), candidate ${candidate?.slice(0, 12)}` : `-1 refused: ${reason}`}`);
  return result;
}

/** Receipt 0 and the checkpoint the next run resumes from; `n`: rounds spent; `start`, `commit` default to the base. */
export function holdBall(ctx: RecordsContext, state: BallProgress, reason: string, rounds: readonly RoundRecord[], n: number, commit?: string, start?: string): ResultRecord {
  const { ball } = state;
  const from = start ?? ctx.base;
  writeText(
    ctx.paths.checkpoint(ball.id),
    renderCheckpoint({ slice: ctx.slice.id, sliceFile: ctx.file, ball, base: ctx.base, start: from, branch: ballBranch(ctx.slice.id, ball.id), commit: commit ?? from, rounds: [...rounds], reason }),
  );
  const result: ResultRecord = { receipt: 0, reason, candidate: rounds.at(-1)?.candidate ?? null, rounds: n, merged: null, ts: isoTimestamp(), commit: null };
  writeRecord(ctx.paths.result(ball.id), result);
  ctx.log.emit('receipt', { slice: ctx.slice.id, ball: ball.id, value: 0, candidate: result.candidate, evidence: reason });
  ctx.log.emit('ball', { slice: ctx.slice.id, ball: ball.id, state: 'checkpointed', wave: state.wave, receipt: 0, reason });
  ctx.say(`ball ${ball.id}: 0 held: ${reason} (checkpoint ${ctx.paths.checkpoint(ball.id)})`);
  return result;
}

/** A refused ball's descendant is blocked, a held one's held (its checkpoint names what it waits on); never built. */
export function blockBall(ctx: RecordsContext, state: BallProgress, on: readonly string[], why: 'refused' | 'held'): ResultRecord {
  const id = state.ball.id;
  const reason = `${why === 'refused' ? 'blocked' : 'held'}: dependency ${on.join(', ')} ${why === 'refused' ? 'refused (-1)' : 'held (0)'}`;
  const result: ResultRecord = { receipt: 0, reason, candidate: null, rounds: 0, merged: null, ts: isoTimestamp(), commit: null, blockedBy: [...on] };
  if (why === 'held') {
    writeText(
      ctx.paths.checkpoint(id),
      renderCheckpoint({
        slice: ctx.slice.id,
        sliceFile: ctx.file,
        ball: state.ball,
        base: ctx.base,
        start: ctx.base,
        branch: ballBranch(ctx.slice.id, id),
        commit: ctx.base,
        rounds: [],
        reason,
        waitingOn: [...on],
      }),
    );
  }
  writeRecord(ctx.paths.result(id), result);
  ctx.log.emit('ball', { slice: ctx.slice.id, ball: id, state: why === 'refused' ? 'blocked' : 'checkpointed', wave: state.wave, receipt: 0, reason });
  ctx.say(`ball ${id}: ${reason}`);
  return result;
}
