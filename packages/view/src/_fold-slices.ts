// A slice's balls folded from the engine's events (CONTRACT section 7).
import type { EventOf } from '@leap/core';
import { getOr, isString } from './_fold-leaves.js';
import type { SliceRecord } from './read-state.js';

export const receiptOf = (v: unknown): number | null => (v === -1 || v === 0 || v === 1 ? v : null);

type Round = SliceRecord['balls'][number]['rounds'][number] & { at: number };
type Review = Pick<EventOf<'review'>, 'reviewer' | 'family' | 'verdict' | 'value' | 'candidate'> & { at: number };

export interface BallRun {
  slice: string;
  id: string;
  wave: number | null;
  state: string | null;
  deps: string[];
  rounds: Round[];
  receipt: { value: number; candidate: string | null; evidence: string; at: number } | null;
  reviews: Review[];
  merged: { commit: string; candidate: string; at: number } | null;
  firstAt: number;
}

export type SliceRun = { id: string; balls: BallRun[]; aggregate: Review[]; firstAt: number };

export function newSlice(slices: SliceRun[], id: string, at: number): SliceRun {
  const slice: SliceRun = { id, balls: [], aggregate: [], firstAt: at };
  slices.push(slice);
  return slice;
}

export function newBall(slice: SliceRun, id: string, at: number): BallRun {
  const empty = { wave: null, state: null, deps: [], rounds: [], receipt: null, reviews: [], merged: null };
  const ball: BallRun = { slice: slice.id, id, ...empty, firstAt: at };
  slice.balls.push(ball);
  return ball;
}

export class SliceFold {
  private readonly byId = new Map<string, SliceRun>();
  private readonly owners = new Map<string, Set<string>>();
  private readonly pending: Review[] = [];

  constructor(private readonly slices: SliceRun[]) {}

  add(e: EventOf<'ball' | 'round' | 'receipt' | 'review' | 'merge'>, at: number): void {
    if (e.event === 'review') return void this.review(e, at);
    const ball = this.ball(e.slice, e.ball, at);
    if (e.event === 'ball') {
      ball.state = e.state;
      ball.wave = e.wave ?? ball.wave;
      // The engine says a ball's end on its ball event too (a hold, a block): a receipt event, if any, says more.
      if (e.receipt !== undefined && ball.receipt === null)
        ball.receipt = { value: e.receipt, candidate: null, evidence: e.reason ?? '', at };
      if (Array.isArray(e.deps)) ball.deps = e.deps.filter(isString);
    } else if (e.event === 'round') {
      const known = ball.rounds.find((x) => x.round === e.round);
      if (known === undefined) ball.rounds.push({ round: e.round, receipt: e.receipt ?? null, at });
      else Object.assign(known, { receipt: e.receipt ?? known.receipt, at });
    } else if (e.event === 'receipt') {
      ball.receipt = { value: e.value, candidate: e.candidate, evidence: e.evidence, at };
    } else ball.merged = { commit: e.commit, candidate: e.candidate, at };
  }

  /** Place reviews written before their ball's receipt; give a LEAP leaf (`items`) the one slice holding its ball. */
  finish(items: ReadonlyArray<{ slice: string | null; ball: string | null }>): void {
    for (const review of this.pending.splice(0)) this.ownerOf(review.candidate)?.reviews.push(review);
    for (const item of items) {
      const owners = item.slice === null && item.ball !== null ? this.owners.get(item.ball) : undefined;
      if (owners?.size === 1) item.slice = [...owners][0] ?? null;
    }
  }

  private review(e: EventOf<'review'>, at: number): void {
    const { candidate, reviewer, family, verdict, value } = e;
    const review: Review = { reviewer, family, verdict, value, candidate, at };
    if (e.slice !== undefined && e.ball !== undefined) this.ball(e.slice, e.ball, at).reviews.push(review);
    else if (e.slice !== undefined) this.slice(e.slice, at).aggregate.push(review);
    else (this.ownerOf(candidate)?.reviews ?? this.pending).push(review);
  }

  private ownerOf(candidate: string): BallRun | undefined {
    return this.slices
      .flatMap((s) => s.balls)
      .find((b) => b.receipt?.candidate === candidate || b.merged?.candidate === candidate);
  }

  private slice(id: string, at: number): SliceRun {
    return getOr(this.byId, id, () => newSlice(this.slices, id, at));
  }

  private ball(sliceId: string, id: string, at: number): BallRun {
    const slice = this.slice(sliceId, at);
    const ball = slice.balls.find((b) => b.id === id);
    if (ball !== undefined) return ball;
    this.owners.set(id, (this.owners.get(id) ?? new Set()).add(sliceId));
    return newBall(slice, id, at);
  }
}
