// @leap/slice: the slice file's definition side and the run engine (runSlice, the local runner, the round).
export * from './definition/index.js';
export { runSlice, renderSummary } from './engine/run-slice.js';
export { buildRoundIn } from './engine/build-round.js';
export { createLocalRunner } from './runner/local-runner.js';
export { candidateAt, changesOutsideLines } from './engine/checkout.js';
export { keepOrRevert, proofLeaves, readMetric } from './engine/proof.js';
export { renderCheckpoint } from './engine/ball-records.js';
export { slicePaths, type ProofRun, type ResultRecord, type RoundRecord, type RunRecord } from './engine/records.js';
export type { RoundRequest, RoundResult, SliceRunner } from './engine/records.js';
