// The engine's side (CONTRACT section 11): the engine's repository holds every commit it integrates.
import { randomBytes } from 'node:crypto';
import { LeapError, openEventLog, serial, statePaths, type LeapEvent } from '@leap/core';
import { roundFamilies } from './labels.js';
import { removeRemoteRound, workerNameOf, writeRemoteRound, type RemoteRound } from './round-file.js';
import { ownEvents } from './own-events.js';
import { phaseOf, type Phase } from './progress.js';
import { recheckResult } from './recheck.js';
import { remoteKey } from './remote.js';
import { redact, redactUrl, secretsOf, showText } from './text.js';
import type { RoundRequest, RoundResult, SliceRunner } from '@leap/slice';
import type { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { git, hasCommit } from './git.js';
import { PREFIX, QUEUE, ballBranch, jobId, jobRequest, timings, type RoundJob, type RoundJobResult } from './protocol.js';
import { connect } from './redis.js';
import { readQueueSecret, seal, unseal, type Sealed } from './sign.js';

export interface BullmqRunnerOptions {
  redis: string;
  /** The shared remote every worker clones (a remote name of the repository, or a git URL); default `origin`. */
  remote?: string;
  repoRoot: string;
  /** The main repository's state folder: the workers' leaf events are appended to its log. */
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** Default: readQueueSecret's (from `secretFile`, else LEAP_QUEUE_SECRET). */
  secret?: Buffer;
  secretFile?: string;
  /** Where the runner says what the engine's progress lines cannot: a round queued while no worker is connected. */
  say?: (line: string) => void;
  /** `--priority` (0 to 1000, default 0): a higher slice's rounds are taken first. */
  priority?: number;
}

/** A runner that queues every round for `leap worker`s on other machines. */
export function createBullmqRunner(options: BullmqRunnerOptions): SliceRunner & { readonly run: string } {
  const env = options.env;
  const remote = options.remote ?? 'origin';
  const run = randomBytes(6).toString('hex');
  // No secret, no run: read before anything is queued (a UsageError, exit 2).
  const secret = options.secret ?? readQueueSecret(env, options.secretFile);
  const { pollMs, roundMs } = timings(env);
  const priority = bullmqPriority(options.priority ?? 0);
  // Set by interrupt (the engine's TERM or INT): every round still waited for ends at once, its ball held.
  let interrupted: string | null = null;
  const once = serial();
  let opened: Promise<{ queue: Queue; connection: Redis; events: QueueEvents; listen: Redis; Job: typeof import('bullmq').Job }> | null = null;
  let closed = false;
  const waiting = new Set<string>();
  // Who waits on which job: woken by the queue's events at once; a poll catches what an event missed (a Redis restart).
  const wakers = new Map<string, () => void>();
  // Commits the remote is known to hold (pushed, or fetched back from it): not pushed again.
  const onRemote = new Set<string>();

  const open = () =>
    (opened ??= (async () => {
      const { Queue: BullQueue, QueueEvents: BullQueueEvents, Job } = await import('bullmq');
      const connection = await connect(options.redis);
      const listen = await connect(options.redis);
      const queue = new BullQueue(QUEUE, { connection, prefix: PREFIX });
      const events = new BullQueueEvents(QUEUE, { connection: listen, prefix: PREFIX });
      // Redis going away is waited through (every command queues until it is back); the rounds' polls say the rest.
      queue.on('error', () => {});
      events.on('error', () => {});
      const wake = ({ jobId: id }: { jobId: string }) => wakers.get(id)?.();
      events.on('completed', wake);
      events.on('failed', wake);
      // A worker took it, or said where it is (job progress): the round's picture for leap status moves on.
      events.on('active', wake);
      events.on('progress', wake);
      await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
      return { queue, connection, events, listen, Job };
    })());

  // Jobs of a dead engine of this slice are taken off; its remote as jobs name it (remoteKey: name, URL, path alike).
  let keyed: Promise<string> | null = null;
  const key = () => (keyed ??= remoteKey(options.repoRoot, remote, env));
  const dropStale = async (queue: Queue, slice: string) => {
    const mine = await key();
    for (const job of await queue.getJobs(['waiting', 'delayed', 'prioritized']).catch(() => [])) {
      // Only a job signed with our secret is an engine's: anything else is left for the workers to refuse.
      let data: RoundJob | undefined;
      try {
        data = unseal(secret, 'job', String(job?.id), job?.data) as RoundJob;
      } catch {
        continue;
      }
      if (data?.request?.slice === slice && data.remote === mine && data.run !== run) await job.remove().catch(() => undefined);
    }
  };
  let dropped: Promise<void> | null = null;

  // Commits asked for during a push go in the next one; a failed batch is pushed again a commit at a time.
  const toPush: { refspec: string; done: (error: Error | null) => void }[] = [];
  let pushing = false;
  const push = (refspecs: string[]) =>
    once(() => git(options.repoRoot, ['push', '--quiet', '--force', '--', remote, ...refspecs], env)).then(
      () => null,
      (error: Error) => error,
    );
  const pushSoon = () => {
    if (pushing || toPush.length === 0) return;
    pushing = true;
    void (async () => {
      // One turn of the event loop: the rounds one merge made ready are asked for together.
      await new Promise((r) => setImmediate(r));
      const batch = toPush.splice(0);
      const error = await push(batch.map((b) => b.refspec));
      if (error === null || batch.length === 1) for (const b of batch) b.done(error);
      else for (const b of batch) b.done(await push([b.refspec]));
      pushing = false;
      pushSoon();
    })();
  };
  const pushRound = (commit: string, branch: string) =>
    new Promise<void>((resolve, reject) => {
      toPush.push({ refspec: `${commit}:refs/heads/${branch}`, done: (error) => (error === null ? resolve() : reject(error)) });
      pushSoon();
    });

  // A moment's outage of the remote must not hold a ball and its descendants; no retry once told to stop.
  const withRetries = async <T>(trip: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await trip();
      } catch (error) {
        const delay = ENGINE_RETRIES[attempt];
        if (delay === undefined || interrupted !== null || closed) throw error;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  const wait = async (id: string, data: Sealed, limitMs: number, taken: (worker: string | null, phase: Phase | null) => void = () => {}, what = id): Promise<unknown> => {
    const deadline = Date.now() + limitMs;
    const { queue, Job } = await open();
    let toldAlone = false;
    for (;;) {
      if (closed) throw new LeapError(`the run stopped while ${id} was queued`);
      if (interrupted !== null) throw new LeapError(`${interrupted}: the engine stopped waiting for ${id} (a worker may still be building it; its result is not taken)`);
      if (Date.now() > deadline) {
        const job = await Job.fromId(queue, id).catch(() => undefined);
        const state = job === undefined ? 'gone' : await job.getState().catch(() => 'unknown');
        // Not built by anyone yet: taken off the queue. Being built: left to its worker, whose result is not taken.
        if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await job?.remove().catch(() => undefined);
        throw new LeapError(
          `no worker returned ${id} within ${(limitMs / 1000).toFixed(1)} s (LEAP_BULLMQ_ROUND_MS, else four leaf time limits); the job was ${state === 'active' ? 'being built by a worker' : state === 'gone' ? 'gone' : `${state === 'prioritized' ? 'waiting' : state}: taken off the queue`}`,
        );
      }
      const job = await Job.fromId<Sealed, Sealed>(queue, id);
      if (job === undefined) {
        // Redis lost the job (restarted without its append-only file): queue it again.
        await queue.add('round', data, jobOptions(id, priority));
      } else {
        const state = await job.getState();
        // The job was read before its state: read it again for what it returned or why it failed.
        const ended = state === 'completed' || state === 'failed' ? await Job.fromId<Sealed, Sealed>(queue, id) : undefined;
        if (state === 'completed' && ended?.returnvalue != null) return ended.returnvalue as unknown;
        // The phase only when the worker signed it for this job (anyone with Redis access can write a job's progress).
        if (state === 'active') taken(workerNameOf(job.processedBy), phaseOf(secret, id, job.progress)?.phase ?? null);
        // No worker to take it (BullMQ's registry of connected workers is empty): said once, the engine waits on.
        if (!toldAlone && options.say !== undefined && (state === 'waiting' || state === 'prioritized' || state === 'delayed')) {
          toldAlone = true;
          if ((await queue.getWorkers().catch(() => [{}])).length === 0)
            options.say(`${what}: queued, and no worker is connected to the queue ${QUEUE}: no worker has taken it (leap workers lists them; it waits for one)`);
        }
        if (state === 'failed') throw new LeapError(`the workers could not build ${id}: ${showText(ended?.failedReason ?? job.failedReason)}`);
      }
      await new Promise<void>((r) => {
        const timer = setTimeout(
          () => {
            wakers.delete(id);
            r();
          },
          Math.max(0, Math.min(pollMs, deadline - Date.now() + 1)),
        );
        wakers.set(id, () => {
          clearTimeout(timer);
          wakers.delete(id);
          r();
        });
      });
    }
  };

  return {
    name: 'bullmq',
    run,
    async buildRound(request: RoundRequest): Promise<RoundResult> {
      const { queue } = await open();
      await (dropped ??= dropStale(queue, request.slice));
      const branch = ballBranch(request.slice, request.ball);
      if (!onRemote.has(request.commit)) {
        await withRetries(() => pushRound(request.commit, branch)).catch((error: Error) => {
          throw new LeapError(`cannot push ${branch} to the remote ${redactUrl(remote)} (tried ${ENGINE_RETRIES.length + 1} times): ${redact(error.message, secretsOf(remote))}`);
        });
        onRemote.add(request.commit);
      }
      const id = jobId(request, run);
      // The families the round needs, for the workers' labels (from the engine's agents file, as its jury reads them).
      const families = await roundFamilies(request, env);
      const body: RoundJob = { v: 1, run, remote: await key(), request: jobRequest(request), ...(families === null ? {} : { families }) };
      const data = seal(secret, 'job', id, body);
      waiting.add(id);
      let result: RoundJobResult;
      // Where the round stands, for leap status and leap report: the engine's own reading of the queue.
      const picture: RemoteRound = {
        v: 1,
        round: request.round,
        job: id,
        state: 'queued',
        worker: null,
        phase: null,
        queuedAt: new Date().toISOString(),
        takenAt: null,
        returnedAt: null,
        enginePid: process.pid,
      };
      const show = (change: Partial<RemoteRound>) => {
        Object.assign(picture, change);
        writeRemoteRound(options.repoRoot, request.slice, request.ball, picture);
      };
      try {
        await queue.add('round', data, jobOptions(id, priority));
        show({});
        const taken = (worker: string | null, phase: Phase | null) => {
          if (picture.state !== 'building' || picture.worker !== worker || picture.phase !== phase) show({ state: 'building', worker, phase, takenAt: picture.takenAt ?? new Date().toISOString() });
        };
        const returned = await wait(id, data, roundMs > 0 ? roundMs : 4 * request.timeoutMs, taken, `ball ${request.ball}: round ${request.round}`);
        show({ state: 'returned', returnedAt: new Date().toISOString() });
        result = await checkResult(secret, id, returned);
      } catch (error) {
        // No result: the round's record says why; no picture of a round that is not on the queue any more.
        removeRemoteRound(options.repoRoot, request.slice, request.ball);
        throw error;
      } finally {
        waiting.delete(id);
      }
      // By its sha, else by the ball's branch; only the fetch waits on the pushes, so results are checked side by side.
      if (!(await hasCommit(options.repoRoot, result.tip, env))) {
        await withRetries(() =>
          once(() =>
            git(options.repoRoot, ['fetch', '--quiet', '--no-write-fetch-head', '--', remote, result.tip], env).catch(() =>
              git(options.repoRoot, ['fetch', '--quiet', '--no-write-fetch-head', '--', remote, `+refs/heads/${branch}:refs/leap-remote/${branch}`], env),
            ),
          ),
        ).catch(() => undefined);
      }
      if (!(await hasCommit(options.repoRoot, result.tip, env))) throw new LeapError(`worker ${result.worker} returned the tip ${result.tip}, which is not on ${redactUrl(remote)}`);
      const checked = await recheckResult(options.repoRoot, request, result, env);
      await git(options.repoRoot, ['update-ref', `refs/heads/${branch}`, checked.branchTo], env);
      onRemote.add(result.tip);
      const { events, dropped: unchecked } = await ownEvents(checked.result, request.slice, request.ball, request.round);
      appendEvents(statePaths(options.stateDir).events, events);
      const { tip: _tip, events: _events, v: _v, ...outcome } = checked.result;
      if (unchecked > 0) outcome.reason += ` (the engine dropped ${unchecked} event line(s) of worker ${outcome.worker} it could not check)`;
      return outcome;
    },
    // The engine was told to stop: no round is waited for any more (each wait ends at once, its ball held).
    interrupt(reason: string) {
      interrupted ??= reason;
      for (const wake of [...wakers.values()]) wake();
    },
    // A worker gives back a ball's worktree itself when the ball's round ends with a receipt.
    releaseBall: async () => undefined,
    async close() {
      if (closed) return;
      closed = true;
      if (opened === null) return;
      const { queue, connection, events, listen, Job } = await opened;
      // The rounds still queued for this run are nobody's now.
      for (const id of waiting) {
        const job = await Job.fromId(queue, id).catch(() => undefined);
        if (job !== undefined && ['waiting', 'delayed', 'prioritized'].includes(await job.getState())) await job.remove().catch(() => undefined);
      }
      await Promise.all([queue.close(), events.close()]);
      connection.disconnect();
      listen.disconnect();
    },
  };
}

/** The engine's waits before each new try of a trip to the remote (a push, a fetch): 7.5 s in all. */
const ENGINE_RETRIES = [500, 1000, 2000, 4000];

export const MAX_PRIORITY = 1000;

// BullMQ takes 1 first and a job without priority before any: every round gets one, a higher --priority a smaller one.
const bullmqPriority = (priority: number) => MAX_PRIORITY + 1 - Math.max(0, Math.min(MAX_PRIORITY, Math.trunc(priority)));

// Three attempts, retried after 1 s then 2 s: a failure that spent a build (a refused push, a crash) is not free.
function jobOptions(id: string, priority: number) {
  return { jobId: id, priority, attempts: 3, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 7 * 86_400 }, removeOnFail: { age: 7 * 86_400 } };
}

function appendEvents(file: string, events: LeapEvent[]): void {
  if (events.length === 0) return;
  const log = openEventLog(file);
  try {
    for (const event of events) log.append(event);
  } finally {
    log.close();
  }
}

/** A worker's result, its signature and schema checked; anything else is refused with why (the ball is held). */
async function checkResult(secret: Buffer, id: string, returned: unknown): Promise<RoundJobResult> {
  const { roundResultSchema, schemaProblems } = await import('./job-schema.js');
  let body: unknown;
  try {
    body = unseal(secret, 'result', id, returned);
  } catch (error) {
    throw new LeapError(`the result of ${id} is refused: ${(error as Error).message}`);
  }
  const problems = schemaProblems(roundResultSchema, body);
  if (problems.length > 0) throw new LeapError(`the result of ${id} is refused: ${showText(problems.join('; '))}`);
  return body as RoundJobResult;
}
