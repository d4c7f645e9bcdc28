// The scheduler's decisions from plain data; slice-engine.ts acts on them within --jobs, a stop and the budget.
import type { Ball } from '../definition/slice-schema.js';
import type { ResultRecord, RoundRecord } from './records.js';

export interface BallProgress {
  ball: Ball;
  wave: number;
  result: ResultRecord | null;
  /** It passed on an earlier run, its bytes re-checked: not rebuilt. */
  reused: boolean;
  /** The new episode's checkpoint text (a held ball's), for the builder's prompt. */
  checkpoint: string | null;
  /** Where the ball's episode goes on from: rounds already recorded (a killed run). */
  rounds: RoundRecord[];
}

export type BallsProgress = ReadonlyMap<string, BallProgress>;

export function freshProgress(balls: readonly Ball[], waves: readonly (readonly string[])[]) {
  const byId = new Map(balls.map((b) => [b.id, b]));
  const progress = new Map<string, BallProgress>();
  const fresh = { result: null, reused: false, checkpoint: null };
  for (const [w, wave] of waves.entries())
    for (const id of wave) progress.set(id, { ball: ballOf(byId, id), wave: w + 1, ...fresh, rounds: [] });
  return progress;
}

export function progressOf(balls: BallsProgress, id: string): BallProgress {
  const found = balls.get(id);
  if (found === undefined) throw new Error(`the engine has no ball ${JSON.stringify(id)}`);
  return found;
}

function ballOf(byId: ReadonlyMap<string, Ball>, id: string): Ball {
  const ball = byId.get(id);
  if (ball === undefined) throw new Error(`the plan names ball ${JSON.stringify(id)}, which the slice does not hold`);
  return ball;
}

export type Move =
  | { kind: 'ended' }
  | { kind: 'wait' }
  | { kind: 'start' }
  | { kind: 'block'; on: string[]; why: 'refused' | 'held' };

/** A refused dependency (or one blocked by a refusal) blocks it before a held one holds it. */
export function nextMove(balls: BallsProgress, id: string): Move {
  const state = progressOf(balls, id);
  if (state.result !== null) return { kind: 'ended' };
  const deps = state.ball.deps.map((d) => progressOf(balls, d));
  const refused = deps.filter((d) => refusedChain(balls, d.ball.id));
  if (refused.length > 0) return { kind: 'block', on: refused.map((d) => d.ball.id), why: 'refused' };
  const held = deps.filter((d) => d.result !== null && d.result.receipt === 0);
  if (held.length > 0) return { kind: 'block', on: held.map((d) => d.ball.id), why: 'held' };
  return deps.every((d) => d.result?.receipt === 1) ? { kind: 'start' } : { kind: 'wait' };
}

function refusedChain(balls: BallsProgress, id: string): boolean {
  const r = balls.get(id)?.result;
  return r?.receipt === -1 || r?.blockedBy?.some((b) => refusedChain(balls, b)) === true;
}

export function passedIds(balls: BallsProgress): string[] {
  return [...balls.values()].filter((s) => s.result?.receipt === 1).map((s) => s.ball.id);
}
