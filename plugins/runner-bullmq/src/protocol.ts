// What both sides of the queue agree on (CONTRACT section 11): its name, the job's shape, the timings.
import { createHash } from 'node:crypto';
import type { RoundRequest, RoundResult } from '@leap/slice';
import type { RoundJobBody } from './job-schema.js';

export const QUEUE = 'leap-rounds';
export const PREFIX = 'leap';

export type RoundJob = RoundJobBody;

/** The job's request from the engine's: its own fields only (the engine's agents file stays on its machine). */
export function jobRequest(r: RoundRequest): RoundJob['request'] {
  const { slice, ball, round, commit, start, agent, branch, prompt, reviewers, alternates, champion: c } = r;
  const { checkMap, passed, timeoutMs, authors, costLeftUsd, builtBy, skipJurors } = r;
  const champion = c === null ? null : { code: c.code, metric: c.metric, ms: c.ms, note: c.note };
  const { definition, spec } = r as unknown as Record<'definition' | 'spec', Record<string, unknown>>;
  const head = { slice, ball, round, commit, start, agent, branch, definition, spec, prompt, reviewers, alternates };
  const tail = { champion, checkMap, passed, timeoutMs, authors, costLeftUsd };
  const more = { ...(builtBy?.length ? { builtBy } : {}), ...(skipJurors?.length ? { skipJurors } : {}) };
  return { ...head, ...tail, ...more };
}

/** What a job says of the engine's remote: a hash of it (a URL may hold a token; it never leaves the engine). */
export const remoteId = (remote: string) => createHash('sha256').update(remote).digest('hex');

/** A round's result as the worker returns it (job-schema.ts): the tip it pushed, the lines its leaves logged. */
export type RoundJobResult = RoundResult & { v: 1; worker: string; tip: string; events: string[] };

/** Unique per request and builder: BullMQ keeps one job per id, so a fall-over's rebuild needs an id of its own. */
export function jobId(r: { slice: string; ball: string; round: number; commit: string; agent?: string }, run: string) {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  const agent = r.agent === undefined ? '' : `.${safe(r.agent)}`;
  return `${safe(r.slice)}.${safe(r.ball)}.r${r.round}.${r.commit.slice(0, 12)}.${run}${agent}`;
}

/** A worker's rounds' environment: its own, less what reaches the queue (no builder holds the secret or Redis URL). */
export function roundEnv({ LEAP_QUEUE_SECRET: _secret, LEAP_REDIS_URL: _url, ...env }: NodeJS.ProcessEnv) {
  return env;
}

export const ballBranch = (slice: string, ball: string) => `leap/${slice}/${ball}`;

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
    /** How long the engine waits for one round's result; 0: four leaf time limits (builder, proofs, jury). */
    roundMs: msFromEnv(env, 'LEAP_BULLMQ_ROUND_MS', 0),
  };
}
