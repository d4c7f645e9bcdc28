// The engine's side (CONTRACT section 11): the engine's repository holds every commit it integrates.
import { randomBytes } from 'node:crypto';
import { LeapError, serial, statePaths, type RoundPhase as Phase } from '@leap/core';
import { roundFamilies } from './labels.js';
import { appendEvents, ownEvents, recheckResult } from './recheck.js';
import { remoteKey, sliceJob } from './remote.js';
import { redact, redactUrl, secretsOf } from './text.js';
import type { RoundRequest, RoundResult, SliceRunner } from '@leap/slice';
import type { Queue } from 'bullmq';
import { errorOf, git, hasCommit } from './git.js';
import { PREFIX, QUEUE, ballBranch, jobId, jobRequest, timings } from './protocol.js';
import type { RoundJob, RoundJobResult } from './protocol.js';
import { connect } from './redis.js';
import { readQueueSecret, seal } from './sign.js';
import { QUEUED, checkResult, dropIfQueued, jobOptions, removeRemoteRound, waitForJob } from './wait-job.js';
import { writeRemoteRound, type RemoteRound } from './wait-job.js';

export interface BullmqRunnerOptions {
  redis: string;
  /** The shared remote every worker clones (a remote name of the repository, or a git URL); default `origin`. */
  remote?: string;
  repoRoot: string;
  /** The main repository's state folder: the workers' leaf events are appended to its log. */
  stateDir: string;
  env: NodeJS.ProcessEnv;
  secret?: Buffer;
  /** Where the runner says what the engine's progress lines cannot: a round queued while no worker is connected. */
  say?: (line: string) => void;
  /** `--priority` (0 to 1000, default 0): a higher slice's rounds are taken first. */
  priority?: number;
}

function runnerState(options: BullmqRunnerOptions) {
  const { env, say } = options;
  const { pollMs, roundMs } = timings(env);
  // No secret, no run: read before anything is queued (a UsageError, exit 2).
  const secret = options.secret ?? readQueueSecret(env);
  const settings = { options, env, say, remote: options.remote ?? 'origin', secret, pollMs, roundMs };
  const run = randomBytes(6).toString('hex');
  // `waiting`: this run's jobs still waited for (taken off the queue when it closes); `onRemote`: not pushed again.
  const sets = { waiting: new Set<string>(), onRemote: new Set<string>(), wakers: new Map<string, () => void>() };
  const toPush: { refspec: string; done: (error: Error | null) => void }[] = [];
  const later = { opened: null as Opened | null, keyed: null as Promise<string> | null, dropped: null as Later };
  const flags = { pushing: false, closed: false, interrupted: null as string | null };
  const priority = bullmqPriority(options.priority ?? 0);
  return { ...settings, run, priority, ...sets, once: serial(), toPush, ...later, ...flags };
}

type Later = Promise<void> | null;
export type RunnerState = ReturnType<typeof runnerState>;
type Opened = ReturnType<typeof openQueue>;

export function createBullmqRunner(options: BullmqRunnerOptions): SliceRunner & { readonly run: string } {
  const s = runnerState(options);
  return {
    name: 'bullmq',
    run: s.run,
    buildRound: (request: RoundRequest) => buildRound(s, request),
    // The engine was told to stop: no round is waited for any more (each wait ends at once, its ball held).
    interrupt(reason: string) {
      s.interrupted ??= reason;
      for (const wake of [...s.wakers.values()]) wake();
    },
    // A worker gives back a ball's worktree itself when the ball's round ends with a receipt.
    releaseBall: async () => undefined,
    close: () => closeRunner(s),
  };
}

const open = (s: RunnerState) => (s.opened ??= openQueue(s.options.redis, s.wakers));

