// A job is one round, built as the local runner does (buildRoundIn), then pushed: docs/decisions/bullmq-rounds.md.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { readTimeLimit, retryWorktreeRace, serial, statePaths } from '@leap/core';
import type { Job, JobJson } from 'bullmq';
import { BadJobError, checkJobBody } from './check-job.js';
import { git, hasCommit } from './git.js';
import { PREFIX, QUEUE, ballBranch, roundEnv, timings, type RoundJobResult } from './protocol.js';
import { connect } from './redis.js';
import { SignatureError, seal, unseal, type Sealed } from './sign.js';
import { redact, redactUrl, secretsOf, showText } from './text.js';
import { clientSafeName, heartbeatTimings, startHeartbeat, type InHand } from './heartbeat.js';
import { sealProgress, watchRoundPhases, type Phase } from './progress.js';

const LABEL_STEP_ASIDE_MS = 250;

/** What a job whose data is not JSON carries instead (BullMQ would throw on it and leave the job active). */
const UNPARSABLE = '__leapUnparsable';

export interface WorkerOptions {
  redis: string;
  /** The shared remote: a bare repository path, file://, ssh. */
  repo: string;
  /** Rounds built at once (default 1). */
  jobs?: number;
  /** This machine's folder: the clone, the worktrees, the leaves' state (default `.leap-worker`). */
  dir: string;
  /** The worker's name in the records (default host:pid). */
  name?: string;
  /** Shared with the engines (readQueueSecret): jobs not signed with it are refused; results are signed with it. */
  secret: Buffer;
  /** An absolute path, the only agents file its rounds use; none: the built-ins (and VERI_AGENTS). */
  agents?: string;
  /** `--label`: only rounds whose builder's and reviewers' families are all here; none: every round. */
  labels?: string[];
  /** `--max-leaf` (ms): caps each leaf's time limit, whatever the job says; 0 or none: the job's. */
  maxLeafMs?: number;
  env?: NodeJS.ProcessEnv;
  /** One line per job event. */
  log?: (line: string) => void;
}

export interface RunningWorker {
  readonly name: string;
  /** Resolves once `leap workers drain` asks: it takes no more rounds; close it with `{ drain: true }`. */
  readonly drained: Promise<void>;
  /** Finish the jobs in flight, never waiting on a silent Redis. `drain`: a held round is returned, not handed back. */
  close(options?: { drain?: boolean }): Promise<void>;
  /** A stop signal came while it drains: the leaves it ended make their rounds handed back, as on TERM. */
  signalled(): void;
}

/** A remote the worker could not reach: the job goes back to the queue for another worker. */
class RemoteError extends Error {}

/** A round whose leaf the stop signal ended (the supervisor ends its leaf on TERM or INT): given back, not returned. */
class StoppedError extends Error {}

/** Spends one of the job's attempts (not handed back free): a remote refusing every push cannot loop for ever. */
class PushError extends Error {}

/** A round finished after its job's lock lapsed (this worker paused or cut off): the job is another worker's now. */
class LockLostError extends Error {}

