// One job on a worker: checked, handed back, or built in the ball's worktree, pushed, and its result signed.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonObject, orElse, readTimeLimit, statePaths, type RoundPhase as Phase } from '@leap/core';
import type { RoundRequest } from '@leap/slice';
import type { Job } from 'bullmq';
import { RemoteError } from './clone.js';
import { git } from './git.js';
import type { InHand } from './heartbeat.js';
import { BadJobError, checkJobBody, type RoundJobBody } from './job-schema.js';
import { notForLabels } from './labels.js';
import { sealProgress, watchRoundPhases } from './progress.js';
import { ballBranch, roundEnv, type RoundJobResult } from './protocol.js';
import { SignatureError, seal, unseal, type Sealed } from './sign.js';
import type { WorkerState } from './worker.js';

/** What a job whose data is not JSON carries instead (BullMQ would throw on it and leave the job active). */
export const UNPARSABLE = '__leapUnparsable';
/** A round whose leaf the stop signal ended: given back, not returned. */
class StoppedError extends Error {}
/** Spends one of the job's attempts: a remote refusing every push cannot loop for ever. */
class PushError extends Error {}
/** A round finished after its job's lock lapsed: the job is another worker's now. */
class LockLostError extends Error {}

// `own`: the tag of its own worktree and state folder (another round of its ball is in flight); null: the ball's.
type Round = { job: Job<Sealed, Sealed>; token: string | undefined; request: Omit<RoundRequest, 'agentsFile'> } & {
  what: string;
  key: string;
  own: string | null;
  place: string | null;
  phase: (next: Phase) => void;
};

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const CUT_OFF = 'this worker was paused or cut off longer than the lock';

/** BullMQ's processor: the job's signed result, or an error saying why not (a DelayedError: handed back). */
export async function runJob(w: WorkerState, job: Job<Sealed, Sealed>, token?: string): Promise<Sealed> {
  const { request: asked, body } = await readJob(w, job);
  const what = `${asked.slice}/${asked.ball} round ${asked.round}`;
  await handBackUnlessOurs(w, body, what, job, token);
  // Caps the proofs' limit (timeoutMs, 0: none) and the agent leaves' (VERI_TIMEOUT, which their supervisor reads).
  const capped = w.maxLeafMs > 0 && (asked.timeoutMs === 0 || asked.timeoutMs > w.maxLeafMs);
  const request = capped ? { ...asked, timeoutMs: w.maxLeafMs } : asked;
  const t0 = Date.now();
  const { slice, ball, round: n } = request;
  const hand: InHand = { job: String(job.id), slice, ball, round: n, since: t0 };
  w.inHand.set(hand.job, hand);
  const phase = (next: Phase) => setPhase(w, job, hand, next);
  phase('taken');
  const again = job.attemptsMade > 0 || (job.stalledCounter ?? 0) > 0 ? ', again' : '';
  const cut = w.maxLeafMs > 0 ? `, each leaf cut at ${seconds(w.maxLeafMs)} by --max-leaf` : '';
  w.log(`${what}: taken (job ${job.id}, from ${request.commit.slice(0, 12)}${again}${cut})`);
  const key = `${slice}/${ball}`;
  const round: Round = { job, token, request, what, key, own: w.clone.enter(key, n), place: null, phase };
  let result: RoundJobResult;
  try {
    result = await buildAndPush(w, round);
  } catch (error) {
    if (round.own === null) await w.clone.release(key);
    throw await failure(w, round, error);
  } finally {
    w.inHand.delete(hand.job);
    w.heart.beatNow();
    w.clone.leave(key);
    if (round.own !== null && round.place !== null) await w.clone.remove(round.place);
  }
  const pushed = `pushed ${ballBranch(slice, ball)} at ${result.tip.slice(0, 12)}`;
  w.log(`${what}: ${outcome(result)} in ${seconds(Date.now() - t0)}; ${pushed}`);
  return seal(w.secret, 'result', hand.job, result);
}

/** Nothing is touched before the job is checked; a bad one fails at once (no retry) with every reason found. */
async function readJob(w: WorkerState, job: Job<Sealed, Sealed>) {
  try {
    if (isJsonObject(job.data) && UNPARSABLE in job.data) throw new BadJobError("the job's data is not JSON");
    return await checkJobBody(unseal(w.secret, 'job', String(job.id), job.data), w.dir);
  } catch (error) {
    if (!(error instanceof BadJobError || error instanceof SignatureError)) throw error;
    const reason = w.hide(`refused: ${error.message}`);
    w.log(`job ${job.id ?? '?'}: ${reason}; nothing was run`);
    throw new w.bull.UnrecoverableError(reason);
  }
}

/** A round not for this worker's labels, or taken once it drains, goes back to the queue, no attempt spent. */
async function handBackUnlessOurs(w: WorkerState, body: RoundJobBody, what: string, job: Job, token?: string) {
  const why = notForLabels(w.labels, body.families);
  if (why !== null) {
    if (!w.notMine.has(String(job.id))) w.log(`${what}: not for this worker (${why}); handed back, no attempt spent`);
    w.notMine.add(String(job.id));
    await job.moveToDelayed(Date.now() + 250, token);
    throw new w.bull.DelayedError();
  }
  if (w.draining || (await w.heart.drainAsked())) {
    w.log(`${what}: handed back (this worker is drained: it takes no more rounds); another worker builds the round`);
    await job.moveToDelayed(Date.now(), token);
    throw new w.bull.DelayedError();
  }
}