async function openQueue(redis: string, wakers: Map<string, () => void>) {
  const { Queue: BullQueue, QueueEvents: BullQueueEvents, Job } = await import('bullmq');
  const connection = await connect(redis);
  const listen = await connect(redis);
  const queue = new BullQueue(QUEUE, { connection, prefix: PREFIX });
  const events = new BullQueueEvents(QUEUE, { connection: listen, prefix: PREFIX });
  // Redis going away is waited through: every command queues until it is back.
  queue.on('error', () => {});
  events.on('error', () => {});
  const wake = ({ jobId: id }: { jobId: string }) => wakers.get(id)?.();
  events.on('completed', wake);
  events.on('failed', wake);
  // A worker took it, or said where it is: the round's picture for leap status moves on.
  events.on('active', wake);
  events.on('progress', wake);
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  return { queue, connection, events, listen, Job };
}

// Jobs of a dead engine of this slice are taken off; its remote as jobs name it (remoteKey: name, URL, path alike).
const key = (s: RunnerState) => (s.keyed ??= remoteKey(s.options.repoRoot, s.remote, s.env));

async function dropStale(s: RunnerState, queue: Queue, slice: string): Promise<void> {
  const mine = await key(s);
  for (const job of await queue.getJobs([...QUEUED]).catch(() => [])) {
    const data = sliceJob(s.secret, job, slice, mine);
    if (data !== undefined && data.run !== s.run) await job.remove().catch(() => undefined);
  }
}

async function buildRound(s: RunnerState, request: RoundRequest): Promise<RoundResult> {
  const { queue } = await open(s);
  await (s.dropped ??= dropStale(s, queue, request.slice));
  const branch = ballBranch(request.slice, request.ball);
  if (!s.onRemote.has(request.commit)) {
    await withRetries(s, () => pushRound(s, request.commit, branch)).catch((error: Error) => {
      const why = `tried ${ENGINE_RETRIES.length + 1} times): ${redact(error.message, secretsOf(s.remote))}`;
      throw new LeapError(`cannot push ${branch} to the remote ${redactUrl(s.remote)} (${why}`);
    });
    s.onRemote.add(request.commit);
  }
  const result = await queueRound(s, request);
  const { repoRoot, stateDir } = s.options;
  await fetchTip(s, result.tip, branch);
  const notOn = `worker ${result.worker} returned the tip ${result.tip}, which is not on ${redactUrl(s.remote)}`;
  if (!(await hasCommit(repoRoot, result.tip, s.env))) throw new LeapError(notOn);
  const checked = await recheckResult(repoRoot, request, result, s.env);
  await git(repoRoot, ['update-ref', `refs/heads/${branch}`, checked.branchTo], s.env);
  s.onRemote.add(result.tip);
  const { events, dropped: unchecked } = await ownEvents(checked.result, request.slice, request.ball, request.round);
  appendEvents(statePaths(stateDir).events, events);
  const { tip: _tip, events: _events, v: _v, ...outcome } = checked.result;
  const dropped = `the engine dropped ${unchecked} event line(s) of worker ${outcome.worker} it could not check`;
  if (unchecked > 0) outcome.reason += ` (${dropped})`;
  return outcome;
}

