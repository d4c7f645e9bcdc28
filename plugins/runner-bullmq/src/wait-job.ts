// A job waited on: woken by the queue's events at once; a poll catches what an event missed (a Redis restart).
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { LeapError, orElse, showText, slicePaths, writeFileAtomic, type RoundPhase as Phase } from '@leap/core';
import type { Queue } from 'bullmq';
import { phaseOf } from './progress.js';
import { QUEUE, type RoundJobResult } from './protocol.js';
import type { RunnerState } from './runner.js';
import { unseal, type Sealed } from './sign.js';

type Waits = Pick<RunnerState, 'secret' | 'pollMs' | 'priority' | 'say' | 'wakers' | 'closed' | 'interrupted'>;
type Taken = (worker: string | null, phase: Phase | null) => void;
type Bull = { queue: Queue; Job: typeof import('bullmq').Job };

/** The job's return value once a worker completes it; a LeapError when it fails, times out, or the run stops. */
export async function waitForJob(s: Waits, q: Bull, id: string, data: Sealed, ms: number, taken: Taken, what: string) {
  const deadline = Date.now() + ms;
  const { queue, Job } = q;
  let toldAlone = false;
  for (;;) {
    if (s.closed) throw new LeapError(`the run stopped while ${id} was queued`);
    const left = `a worker may still be building it; its result is not taken`;
    if (s.interrupted !== null) throw new LeapError(`${s.interrupted}: the engine stopped waiting for ${id} (${left})`);
    if (Date.now() > deadline) throw await timedOut(q, id, ms);
    const job = await Job.fromId<Sealed, Sealed>(queue, id);
    if (job === undefined) {
      // Redis lost the job (restarted without its append-only file): queue it again.
      await queue.add('round', data, jobOptions(id, s.priority));
    } else {
      const state = await job.getState();
      // The job was read before its state: read it again for what it returned or why it failed.
      const done = state === 'completed' || state === 'failed';
      const ended = done ? await Job.fromId<Sealed, Sealed>(queue, id) : undefined;
      if (state === 'completed' && ended?.returnvalue != null) return ended.returnvalue as unknown;
      // The phase only when the worker signed it for this job (anyone with Redis access can write a job's progress).
      if (state === 'active') taken(workerNameOf(job.processedBy), phaseOf(s.secret, id, job.progress)?.phase ?? null);
      const queued = isQueued(state);
      if (!toldAlone && s.say !== undefined && queued) {
        toldAlone = true;
        await sayAlone(queue, s.say, what);
      }
      if (state === 'failed')
        throw new LeapError(`the workers could not build ${id}: ${showText(ended?.failedReason ?? job.failedReason)}`);
    }
    await sleep(s.wakers, id, Math.max(0, Math.min(s.pollMs, deadline - Date.now() + 1)));
  }
}

// No worker to take it (BullMQ's registry of connected workers is empty): said once, the engine waits on.
async function sayAlone(queue: Queue, say: (line: string) => void, what: string): Promise<void> {
  if ((await queue.getWorkers().catch(() => [{}])).length > 0) return;
  const none = 'no worker has taken it (leap workers lists them; it waits for one)';
  say(`${what}: queued, and no worker is connected to the queue ${QUEUE}: ${none}`);
}

export const QUEUED = ['waiting', 'delayed', 'prioritized'] as const;
const isQueued = (state: string) => (QUEUED as readonly string[]).includes(state);

/** The job's state; a job no worker took yet is taken off the queue. */
export async function dropIfQueued({ queue, Job }: Bull, id: string): Promise<string> {
  const job = await Job.fromId(queue, id).catch(() => undefined);
  const state = job === undefined ? 'gone' : await job.getState().catch(() => 'unknown');
  if (isQueued(state)) await job?.remove().catch(() => undefined);
  return state;
}

// Not built by anyone yet: taken off the queue. Being built: left to its worker, whose result is not taken.
async function timedOut({ queue, Job }: Bull, id: string, limitMs: number): Promise<LeapError> {
  const state = await dropIfQueued({ queue, Job }, id);
  const off = `${state === 'prioritized' ? 'waiting' : state}: taken off the queue`;
  const was = state === 'active' ? 'being built by a worker' : state === 'gone' ? 'gone' : off;
  const limit = `${(limitMs / 1000).toFixed(1)} s (LEAP_BULLMQ_ROUND_MS, else four leaf time limits)`;
  return new LeapError(`no worker returned ${id} within ${limit}; the job was ${was}`);
}

function sleep(wakers: Map<string, () => void>, id: string, ms: number): Promise<void> {
  return new Promise<void>((r) => {
    const wake = () => {
      clearTimeout(timer);
      wakers.delete(id);
      r();
    };
    const timer = setTimeout(wake, ms);
    wakers.set(id, wake);
  });
}

// Three attempts, retried after 1 s then 2 s: a failure that spent a build (a refused push, a crash) is not free.
export function jobOptions(id: string, priority: number) {
  const week = { age: 7 * 86_400 };
  const backoff = { type: 'exponential', delay: 1000 };
  return { jobId: id, priority, attempts: 3, backoff, removeOnComplete: week, removeOnFail: week };
}

/** A worker's result, its signature and schema checked; anything else is refused with why (the ball is held). */
export async function checkResult(secret: Buffer, id: string, returned: unknown): Promise<RoundJobResult> {
  const { roundResultSchema, parseOr } = await import('./job-schema.js');
  const refused = (why: string) => new LeapError(`the result of ${id} is refused: ${why}`);
  let body: unknown;
  try {
    body = unseal(secret, 'result', id, returned);
  } catch (error) {
    throw refused((error as Error).message);
  }
  parseOr(roundResultSchema, body, (problems) => refused(showText(problems)));
  return body as RoundJobResult;
}

export interface RemoteRound {
  v: 1;
  round: number;
  job: string;
  state: 'queued' | 'building' | 'returned';
  worker: string | null;
  /** From the job's progress the worker signed (progress.ts); null when queued or none said. */
  phase: Phase | null;
  queuedAt: string;
  takenAt: string | null;
  returnedAt: string | null;
  /** The engine's pid: a file whose engine is gone is stale (a killed engine). */
  enginePid: number;
}

/** Write the round's state; never throws (a state folder we cannot write: the round goes on without its picture). */
export function writeRemoteRound(repoRoot: string, slice: string, ball: string, round: RemoteRound): void {
  try {
    const file = slicePaths(repoRoot, slice).remoteRound(ball);
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic(file, `${JSON.stringify(round, null, 2)}\n`, { durable: false });
  } catch {}
}

export function removeRemoteRound(repoRoot: string, slice: string, ball: string): void {
  rmSync(slicePaths(repoRoot, slice).remoteRound(ball), { force: true });
}

/** BullMQ's name of the worker that took a job (clientSafeName) back to the worker's own name. */
function workerNameOf(processedBy: unknown): string | null {
  if (typeof processedBy !== 'string' || processedBy === '') return null;
  return orElse(() => decodeURIComponent(processedBy), processedBy);
}
