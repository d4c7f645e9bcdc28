// What travels over the queue (CONTRACT sections 8 and 11): one job per round of a ball, its request as
// data, its result as data. Both sides agree on the queue's name, the job's shape and the timings here.
import type { RoundRequest, RoundResult } from '@leap/slice';

/** The queue every engine adds rounds to and every `leap worker` takes them from. */
export const QUEUE = 'leap-rounds';
/** BullMQ's key prefix in Redis. */
export const PREFIX = 'leap';

/** One round of one ball, as a job. */
export interface RoundJob {
  /** This engine run's id: a later run removes the waiting jobs of a dead one. */
  run: string;
  /** The git URL (or remote name) the engine pushed the round's commit to. */
  remote: string;
  request: RoundRequest;
  /** The agents file the engine read, carried as text (a worker's machine need not have it); null: built-ins. */
  agents: { name: string; text: string } | null;
}

/** A round's result, as the worker returns it. */
export interface RoundJobResult extends RoundResult {
  worker: string;
  /** The ball's branch tip the worker pushed to `leap/SLICE/BALL`. */
  tip: string;
  /** The lines the round's leaves (the builder, the jury) added to the worker's events log. */
  events: string[];
}

/** A job id: the ball and round readable, unique per request (a later engine asks again under a new id). */
export function jobId(request: { slice: string; ball: string; round: number; commit: string }, run: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  return `${safe(request.slice)}.${safe(request.ball)}.r${request.round}.${request.commit.slice(0, 12)}.${run}`;
}

/** The ball's branch on the shared remote, as the contract names it. */
export const ballBranch = (slice: string, ball: string) => `leap/${slice}/${ball}`;

/** A positive number of milliseconds from the environment, else `fallback`. */
export function msFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  const n = raw === undefined || raw === '' ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Timings both sides share: the worker's lock on a job and the stalled check (BullMQ's defaults are 30 s). */
export function timings(env: NodeJS.ProcessEnv) {
  const lockMs = msFromEnv(env, 'LEAP_BULLMQ_LOCK_MS', 30_000);
  return {
    lockMs,
    stalledMs: msFromEnv(env, 'LEAP_BULLMQ_STALLED_MS', lockMs),
    retryMs: msFromEnv(env, 'LEAP_BULLMQ_RETRY_MS', 5_000),
    pollMs: msFromEnv(env, 'LEAP_BULLMQ_POLL_MS', 1000),
  };
}