/** The round queued as a signed job, its picture kept for leap status, and its worker's result once checked. */
async function queueRound(s: RunnerState, request: RoundRequest): Promise<RoundJobResult> {
  const bull = await open(s);
  const id = jobId(request, s.run);
  const families = await roundFamilies(request, s.env);
  const body: RoundJob = { v: 1, run: s.run, remote: await key(s), request: jobRequest(request) };
  if (families !== null) body.families = families;
  const data = seal(s.secret, 'job', id, body);
  s.waiting.add(id);
  const at = { worker: null, phase: null, queuedAt: new Date().toISOString(), takenAt: null, returnedAt: null };
  const picture: RemoteRound = { v: 1, round: request.round, job: id, state: 'queued', ...at, enginePid: process.pid };
  const show = (change: Partial<RemoteRound>) => {
    writeRemoteRound(s.options.repoRoot, request.slice, request.ball, Object.assign(picture, change));
  };
  try {
    await bull.queue.add('round', data, jobOptions(id, s.priority));
    show({});
    const taken = (worker: string | null, phase: Phase | null) => {
      if (picture.state === 'building' && picture.worker === worker && picture.phase === phase) return;
      show({ state: 'building', worker, phase, takenAt: picture.takenAt ?? new Date().toISOString() });
    };
    const limitMs = s.roundMs > 0 ? s.roundMs : 4 * request.timeoutMs;
    const what = `ball ${request.ball}: round ${request.round}`;
    const returned = await waitForJob(s, bull, id, data, limitMs, taken, what);
    show({ state: 'returned', returnedAt: new Date().toISOString() });
    return await checkResult(s.secret, id, returned);
  } catch (error) {
    // No result: the round's record says why; no picture of a round that is not on the queue any more.
    removeRemoteRound(s.options.repoRoot, request.slice, request.ball);
    throw error;
  } finally {
    s.waiting.delete(id);
  }
}

// By its sha, else by the ball's branch; only the fetch waits on the pushes, so results are checked side by side.
async function fetchTip(s: RunnerState, tip: string, branch: string): Promise<void> {
  const { repoRoot } = s.options;
  if (await hasCommit(repoRoot, tip, s.env)) return;
  const args = ['fetch', '--quiet', '--no-write-fetch-head', '--', s.remote];
  const fetch = (what: string) => git(repoRoot, [...args, what], s.env);
  const byBranch = `+refs/heads/${branch}:refs/leap-remote/${branch}`;
  await withRetries(s, () => s.once(() => fetch(tip).catch(() => fetch(byBranch)))).catch(() => undefined);
}

// A failed batch is pushed again a commit at a time.
function pushRound(s: RunnerState, commit: string, branch: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error: Error | null) => (error === null ? resolve() : reject(error));
    s.toPush.push({ refspec: `${commit}:refs/heads/${branch}`, done });
    pushSoon(s);
  });
}

function pushSoon(s: RunnerState): void {
  if (s.pushing || s.toPush.length === 0) return;
  s.pushing = true;
  const args = ['push', '--quiet', '--force', '--', s.remote];
  const push = (refspecs: string[]) => errorOf(s.once(() => git(s.options.repoRoot, [...args, ...refspecs], s.env)));
  void (async () => {
    // One turn of the event loop: the rounds one merge made ready are asked for together.
    await new Promise((r) => setImmediate(r));
    const batch = s.toPush.splice(0);
    const error = await push(batch.map((b) => b.refspec));
    if (error === null || batch.length === 1) for (const b of batch) b.done(error);
    else for (const b of batch) b.done(await push([b.refspec]));
    s.pushing = false;
    pushSoon(s);
  })();
}

// A moment's outage of the remote must not hold a ball and its descendants; no retry once told to stop.
async function withRetries<T>(s: RunnerState, trip: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await trip();
    } catch (error) {
      const delay = ENGINE_RETRIES[attempt];
      if (delay === undefined || s.interrupted !== null || s.closed) throw error;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

async function closeRunner(s: RunnerState): Promise<void> {
  if (s.closed) return;
  s.closed = true;
  if (s.opened === null) return;
  const opened = await s.opened;
  const { queue, connection, events, listen } = opened;
  for (const id of s.waiting) await dropIfQueued(opened, id);
  await Promise.all([queue.close(), events.close()]);
  connection.disconnect();
  listen.disconnect();
}

// The engine's waits before each new try of a trip to the remote (a push, a fetch).
const ENGINE_RETRIES = [500, 1000, 2000, 4000];

export const MAX_PRIORITY = 1000;

// BullMQ takes 1 first and a job without priority before any: every round gets one, a higher --priority a smaller one.
const bullmqPriority = (priority: number) =>
  MAX_PRIORITY + 1 - Math.max(0, Math.min(MAX_PRIORITY, Math.trunc(priority)));
