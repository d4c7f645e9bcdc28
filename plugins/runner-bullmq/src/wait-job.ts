// A job waited on: woken by the queue's events at once; a poll catches what an event missed (a Redis restart).
import { LeapError, showText, type RoundPhase as Phase } from '@leap/core';
import type { Queue } from 'bullmq';
import { workerNameOf } from './round-file.js';
import { phaseOf } from './progress.js';
import { QUEUE } from './protocol.js';
import type { Sealed } from './sign.js';

export interface Waits {
  readonly secret: Buffer;
  readonly pollMs: number;
  readonly priority: number;
  readonly say: ((line: string) => void) | undefined;
  readonly wakers: Map<string, () => void>;
  readonly closed: boolean;
  /** Set by interrupt (the engine's TERM or INT): every round still waited for ends at once, its ball held. */
  readonly interrupted: string | null;
}

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
      const queued = state === 'waiting' || state === 'prioritized' || state === 'delayed';
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

// Not built by anyone yet: taken off the queue. Being built: left to its worker, whose result is not taken.
async function timedOut({ queue, Job }: Bull, id: string, limitMs: number): Promise<LeapError> {
  const job = await Job.fromId(queue, id).catch(() => undefined);
  const state = job === undefined ? 'gone' : await job.getState().catch(() => 'unknown');
  if (['waiting', 'delayed', 'prioritized'].includes(state)) await job?.remove().catch(() => undefined);
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
