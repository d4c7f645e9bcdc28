// @leap/slice: the LEAP engine. The definition side (the slice file, its rules, waves, hashes, the
// file-map check) and the run engine (runSlice, the local runner, the round in the order of trust).
export * from './definition/index.js';
export { lockSlice, liveEngine, sliceDir, sliceLockFile } from './slice-lock.js';
export { reapSlice, sliceWorktrees } from './reap.js';
export { runSlice } from './engine/run-slice.js';
export { sliceExitCode } from './exit-code.js';
export type { BallSummary, RunSliceOptions, RunSummary } from './engine/run-slice.js';
export { buildRoundIn } from './engine/build-round.js';
export type { RoundPlace } from './engine/build-round.js';
export type { RoundRequest, RoundResult, SliceRunner } from './engine/round-types.js';
export { createLocalRunner } from './runner/local-runner.js';
export type { LocalRunnerOptions } from './runner/local-runner.js';
export { keepOrRevert } from './engine/keep-or-revert.js';
export { candidateAt } from './engine/candidate-at.js';
export { changesOutsideLines } from './engine/checkout.js';
export { proofLeaves, readMetric, runProof } from './engine/proof.js';
export { renderBuilderPrompt } from './engine/prompt.js';
export { renderCheckpoint } from './engine/checkpoint.js';
export { renderSummary } from './engine/summary.js';
export { slicePaths } from './engine/records.js';
export type { JurySummary, ProofRun, ResultRecord, RoundRecord, RunRecord } from './engine/records.js';
