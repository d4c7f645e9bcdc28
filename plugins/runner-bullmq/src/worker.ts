// A job is one round, built as the local runner does (buildRoundIn), then pushed: docs/decisions/bullmq-rounds.md.
import { hostname } from 'node:os';
import type { JobJson } from 'bullmq';
import type { Redis } from 'ioredis';
import { showText } from '@leap/core';
import { WorkerClone } from './clone.js';
import { clientSafeName, startHeartbeat, type InHand } from './heartbeat.js';
import { PREFIX, QUEUE, timings } from './protocol.js';
import { succeeds } from './git.js';
import { connect } from './redis.js';
import { CUT_OFF, UNPARSABLE, runJob, seconds } from './round-job.js';
import type { Sealed } from './sign.js';
import { redact, redactUrl, secretsOf } from './text.js';

export interface WorkerOptions {
  redis: string;
  repo: string;
  jobs?: number;
  dir: string;
  name?: string;
  secret: Buffer;
  /** An absolute path, the only agents file its rounds use; none: the built-ins (and VERI_AGENTS). */
  agents?: string;
  labels?: string[];
  /** `--max-leaf` (ms); 0 or none: the job's. */
  maxLeafMs?: number;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface RunningWorker {
  readonly name: string;
  /** Resolves once `leap workers drain` asks; close it with `{ drain: true }`. */
  readonly drained: Promise<void>;
  /** Finish the jobs in flight, never waiting on a silent Redis. */
  close(options?: { drain?: boolean }): Promise<void>;
  /** A stop signal came while it drains: the rounds whose leaf it ended are handed back. */
  signalled(): void;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const w = await workerState(options);
  const locks = { concurrency: w.jobs, lockDuration: w.lockMs, stalledInterval: w.stalledMs, autorun: false };
  // A round cut off by a dead worker goes to another twice before it fails (and its ball is held).
  const { connection } = w;
  const bullOptions = { connection, prefix: PREFIX, ...locks, maxStalledCount: 2, name: clientSafeName(w.name) };
  const worker = new (checkedWorker(w.bull.Worker))(QUEUE, (job, token) => runJob(w, job, token), bullOptions);
  w.worker = worker;
  sayErrors(worker, w.log);
  // Its record first (a drain flag left by a worker of this name before cleared), then the first job.
  await w.heart.start();
  void worker.run().catch((error: Error) => w.log(`stopped: ${error.message}`));
  await worker.waitUntilReady();
  w.log(`${w.name}: waiting for rounds on ${redactUrl(options.redis)} (queue ${QUEUE}), ${shownSettings(w)}`);
  const close = (closeOptions: { drain?: boolean } = {}) => closeWorker(w, options.redis, closeOptions.drain === true);
  return { name: w.name, drained: w.drained, signalled: () => void (w.stopping = true), close };
}

export type WorkerState = Awaited<ReturnType<typeof workerState>>;

async function workerState(options: WorkerOptions) {
  const env = options.env ?? process.env;
  // Every line said is one line, its control characters escaped, with no password, token or secret in it.
  const secrets = [...secretsOf(options.redis, options.repo), options.secret.toString('utf8')];
  const hide = (text: string) => redact(text, secrets);
  const log = (line: string) => options.log?.(showText(hide(line)));
  const shownRepo = redactUrl(options.repo);
  const clone = new WorkerClone(options.dir, options.repo, env);
  await clone.reset();
  const started = Date.now();
  // Cloned while waiting; a remote out of reach is said at once, and the rounds go back to the queue until it is back.
  const until = 'the rounds this worker takes go back to the queue until it can';
  void clone.clone().catch((error: Error) => log(`cannot clone the remote ${shownRepo}: ${error.message}; ${until}`));
  const bull = await import('bullmq');
  const { buildRoundIn } = await import('@leap/slice');
  const connection = await connect(options.redis);
  let sayDrained: () => void = () => {};
  const drained = new Promise<void>((r) => (sayDrained = r));
  const { secret, dir, agents, maxLeafMs = 0 } = options;
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const labels = [...new Set(options.labels ?? [])].sort();
  const jobs = Math.max(1, options.jobs ?? 1);
  const settings = { name, secret, dir, agents, labels, jobs, env, shownRepo, maxLeafMs };
  const parts = { log, hide, clone, bull, buildRoundIn, connection, drained, worker: null as unknown as CheckedWorker };
  // `notMine`: the jobs handed back for its labels (said once each); `stopping`: a stop signal came; `draining`: asked.
  const fresh = { inHand: new Map<string, InHand>(), notMine: new Set<string>(), stopping: false, draining: false };
  const w = { ...settings, ...timings(env), ...parts, ...fresh, heart: null as unknown as Heart };
  w.heart = startHeartbeat(connection, started, () => w, sayDrained);
  return w;
}

type Heart = ReturnType<typeof startHeartbeat>;
type CheckedWorker = import('bullmq').Worker<Sealed, Sealed> & { stopLockRenewal(): Promise<void> };

/** BullMQ's Worker, but a job whose data is not JSON is given to the processor as a marker, refused there. */
function checkedWorker(Worker: typeof import('bullmq').Worker) {
  return class extends Worker<Sealed, Sealed> {
    protected override createJob(data: JobJson, jobId: string) {
      try {
        return super.createJob(data, jobId);
      } catch {
        return super.createJob({ ...data, data: JSON.stringify({ [UNPARSABLE]: true }) }, jobId);
      }
    }
    /** Ends the lock renewal now: BullMQ's close ends it only after Redis answers, and its timer re-arms for ever. */
    stopLockRenewal(): Promise<void> {
      return this.lockManager.close();
    }
  };
}

function shownSettings(w: WorkerState): string {
  const agents = w.agents === undefined ? '' : `, agents ${w.agents}`;
  const labels = w.labels.length === 0 ? '' : `, labels ${w.labels.join(', ')}`;
  const maxLeaf = w.maxLeafMs > 0 ? `, --max-leaf ${seconds(w.maxLeafMs)}` : '';
  return `--jobs ${w.jobs}, remote ${w.shownRepo}, folder ${w.dir}${agents}${labels}${maxLeaf}`;
}

function sayErrors(worker: CheckedWorker, log: (line: string) => void): void {
  let lastError = '';
  // Said once per job (the renewal is tried every half lock while the round runs on).
  const lapsed = new Set<string>();
  worker.on('lockRenewalFailed', (ids: string[]) => {
    for (const id of ids.filter((id) => !lapsed.has(id))) {
      lapsed.add(id);
      log(`job ${id}: its lock could not be renewed (${CUT_OFF}); the stalled check gives the round to another worker`);
    }
  });
  worker.on('error', (error: Error) => {
    // Said by the lockRenewalFailed line; a lost lock's refused completion is said by the round's line.
    if (/^could not renew lock for job |^Lock mismatch for job |^Missing lock for job /.test(error.message)) return;
    if (error.message === lastError) return;
    lastError = error.message;
    log(`redis: ${error.message} (retrying)`);
  });
}

async function closeWorker(w: WorkerState, redis: string, drain: boolean) {
  const { worker, connection } = w;
  if (!drain) w.stopping = true;
  w.draining = true;
  w.heart.beatNow();
  // BullMQ's close waits for ever on a gone Redis; the rounds' locks lapse, another worker takes them later.
  const closing = succeeds(worker.close()).then(() => true);
  const redisAnswered = await Promise.race([closing, redisGone(connection).then(() => false)]);
  if (!redisAnswered) {
    const later = 'not waiting for it (the rounds in flight go to another worker once it is back)';
    w.log(`Redis at ${redactUrl(redis)} does not answer: ${later}`);
    // Nothing of BullMQ's may keep the process alive: its lock renewal re-arms itself for ever.
    void worker.stopLockRenewal();
    void worker.disconnect().catch(() => undefined);
  }
  // A worker stopped cleanly is not listed (a killed one's record stays, its heartbeat aging: dead).
  await w.heart.stop(redisAnswered);
  await w.clone.close();
  connection.disconnect();
}

/** Resolves once `connection` is not connected (at once when it is not now): Redis stopped, unreachable, or cut off. */
function redisGone(connection: Redis): Promise<void> {
  if (connection.status !== 'ready') return Promise.resolve();
  return new Promise((resolve) => void connection.once('close', () => resolve()).once('end', () => resolve()));
}
