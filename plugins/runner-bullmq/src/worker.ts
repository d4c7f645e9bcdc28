// `leap worker` as a library: takes round jobs from the queue, builds each in a worktree of its own clone of
// the shared remote (at the round's commit: the ball's base plus its dependencies' merged work, plus its earlier
// rounds), runs the round exactly as the local runner does (buildRoundIn: the builder leaf, the proof, the
// jury), pushes leap/SLICE/BALL to the remote and returns the round's result.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { retryWorktreeRace, serial, statePaths } from '@leap/core';
import type { Job } from 'bullmq';
import { git, hasCommit } from './git.js';
import { PREFIX, QUEUE, ballBranch, timings, type RoundJob, type RoundJobResult } from './protocol.js';
import { connect } from './redis.js';

/** Options of `startWorker`. */
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
  env?: NodeJS.ProcessEnv;
  /** One line per job event. */
  log?: (line: string) => void;
}

/** A running worker. */
export interface RunningWorker {
  readonly name: string;
  /** Take no more jobs, finish those in flight, give back the worktrees. */
  close(): Promise<void>;
}

/** A remote the worker could not reach: the job goes back to the queue for another worker. */
class RemoteError extends Error {}

/** A round whose leaf the stop signal ended (the supervisor ends its leaf on TERM or INT): given back, not returned. */
class StoppedError extends Error {}

/** A round finished after its job's lock lapsed (this worker paused or cut off): the job is another worker's now. */
class LockLostError extends Error {}