/** Start taking jobs; resolves once the worker is connected and listening. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const env = options.env ?? process.env;
  // Every line said is one line, its control characters escaped, with no password, token or secret in it.
  const secrets = [...secretsOf(options.redis, options.repo), options.secret.toString('utf8')];
  const hide = (text: string) => redact(text, secrets);
  const say = options.log ?? (() => {});
  const log = (line: string) => say(showText(hide(line)));
  const shownRepo = redactUrl(options.repo);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const labels = [...new Set(options.labels ?? [])].sort();
  const maxLeafMs = options.maxLeafMs ?? 0;
  const { lockMs, stalledMs, retryMs } = timings(env);
  const dir = options.dir;
  const bare = join(dir, 'repo.git');
  const work = join(dir, 'work');
  mkdirSync(dir, { recursive: true });
  // What a killed worker left in this folder: its worktrees (their rounds went back to the queue).
  rmSync(work, { recursive: true, force: true });
  if (existsSync(bare)) await git(bare, ['worktree', 'prune'], env).catch(() => undefined);
  const once = serial();
  const held = new Map<string, { dir: string; head: string }>();
  // A second round of a ball in flight here (a rerun, a second engine) gets a worktree and state folder of its own.
  const inFlight = new Map<string, number>();
  let stopping = false;
  // A drain asked (leap workers drain): no round taken from now on is built here; those in hand are finished.
  let draining = false;
  let sayDrained: () => void = () => {};
  const drained = new Promise<void>((r) => {
    sayDrained = r;
  });
  // The rounds in hand, for the heartbeat (leap workers).
  const inHand = new Map<string, InHand>();
  // Jobs this worker handed back for its labels: said once each.
  const notMine = new Set<string>();
  const started = Date.now();

  const clone = () =>
    once(async () => {
      if (existsSync(bare)) return;
      const partial = `${bare}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      try {
        // The default branch only: the clone names no slice that `leap slice clean` would have to reach.
        await git(dir, ['clone', '--bare', '--single-branch', '--quiet', '--', options.repo, partial], env);
      } catch (error) {
        rmSync(partial, { recursive: true, force: true });
        throw new RemoteError((error as Error).message);
      }
      // Commits need an identity; a machine without one gets the worker's.
      const named = await git(partial, ['config', 'user.name'], env).then(
        (n) => n.trim() !== '',
        () => false,
      );
      if (!named) {
        await git(partial, ['config', 'user.name', 'leap worker'], env);
        await git(partial, ['config', 'user.email', `leap-worker@${hostname().replace(/[^A-Za-z0-9.-]/g, '-')}.invalid`], env);
      }
      renameSync(partial, bare);
    });

  // Already here, else fetched by its sha (one trip), else by the ball's branch (a server refusing to be asked a sha).
  const fetch = (slice: string, ball: string, commit: string) =>
    once(async () => {
      if (await hasCommit(bare, commit, env)) return;
      const branch = ballBranch(slice, ball);
      const bySha = await git(bare, ['fetch', '--quiet', '--no-write-fetch-head', '--', options.repo, commit], env).then(
        () => null,
        (error: Error) => error,
      );
      if (bySha !== null) {
        try {
          await git(bare, ['fetch', '--quiet', '--no-write-fetch-head', '--', options.repo, `+refs/heads/${branch}:refs/leap-remote/${branch}`], env);
        } catch (error) {
          // A remote that answers but lacks the commit is another repository than the engine's: no hand-back, a failure.
          const answers = await git(bare, ['ls-remote', '--heads', '--', options.repo], env).then(
            () => true,
            () => false,
          );
          // Not refused at once: a worker whose --repo is wrong must not fail a round a rightly set worker builds.
          if (answers) throw new Error(`the round's commit ${commit} is not on ${shownRepo} (branch ${branch} neither): is --repo the engine's remote?`);
          throw new RemoteError(`${bySha.message}; ${(error as Error).message}`);
        }
      }
      // The clone names no slice: the branch fetched is dropped once the commit is here.
      if (bySha !== null) await git(bare, ['update-ref', '-d', `refs/leap-remote/${branch}`], env).catch(() => undefined);
      if (!(await hasCommit(bare, commit, env))) throw new Error(`the round's commit ${commit} is not on ${shownRepo}: its branch ${branch} is elsewhere`);
    });

  const releasing = new Set<Promise<void>>();
  const release = async (key: string) => {
    const have = held.get(key);
    if (have === undefined) return;
    held.delete(key);
    // Through `once`, as every add: a worktree removed while another is added can make that add die.
    await once(() => retryWorktreeRace(() => git(bare, ['worktree', 'remove', '--force', '--force', have.dir], env))).catch(() => rmSync(have.dir, { recursive: true, force: true }));
  };
  // A ball's worktree given back after its result went out (the engine need not wait for it).
  const releaseLater = (key: string) => {
    const done: Promise<void> = release(key).finally(() => releasing.delete(done));
    releasing.add(done);
  };

  // The ball's own checkout, kept round to round, unless another round holds it (`own`: `BALL~TAG`, given back after).
  // Detached: two checkouts of one ball cannot share a branch; the tip is pushed by its sha.
  const checkout = async (slice: string, ball: string, commit: string, own: string | null): Promise<string> => {
    const key = `${slice}/${ball}`;
    const have = held.get(key);
    if (own === null && have !== undefined && have.head === commit) return have.dir;
    if (own === null) {
      await release(key);
      await Promise.all([...releasing]);
    }
    const place = join(work, slice, own === null ? ball : `${ball}~${own}`);
    rmSync(place, { recursive: true, force: true });
    mkdirSync(join(work, slice), { recursive: true });
    // Another worker process on this machine may share the clone: its worktree commands can race ours.
    await once(() => retryWorktreeRace(() => git(bare, ['worktree', 'add', '-q', '--detach', place, commit], env)));
    if (own === null) held.set(key, { dir: place, head: commit });
    return place;
  };
  const dropOwn = (place: string) =>
    once(() => retryWorktreeRace(() => git(bare, ['worktree', 'remove', '--force', '--force', place], env))).catch(() => rmSync(place, { recursive: true, force: true }));

  // Cloned while waiting; a remote out of reach is said at once, and the rounds go back to the queue until it is back.
  void clone().catch((error: Error) => log(`cannot clone the remote ${shownRepo}: ${error.message}; the rounds this worker takes go back to the queue until it can`));
  const { Worker, DelayedError, UnrecoverableError } = await import('bullmq');
  const { buildRoundIn } = await import('@leap/slice');
  const connection = await connect(options.redis);

  const processor = async (job: Job<Sealed, Sealed>, token?: string): Promise<Sealed> => {
    // Nothing is touched before the job is checked; a bad one fails at once (no retry) with every reason found.
    let checked: Awaited<ReturnType<typeof checkJobBody>>;
    try {
      if (job.data !== null && typeof job.data === 'object' && UNPARSABLE in job.data) throw new BadJobError("the job's data is not JSON");
      checked = await checkJobBody(unseal(options.secret, 'job', String(job.id), job.data), dir);
    } catch (error) {
      if (!(error instanceof BadJobError || error instanceof SignatureError)) throw error;
      const reason = hide(`refused: ${(error as Error).message}`);
      log(`job ${job.id ?? '?'}: ${reason}; nothing was run`);
      throw new UnrecoverableError(reason);
    }
    const { request: asked, body } = checked;
    const what = `${asked.slice}/${asked.ball} round ${asked.round}`;
    // A round whose families are not all this worker's labels goes back to the queue, no attempt spent.
    if (labels.length > 0) {
      const needs = body.families === undefined ? null : [body.families.builder, ...body.families.reviewers];
      const missing = needs === null ? null : [...new Set(needs.filter((f) => !labels.includes(f)))].sort();
      if (missing === null || missing.length > 0) {
        if (!notMine.has(String(job.id))) {
          notMine.add(String(job.id));
          log(
            `${what}: not for this worker (${missing === null ? 'the job names no agent families' : `it needs the famil${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')}`}; this worker's labels: ${labels.join(', ')}); handed back, no attempt spent`,
          );
        }
        await job.moveToDelayed(Date.now() + LABEL_STEP_ASIDE_MS, token);
        throw new DelayedError();
      }
    }
    if (draining || (await heart.drainAsked())) {
      log(`${what}: handed back (this worker is drained: it takes no more rounds); another worker builds the round`);
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    // Caps the proofs' limit (timeoutMs, 0: none) and the agent leaves' (VERI_TIMEOUT, which their supervisor reads).
    const capped = maxLeafMs > 0;
    const request = capped && (asked.timeoutMs === 0 || asked.timeoutMs > maxLeafMs) ? { ...asked, timeoutMs: maxLeafMs } : asked;
    // Whatever kills this worker, its leaves' supervisors' lifeline ends them (docs/decisions/lifeline.md).
    const leafEnv = capped ? capLeafTime(roundEnv(env), maxLeafMs) : roundEnv(env);
    const t0 = Date.now();
    const hand: InHand = { job: String(job.id), slice: request.slice, ball: request.ball, round: request.round, since: t0 };
    inHand.set(String(job.id), hand);
    // Where the round is, as BullMQ's job progress (signed: the engine shows only what it can check) and in the heartbeat.
    const phase = (next: Phase) => {
      hand.phase = next;
      heart.beatNow();
      void job.updateProgress(sealProgress(options.secret, String(job.id), next, Date.now())).catch(() => undefined);
    };
    phase('taken');
    log(
      `${what}: taken (job ${job.id}, from ${request.commit.slice(0, 12)}${job.attemptsMade > 0 || (job.stalledCounter ?? 0) > 0 ? ', again' : ''}${capped ? `, each leaf cut at ${(maxLeafMs / 1000).toFixed(1)} s by --max-leaf` : ''})`,
    );
    let result: RoundJobResult;
    const key = `${request.slice}/${request.ball}`;
    // `~` is in no ball id: a second round's folders cannot be another ball's.
    const own = inFlight.has(key) ? `${request.round}-${randomBytes(4).toString('hex')}` : null;
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    let ownPlace: string | null = null;
    try {
      phase('fetching');
      await clone();
      await fetch(request.slice, request.ball, request.commit);
      const place = await checkout(request.slice, request.ball, request.commit, own);
      if (own !== null) ownPlace = place;
      const stateDir = join(dir, 'state', request.slice, own === null ? request.ball : `${request.ball}~${own}`);
      mkdirSync(stateDir, { recursive: true });
      const events = statePaths(stateDir).events;
      const from = existsSync(events) ? statSync(events).size : 0;
      phase('building');
      const watch = watchRoundPhases(events, from, 'building', phase);
      const built = await buildRoundIn({ dir: place, stateDir, env: leafEnv }, { ...request, agentsFile: options.agents ?? null }).finally(() => watch.stop());
      // Asked to stop while a leaf ran: the leaf was ended, so the round is not the builder's; another worker builds it.
      if (stopping && built.receipt === 0) throw new StoppedError(built.builder.status === 'killed-signal' ? `its builder leaf ${built.builder.leaf} was ended` : built.reason);
      // A lapsed lock: another worker has the job; this result is dropped before anything leaves the machine.
      if ((await job.extendLock(token as string, lockMs)) !== 1) throw new LockLostError();
      const tip = (await git(place, ['rev-parse', 'HEAD'], env)).trim();
      const added = existsSync(events) ? readFileSync(events).subarray(from).toString('utf8') : '';
      phase('pushing');
      try {
        await once(() => git(place, ['push', '--quiet', '--force', '--', options.repo, `${tip}:refs/heads/${ballBranch(request.slice, request.ball)}`], env));
      } catch (error) {
        throw new PushError((error as Error).message);
      }
      if (own === null) held.set(key, { dir: place, head: tip });
      result = { v: 1, ...built, worker: name, tip, events: added.split('\n').filter((l) => l !== '') };
      // The ball ended (a receipt): its worktree is given back; a round without one keeps it for the next.
      if (built.receipt !== null && own === null) releaseLater(key);
    } catch (error) {
      if (own === null) await release(key);
      if (error instanceof StoppedError) {
        log(`${what}: handed back (this worker was asked to stop and ${error.message}); another worker builds the round`);
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      if (error instanceof LockLostError) {
        log(`${what}: lost the job's lock while the round ran (this worker was paused or cut off longer than the lock): another worker has the round; this result is dropped, nothing pushed`);
        // Not this worker's job to move: BullMQ leaves a DelayedError's job where it is.
        throw new DelayedError();
      }
      if (error instanceof PushError) {
        const attempts = job.opts.attempts ?? 1;
        log(
          `${what}: built, but cannot push to the remote ${shownRepo}: ${error.message}; attempt ${job.attemptsMade + 1} of ${attempts} spent${job.attemptsMade + 1 < attempts ? ", the round is tried again after the job's backoff" : ', the round fails'}`,
        );
        throw new Error(hide(`the round's work could not be pushed to the remote: ${error.message}`));
      }
      if (!(error instanceof RemoteError)) {
        log(`${what}: failed: ${(error as Error).message}`);
        // What Redis keeps (and the engine reads) holds no secret either.
        if (error instanceof UnrecoverableError) throw error;
        throw new Error(hide((error as Error).message));
      }
      log(`${what}: cannot reach the remote ${shownRepo}: ${error.message}; the job goes back to the queue, this worker waits ${(retryMs / 1000).toFixed(1)} s`);
      await job.moveToDelayed(Date.now() + Math.min(retryMs, 1000), token);
      // Step aside so a worker that reaches the remote takes the job.
      void worker.pause(true).then(() => setTimeout(() => worker.resume(), retryMs).unref());
      throw new DelayedError();
    } finally {
      inHand.delete(String(job.id));
      heart.beatNow();
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left === 0) inFlight.delete(key);
      else inFlight.set(key, left);
      if (ownPlace !== null) await dropOwn(ownPlace);
    }
    log(
      `${what}: ${result.dry !== undefined ? `the builder ${result.builder.agent} ran dry (${result.dry.kind}): nothing built, the engine's next builder takes the round` : result.receipt === null ? 'no pass' : `receipt ${result.receipt}`}${result.candidate === null ? '' : ` (candidate ${result.candidate.slice(0, 12)})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s; pushed ${ballBranch(request.slice, request.ball)} at ${result.tip.slice(0, 12)}`,
    );
    return seal(options.secret, 'result', String(job.id), result);
  };

  // A job whose data is not JSON is given to the processor as a marker, refused there, and fails at once.
  class CheckedWorker extends Worker<Sealed, Sealed> {
    protected override createJob(data: JobJson, jobId: string) {
      try {
        return super.createJob(data, jobId);
      } catch {
        return super.createJob({ ...data, data: JSON.stringify({ [UNPARSABLE]: true }) }, jobId);
      }
    }
    /** Ends the lock renewal at once: BullMQ's close ends it only after waiting on Redis, and its timer re-arms for ever. */
    stopLockRenewal(): Promise<void> {
      return this.lockManager.close();
    }
  }
  const worker = new CheckedWorker(QUEUE, processor, {
    connection,
    prefix: PREFIX,
    concurrency: Math.max(1, options.jobs ?? 1),
    lockDuration: lockMs,
    stalledInterval: stalledMs,
    // A round cut off by a dead worker goes to another twice before it fails (and its ball is held).
    maxStalledCount: 2,
    autorun: false,
    // BullMQ names the worker's Redis connections after it, and Redis takes only printable ASCII without spaces there.
    name: clientSafeName(name),
  });
  let lastError = '';
  // Said once per job (the renewal is tried every half lock while the round runs on).
  const lapsed = new Set<string>();
  worker.on('lockRenewalFailed', (ids: string[]) => {
    for (const id of ids) {
      if (lapsed.has(id)) continue;
      lapsed.add(id);
      log(`job ${id}: its lock could not be renewed (this worker was paused or cut off longer than the lock); the stalled check gives the round to another worker`);
    }
  });
  worker.on('error', (error: Error) => {
    // Said by the lockRenewalFailed line; a lost lock's refused completion is said by the round's line.
    if (/^could not renew lock for job |^Lock mismatch for job |^Missing lock for job /.test(error.message)) return;
    if (error.message === lastError) return;
    lastError = error.message;
    log(`redis: ${error.message} (retrying)`);
  });
  const { beatMs, ttlMs } = heartbeatTimings(env);
  const host = hostname();
  const heart = startHeartbeat(
    connection,
    options.secret,
    () => ({ v: 1, name, host, pid: process.pid, labels, jobs: Math.max(1, options.jobs ?? 1), started, beat: Date.now(), ttlMs, draining, inHand: [...inHand.values()] }),
    beatMs,
    () => {
      draining = true;
      log(`drain asked: finishing the ${inHand.size} round(s) in hand, taking no more`);
      heart.beatNow();
      sayDrained();
    },
    () => log(`a drain flag for ${name} in Redis is not signed with the queue secret: ignored (anyone with Redis access can write one; leap workers drain signs its own)`),
  );
  // Its record first (a drain flag left by a worker of this name before cleared), then the first job.
  await heart.start();
  void worker.run().catch((error: Error) => log(`stopped: ${error.message}`));
  await worker.waitUntilReady();
  log(
    `${name}: waiting for rounds on ${redactUrl(options.redis)} (queue ${QUEUE}), --jobs ${Math.max(1, options.jobs ?? 1)}, remote ${shownRepo}, folder ${dir}${options.agents === undefined ? '' : `, agents ${options.agents}`}${labels.length === 0 ? '' : `, labels ${labels.join(', ')}`}${maxLeafMs > 0 ? `, --max-leaf ${(maxLeafMs / 1000).toFixed(1)} s` : ''}`,
  );
  return {
    name,
    drained,
    signalled() {
      stopping = true;
    },
    async close(closeOptions = {}) {
      if (closeOptions.drain !== true) stopping = true;
      draining = true;
      heart.beatNow();
      // BullMQ's close waits for ever on a gone Redis; the rounds' locks lapse, another worker takes them later.
      const closing = worker.close().then(
        () => true,
        () => true,
      );
      const redisAnswered = await Promise.race([closing, redisGone(connection).then(() => false)]);
      if (!redisAnswered) {
        log(`Redis at ${redactUrl(options.redis)} does not answer: not waiting for it (the rounds in flight go to another worker once it is back)`);
        // Nothing of BullMQ's may keep the process alive: its lock renewal re-arms itself for ever.
        void worker.stopLockRenewal();
        void worker.disconnect().catch(() => undefined);
      }
      // A worker stopped cleanly is not listed (a killed one's record stays, its heartbeat aging: dead).
      await heart.stop(redisAnswered);
      await Promise.all([...releasing]);
      for (const key of [...held.keys()]) await release(key);
      await git(bare, ['worktree', 'prune'], env).catch(() => undefined);
      connection.disconnect();
    },
  };
}

/** Resolves once `connection` is not connected (at once when it is not now): Redis stopped, unreachable, or cut off. */
function redisGone(connection: import('ioredis').Redis): Promise<void> {
  if (connection.status !== 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    connection.once('close', () => resolve());
    connection.once('end', () => resolve());
  });
}

/** `env` with VERI_TIMEOUT (each agent leaf's time limit) no longer than `maxMs`. */
function capLeafTime(env: NodeJS.ProcessEnv, maxMs: number): NodeJS.ProcessEnv {
  let own: number;
  try {
    own = readTimeLimit(null, null, env).ms;
  } catch {
    own = 0;
  }
  return { ...env, VERI_TIMEOUT: `${(own === 0 ? maxMs : Math.min(own, maxMs)) / 1000}` };
}
