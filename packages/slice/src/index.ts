// @leap/slice: the slice file's definition side and the run engine (runSlice, the local runner, the round).
export * from './definition/index.js';
export { lockSlice, liveEngine, sliceDir, sliceLockFile } from './slice-lock.js';
export { reapSlice, sliceWorktrees } from './reap.js';
export { runSlice, type BallSummary, type RunSliceOptions, type RunSummary } from './engine/run-slice.js';
export { sliceExitCode } from './exit-code.js';
export { buildRoundIn, type RoundPlace } from './engine/build-round.js';
export type { RoundRequest, RoundResult, SliceRunner } from './engine/round-types.js';
export { createLocalRunner, type LocalRunnerOptions } from './runner/local-runner.js';
export { keepOrRevert } from './engine/keep-or-revert.js';
export { candidateAt } from './engine/candidate-at.js';
export { changesOutsideLines } from './engine/checkout.js';
export { proofLeaves, readMetric, runProof } from './engine/proof.js';
export { renderBuilderPrompt } from './engine/prompt.js';
export { renderCheckpoint } from './engine/checkpoint.js';
export { renderSummary } from './engine/summary.js';
export { slicePaths, type JurySummary, type ProofRun, type ResultRecord, type RoundRecord } from './engine/records.js';
export type { RunRecord } from './engine/records.js';