/** Start taking jobs; resolves once the worker is connected and listening. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const name = options.name ?? `${hostname()}:${process.pid}`;
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
  let stopping = false;

  const clone = () => once(async () => {
    if (existsSync(bare)) return;
    const partial = `${bare}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    try {
      await git(dir, ['clone', '--bare', '--quiet', '--', options.repo, partial], env);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      throw new RemoteError((error as Error).message);
    }
    // Commits need an identity; a machine without one gets the worker's.
    const named = await git(partial, ['config', 'user.name'], env).then((n) => n.trim() !== '', () => false);
    if (!named) {
      await git(partial, ['config', 'user.name', 'leap worker'], env);
      await git(partial, ['config', 'user.email', `leap-worker@${hostname().replace(/[^A-Za-z0-9.-]/g, '-')}.invalid`], env);
    }
    renameSync(partial, bare);
  });

  // The round's commit: already here (an earlier round, the base), else fetched by its sha (one trip), else by
  // the ball's branch (for a server that refuses to be asked for a sha).
  const fetch = (slice: string, ball: string, commit: string) => once(async () => {
    if (await hasCommit(bare, commit, env)) return;
    const branch = ballBranch(slice, ball);
    const bySha = await git(bare, ['fetch', '--quiet', '--no-write-fetch-head', '--', options.repo, commit], env).then(() => null, (error: Error) => error);
    if (bySha !== null) {
      try {
        await git(bare, ['fetch', '--quiet', '--no-write-fetch-head', '--', options.repo, `+refs/heads/${branch}:refs/leap-remote/${branch}`], env);
      } catch (error) {
        // A remote that answers but lacks the commit is another repository than the engine's: no hand-back, a failure.
        const answers = await git(bare, ['ls-remote', '--heads', '--', options.repo], env).then(() => true, () => false);
        if (answers) throw new Error(`the round's commit ${commit} is not on ${options.repo} (branch ${branch} neither): is --repo the engine's remote?`);
        throw new RemoteError(`${bySha.message}; ${(error as Error).message}`);
      }
    }
    if (!(await hasCommit(bare, commit, env))) throw new Error(`the round's commit ${commit} is not on ${options.repo}: its branch ${branch} is elsewhere`);
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

  const checkout = async (slice: string, ball: string, commit: string): Promise<string> => {
    const key = `${slice}/${ball}`;
    const have = held.get(key);
    if (have !== undefined && have.head === commit) return have.dir;
    await release(key);
    await Promise.all([...releasing]);
    const place = join(work, slice, ball);
    rmSync(place, { recursive: true, force: true });
    mkdirSync(join(work, slice), { recursive: true });
    // Another worker process on this machine may share the clone: its worktree commands can race ours.
    await once(() => retryWorktreeRace(() => git(bare, ['worktree', 'add', '-q', '-B', ballBranch(slice, ball), place, commit], env)));
    held.set(key, { dir: place, head: commit });
    return place;
  };

  const agentsFile = (agents: RoundJob['agents']): string | null => {
    if (agents === null) return null;
    const file = join(dir, 'agents', `${createHash('sha256').update(agents.text).digest('hex').slice(0, 16)}.json`);
    if (!existsSync(file)) {
      mkdirSync(join(dir, 'agents'), { recursive: true });
      writeFileSync(file, agents.text);
    }
    return file;
  };

  // The clone made while the worker waits for its first job (a failure is said when a job needs it).
  void clone().catch(() => undefined);
  const { Worker, DelayedError } = await import('bullmq');
  const { buildRoundIn } = await import('@leap/slice');
  const connection = await connect(options.redis);

  const processor = async (job: Job<RoundJob, RoundJobResult>, token?: string): Promise<RoundJobResult> => {
    const { request, agents } = job.data;
    const what = `${request.slice}/${request.ball} round ${request.round}`;
    const t0 = Date.now();
    log(`${what}: taken (job ${job.id}, from ${request.commit.slice(0, 12)}${job.attemptsMade > 0 || (job.stalledCounter ?? 0) > 0 ? ', again' : ''})`);
    let result: RoundJobResult;
    try {
      await clone();
      await fetch(request.slice, request.ball, request.commit);
      const place = await checkout(request.slice, request.ball, request.commit);
      const stateDir = join(dir, 'state', request.slice, request.ball);
      mkdirSync(stateDir, { recursive: true });
      const events = statePaths(stateDir).events;
      const from = existsSync(events) ? statSync(events).size : 0;
      const built = await buildRoundIn({ dir: place, stateDir, env }, { ...request, agentsFile: agentsFile(agents) });
      // Asked to stop while a leaf ran: the leaf was ended, so the round is not the builder's; another worker builds it.
      if (stopping && built.receipt === 0) throw new StoppedError(built.builder.status === 'killed-signal' ? `its builder leaf ${built.builder.leaf} was ended` : built.reason);
      // A lapsed lock: the stalled check gave the job to another worker, whose result is the round's. This one is
      // dropped before anything leaves the machine (the remote's ball branch stays the recorded round's).
      if ((await job.extendLock(token as string, lockMs)) !== 1) throw new LockLostError();
      const tip = (await git(place, ['rev-parse', 'HEAD'], env)).trim();
      const added = existsSync(events) ? readFileSync(events).subarray(from).toString('utf8') : '';
      try {
        await once(() => git(place, ['push', '--quiet', '--force', '--', options.repo, `${tip}:refs/heads/${ballBranch(request.slice, request.ball)}`], env));
      } catch (error) {
        throw new RemoteError((error as Error).message);
      }
      held.set(`${request.slice}/${request.ball}`, { dir: place, head: tip });
      result = { ...built, worker: name, tip, events: added.split('\n').filter((l) => l !== '') };
      // The ball ended (a receipt): its worktree is given back; a round without one keeps it for the next.
      if (built.receipt !== null) releaseLater(`${request.slice}/${request.ball}`);
    } catch (error) {
      await release(`${request.slice}/${request.ball}`);
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
      if (!(error instanceof RemoteError)) {
        log(`${what}: failed: ${(error as Error).message}`);
        throw error;
      }
      log(`${what}: cannot reach the remote ${options.repo}: ${error.message}; the job goes back to the queue, this worker waits ${(retryMs / 1000).toFixed(1)} s`);
      await job.moveToDelayed(Date.now() + Math.min(retryMs, 1000), token);
      // Step aside so a worker that reaches the remote takes the job.
      void worker.pause(true).then(() => setTimeout(() => worker.resume(), retryMs).unref());
      throw new DelayedError();
    }
    log(`${what}: ${result.receipt === null ? 'no pass' : `receipt ${result.receipt}`}${result.candidate === null ? '' : ` (candidate ${result.candidate.slice(0, 12)})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s; pushed ${ballBranch(request.slice, request.ball)} at ${result.tip.slice(0, 12)}`);
    return result;
  };

  const worker = new Worker<RoundJob, RoundJobResult>(QUEUE, processor, {
    connection, prefix: PREFIX, concurrency: Math.max(1, options.jobs ?? 1), lockDuration: lockMs, stalledInterval: stalledMs,
    // A round cut off by a dead worker goes to another twice before it fails (and its ball is held).
    maxStalledCount: 2, autorun: false, name,
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
  void worker.run().catch((error: Error) => log(`stopped: ${error.message}`));
  await worker.waitUntilReady();
  log(`${name}: waiting for rounds on ${options.redis} (queue ${QUEUE}), --jobs ${Math.max(1, options.jobs ?? 1)}, remote ${options.repo}, folder ${dir}`);
  return {
    name,
    async close() {
      stopping = true;
      await worker.close();
      await Promise.all([...releasing]);
      for (const key of [...held.keys()]) await release(key);
      await git(bare, ['worktree', 'prune'], env).catch(() => undefined);
      connection.disconnect();
    },
  };
}
