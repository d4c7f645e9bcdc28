// A slice's balls folded from the engine's events (CONTRACT section 7).
import { getOr, isString, type Need, named, num, str } from './_fold-leaves.js';
import type { LogRecord } from './read-log.js';

export const receiptOf = (v: unknown): number | null => (v === -1 || v === 0 || v === 1 ? v : null);
const SLICE_BALL: Need[] = [
  ['slice', 'a slice id', named],
  ['ball', 'a ball id', named],
];
const VALUE: Need = ['value', '-1, 0 or 1', (v) => receiptOf(v) !== null];
export const SLICE_NEEDS: Array<[string, Need[]]> = [
  ['ball', SLICE_BALL],
  ['round', [...SLICE_BALL, ['round', 'a round number', (v) => num(v) !== null]]],
  ['receipt', [...SLICE_BALL, VALUE]],
  ['review', [VALUE]],
  ['merge', SLICE_BALL],
];
/** A review naming its slice and its ball is of that ball: it needs both. */
export const BALL_REVIEW_NEEDS: Need[] = [VALUE, ...SLICE_BALL];

export type RoundAnswer = { hypothesis: string; move: string };
/** A round's live proof evidence (round-N.json's `live`): its exit, time, and its output, bounded and hashed. */
export interface RoundLive {
  code: number | null;
  ms: number | null;
  sha256: string;
  bytes: number | null;
  truncated: boolean;
  output: string;
  note?: string;
}
type Round = { round: number; receipt: number | null; at: number; answer?: RoundAnswer; live?: RoundLive };
type Review = {
  reviewer: string | null;
  family: string | null;
  verdict: string;
  value: number;
  candidate: string;
  at: number;
};

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

  add({ event: e, at }: LogRecord): void {
    const ball = e.event === 'review' ? null : this.ball(e.slice as string, e.ball as string, at);
    if (ball === null) this.review(e, at);
    else if (e.event === 'ball') {
      ball.state = str(e.state) ?? ball.state;
      ball.wave = num(e.wave) ?? ball.wave;
      // The engine says a ball's end on its ball event too (a hold, a block): a receipt event, if any, says more.
      const value = receiptOf(e.receipt);
      if (value !== null && ball.receipt === null)
        ball.receipt = { value, candidate: null, evidence: str(e.reason) ?? '', at };
      if (Array.isArray(e.deps)) ball.deps = e.deps.filter(isString);
    } else if (e.event === 'round') {
      const receipt = receiptOf(e.receipt);
      const known = ball.rounds.find((x) => x.round === e.round);
      if (known === undefined) ball.rounds.push({ round: e.round as number, receipt, at });
      else Object.assign(known, { receipt: receipt ?? known.receipt, at });
    } else if (e.event === 'receipt') {
      ball.receipt = { value: e.value as number, candidate: str(e.candidate), evidence: str(e.evidence) ?? '', at };
    } else ball.merged = { commit: str(e.commit) ?? '', candidate: str(e.candidate) ?? '', at };
  }

  /** Place reviews written before their ball's receipt; give a LEAP leaf (`items`) the one slice holding its ball. */
  finish(items: ReadonlyArray<{ slice: string | null; ball: string | null }>): void {
    for (const review of this.pending.splice(0)) this.ownerOf(review.candidate)?.reviews.push(review);
    for (const item of items) {
      const owners = item.slice === null && item.ball !== null ? this.owners.get(item.ball) : undefined;
      if (owners?.size === 1) item.slice = [...owners][0] ?? null;
    }
  }

  private review(e: LogRecord['event'], at: number): void {
    const candidate = str(e.candidate) ?? '';
    const [reviewer, family, verdict] = [str(e.reviewer), str(e.family), str(e.verdict) ?? '?'];
    const review: Review = { reviewer, family, verdict, value: e.value as number, candidate, at };
    const sliceId = str(e.slice);
    if (sliceId !== null && isString(e.ball)) this.ball(sliceId, e.ball, at).reviews.push(review);
    else if (sliceId !== null) this.slice(sliceId, at).aggregate.push(review);
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