// Where the round is, as BullMQ's job progress (signed: the engine shows only what it can check) and in the heartbeat.
function setPhase(w: WorkerState, job: Job, hand: InHand, next: Phase): void {
  hand.phase = next;
  w.heart.beatNow();
  void job.updateProgress(sealProgress(w.secret, hand.job, next, Date.now())).catch(() => undefined);
}

async function buildAndPush(w: WorkerState, round: Round): Promise<RoundJobResult> {
  const { request, own, key } = round;
  round.phase('fetching');
  await w.clone.clone();
  await w.clone.fetch(request.slice, request.ball, request.commit);
  const place = await w.clone.checkout(request.slice, request.ball, request.commit, own);
  round.place = place;
  const stateDir = join(w.dir, 'state', request.slice, own === null ? request.ball : `${request.ball}~${own}`);
  mkdirSync(stateDir, { recursive: true });
  const events = statePaths(stateDir).events;
  const from = existsSync(events) ? statSync(events).size : 0;
  round.phase('building');
  const watch = watchRoundPhases(events, from, 'building', round.phase);
  // Whatever kills this worker, its leaves' supervisors' lifeline ends them (docs/decisions/lifeline.md).
  const env = w.maxLeafMs > 0 ? capLeafTime(roundEnv(w.env), w.maxLeafMs) : roundEnv(w.env);
  const asked = { ...request, agentsFile: w.agents ?? null };
  const built = await w.buildRoundIn({ dir: place, stateDir, env }, asked).finally(() => watch.stop());
  // Asked to stop while a leaf ran: the leaf was ended, so the round is not the builder's; another worker builds it.
  if (w.stopping && built.receipt === 0) {
    const { status, leaf } = built.builder;
    throw new StoppedError(status === 'killed-signal' ? `its builder leaf ${leaf} was ended` : built.reason);
  }
  // A lapsed lock: another worker has the job; this result is dropped before anything leaves the machine.
  if ((await round.job.extendLock(round.token as string, w.lockMs)) !== 1) throw new LockLostError();
  const tip = (await git(place, ['rev-parse', 'HEAD'], w.env)).trim();
  const added = existsSync(events) ? readFileSync(events).subarray(from).toString('utf8') : '';
  round.phase('pushing');
  await w.clone.push(place, tip, ballBranch(request.slice, request.ball)).catch((error: Error) => {
    throw new PushError(error.message);
  });
  if (own === null) w.clone.held.set(key, { dir: place, head: tip });
  // The ball ended (a receipt): its worktree is given back; a round without one keeps it for the next.
  if (built.receipt !== null && own === null) w.clone.releaseLater(key);
  return { v: 1, ...built, worker: w.name, tip, events: added.split('\n').filter((l) => l !== '') };
}

/** What a round that did not come back throws, said: a DelayedError (handed back) or the job's failure. */
async function failure(w: WorkerState, { job, token, what }: Round, error: unknown): Promise<Error> {
  if (error instanceof StoppedError) {
    w.log(`${what}: handed back (this worker was asked to stop and ${error.message}); another worker builds the round`);
    await job.moveToDelayed(Date.now(), token);
    return new w.bull.DelayedError();
  }
  if (error instanceof LockLostError) {
    const dropped = 'another worker has the round; this result is dropped, nothing pushed';
    w.log(`${what}: lost the job's lock while the round ran (${CUT_OFF}): ${dropped}`);
    // Not this worker's job to move: BullMQ leaves a DelayedError's job where it is.
    return new w.bull.DelayedError();
  }
  if (error instanceof PushError) {
    const attempts = job.opts.attempts ?? 1;
    const spent = `attempt ${job.attemptsMade + 1} of ${attempts} spent`;
    const again = ", the round is tried again after the job's backoff";
    const next = job.attemptsMade + 1 < attempts ? again : ', the round fails';
    w.log(`${what}: built, but cannot push to the remote ${w.shownRepo}: ${error.message}; ${spent}${next}`);
    return new Error(w.hide(`the round's work could not be pushed to the remote: ${error.message}`));
  }
  if (!(error instanceof RemoteError)) {
    w.log(`${what}: failed: ${(error as Error).message}`);
    // What Redis keeps (and the engine reads) holds no secret either.
    return error instanceof w.bull.UnrecoverableError ? error : new Error(w.hide((error as Error).message));
  }
  const waits = `the job goes back to the queue, this worker waits ${seconds(w.retryMs)}`;
  w.log(`${what}: cannot reach the remote ${w.shownRepo}: ${error.message}; ${waits}`);
  await job.moveToDelayed(Date.now() + Math.min(w.retryMs, 1000), token);
  // Takes no job for a while: a worker that reaches the remote takes it.
  void w.worker.pause(true).then(() => setTimeout(() => w.worker.resume(), w.retryMs).unref());
  return new w.bull.DelayedError();
}

function outcome({ dry, builder, receipt, candidate }: RoundJobResult): string {
  const of = candidate === null ? '' : ` (candidate ${candidate.slice(0, 12)})`;
  const next = "nothing built, the engine's next builder takes the round";
  if (dry !== undefined) return `the builder ${builder.agent} ran dry (${dry.kind}): ${next}${of}`;
  return `${receipt === null ? 'no pass' : `receipt ${receipt}`}${of}`;
}

function capLeafTime(env: NodeJS.ProcessEnv, maxMs: number): NodeJS.ProcessEnv {
  const own = orElse(() => readTimeLimit(null, null, env).ms, 0);
  return { ...env, VERI_TIMEOUT: `${(own === 0 ? maxMs : Math.min(own, maxMs)) / 1000}` };
}
