// A ball's records (CONTRACT section 7): rounds, fall-overs and its end, each with its events and line, written once.
import { isoTimestamp } from '@leap/core';
import type { Slice } from '../definition/slice-schema.js';
import type { RunBuilder } from './agents.js';
import { renderCheckpoint } from './checkpoint.js';
import type { EngineLog } from './events.js';
import { writeRecord, writeText } from './records.js';
import type { Fallover, ResultRecord, RoundRecord, SlicePaths } from './records.js';
import type { RoundResult } from './round-types.js';
import type { BallProgress } from './scheduler.js';

export interface RecordsContext {
  slice: Slice;
  file: string;
  base: string;
  paths: SlicePaths;
  log: EngineLog;
  say: (line: string) => void;
}

export const ballBranch = (slice: string, ball: string): string => `leap/${slice}/${ball}`;

type RoundAt = { ball: string; n: number; start: string };

/** Round `at.n`, built on `at.start` by the last builder tried after the `fallovers`: recorded and told. */
export function recordRound(ctx: RecordsContext, at: RoundAt, out: RoundResult, fallovers: Fallover[]): RoundRecord {
  const { ball, n, start } = at;
  const { receipt, reason, candidate, changed, commit, builder, champion, jury, reproof, worker } = out;
  const proof = out.proof === null ? null : { code: out.proof.code, metric: out.proof.metric };
  const done = { slice: ctx.slice.id, ball, round: n, receipt, reason, candidate, proof, changed, ts: isoTimestamp() };
  const by = { start, commit, builder, ...(fallovers.length === 0 ? {} : { fallovers }) };
  const judged = { champion, jury, reproof, answer: out.answer ?? null };
  const extra = { ...(out.live === undefined ? {} : { live: out.live }), ...(worker === undefined ? {} : { worker }) };
  const record: RoundRecord = { ...done, ...by, ...judged, ...extra };
  writeRecord(ctx.paths.round(ball, n), record);
  const event = { slice: ctx.slice.id, ball, round: n, ...(receipt === null ? {} : { receipt }), candidate, reason };
  ctx.log.emit('round', { ...event, agent: builder.agent, family: builder.family });
  const built = fallovers.length === 0 ? '' : ` (built by ${builder.agent})`;
  const on = worker === undefined ? '' : ` (worker ${worker})`;
  ctx.say(`ball ${ball}: round ${n}${built}${on}: ${receipt === null ? 'no pass' : `receipt ${receipt}`}: ${reason}`);
  return record;
}

/** A builder ran dry on a round (`ran`): its event and line, naming the builder that builds it again, if any. */
export function recordFallover(ctx: RecordsContext, ball: string, out: RoundResult, ran: Fallover, next?: RunBuilder) {
  const { leaf } = out.builder;
  ctx.log.emit('fallover', { leaf, role: 'builder', ...ran, next: next?.name ?? null, slice: ctx.slice.id, ball });
  const again = `built again by ${next?.name} (${next?.family}), from the same commit, not counted as a round`;
  const then = next === undefined ? 'no builder of the list is left' : again;
  const worker = out.worker === undefined ? '' : ` (worker ${out.worker})`;
  const dry = `the builder ${ran.agent} (${ran.family}) ran dry (${ran.cause}: ${ran.message})`;
  ctx.say(`ball ${ball}: ${leaf}: ${dry}; ${then}${worker}`);
}

function settle(ctx: RecordsContext, state: BallProgress, result: ResultRecord, ballState: string, line: string): void {
  const { receipt, reason, candidate } = result;
  const at = { slice: ctx.slice.id, ball: state.ball.id };
  state.result = result;
  writeRecord(ctx.paths.result(at.ball), result);
  if (result.blockedBy === undefined) ctx.log.emit('receipt', { ...at, value: receipt, candidate, evidence: reason });
  ctx.log.emit('ball', { ...at, state: ballState, wave: state.wave, receipt, reason });
  ctx.say(`ball ${at.ball}: ${line}`);
}

type Finish = { receipt: -1 | 1; reason: string; candidate: string | null; commit: string | null };
/** A pass or a refusal, after `rounds`; `commit` holds a pass's work. */
export function finishBall(ctx: RecordsContext, state: BallProgress, end: Finish, rounds: readonly RoundRecord[]) {
  const { receipt, reason, candidate, commit } = end;
  const result = { receipt, reason, candidate, rounds: rounds.length, merged: null, ts: isoTimestamp(), commit };
  const passed = `1 pass after ${rounds.length} round(s), candidate ${candidate?.slice(0, 12)}`;
  settle(ctx, state, result, 'done', receipt === 1 ? passed : `-1 refused: ${reason}`);
}

/** Receipt 0 and the checkpoint the next run resumes from; `n`: rounds spent; `start`, `commit` default to the base. */
export function holdBall(
  ctx: RecordsContext,
  state: BallProgress,
  reason: string,
  rounds: readonly RoundRecord[],
  n: number,
  commit?: string,
  start?: string,
): void {
  const { ball } = state;
  const from = start ?? ctx.base;
  const branch = ballBranch(ctx.slice.id, ball.id);
  const at = { slice: ctx.slice.id, sliceFile: ctx.file, ball, base: ctx.base, start: from, branch };
  const checkpoint = ctx.paths.checkpoint(ball.id);
  writeText(checkpoint, renderCheckpoint({ ...at, commit: commit ?? from, rounds: [...rounds], reason }));
  const candidate = rounds.at(-1)?.candidate ?? null;
  const result = { receipt: 0, reason, candidate, rounds: n, merged: null, ts: isoTimestamp(), commit: null } as const;
  settle(ctx, state, result, 'checkpointed', `0 held: ${reason} (checkpoint ${checkpoint})`);
}

/** A refused ball's descendant is blocked, a held one's held (its checkpoint names what it waits on); never built. */
export function blockBall(ctx: RecordsContext, state: BallProgress, on: readonly string[], why: 'refused' | 'held') {
  const id = state.ball.id;
  const [word, value] = why === 'refused' ? ['blocked', 'refused (-1)'] : ['held', 'held (0)'];
  const reason = `${word}: dependency ${on.join(', ')} ${value}`;
  if (why === 'held') {
    const at = { slice: ctx.slice.id, sliceFile: ctx.file, ball: state.ball, base: ctx.base, start: ctx.base };
    const waiting = { branch: ballBranch(ctx.slice.id, id), commit: ctx.base, rounds: [], reason, waitingOn: [...on] };
    writeText(ctx.paths.checkpoint(id), renderCheckpoint({ ...at, ...waiting }));
  }
  const never = { candidate: null, rounds: 0, merged: null, ts: isoTimestamp(), commit: null, blockedBy: [...on] };
  settle(ctx, state, { receipt: 0, reason, ...never }, why === 'refused' ? 'blocked' : 'checkpointed', reason);
}
