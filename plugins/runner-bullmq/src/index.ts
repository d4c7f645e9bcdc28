export { createBullmqRunner, type BullmqRunnerOptions } from './runner.js';
export { runner } from './slice-runner.js';
export { startWorker, type RunningWorker, type WorkerOptions } from './worker.js';
export { PREFIX, QUEUE, jobId, timings } from './protocol.js';
export { checkRedisUrl, ping } from './redis.js';
export { checkRemote } from './remote.js';
export { readQueueSecret, seal, unseal } from './sign.js';
export { drainWorkers, forgetWorkers, listWorkers, pauseQueue } from './workers.js';
export type { Forgotten, WorkerView, WorkersView } from './workers.js';
