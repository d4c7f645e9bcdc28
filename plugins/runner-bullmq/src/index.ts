// @leap/runner-bullmq: LEAP balls on BullMQ workers over Redis: the runner (the engine's side) and the worker.
export { createBullmqRunner } from './runner.js';
export { runner } from './slice-runner.js';
export type { BullmqRunnerOptions } from './runner.js';
export { startWorker } from './worker.js';
export type { RunningWorker, WorkerOptions } from './worker.js';
export { PREFIX, QUEUE, jobId, timings } from './protocol.js';
export type { RoundJob, RoundJobResult } from './protocol.js';
export { checkRedisUrl, ping } from './redis.js';
export { checkRemote } from './remote.js';
export { MIN_SECRET, SignatureError, readQueueSecret, seal, unseal } from './sign.js';
export type { Sealed } from './sign.js';
export type { RoundJobBody, RoundResultBody } from './job-schema.js';
export { drainWorkers, forgetWorkers, listWorkers, pauseQueue } from './workers.js';
export type { Forgotten, WorkerView, WorkersView } from './workers.js';
