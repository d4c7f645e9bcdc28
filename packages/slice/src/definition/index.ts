// The slice file (CONTRACT section 7) read, validated and planned; scope hashes; the file-map check. No zod or ajv.
export { readSlice, loadSliceFile, SliceFileError, type LoadedSlice, type ReadSliceOptions } from './read-slice.js';
export { validateSlice, type ValidateOptions } from './validate-slice.js';
export type { Violation } from './violation.js';
export { RESERVED_BALL_IDS, refNameProblem } from './slice-rules.js';
export { planWaves, dependencyCycles } from './plan-waves.js';
export { hashFile } from './hash-file.js';
export { checkFileMap, type CheckFileMapOptions, type FileMapCheck } from './check-file-map.js';
export { resolveInRepo, type PathState } from './resolve-in-repo.js';
export { requireRepoRoot } from './repo-root.js';
export { normalizeScopePath, scopePathProblem } from './scope-path.js';
export { foldsCase } from './case-folding.js';
export { ID_PATTERN } from './slice-id.js';
export type { Ball, LiveProof, MetricField, Proof, Receipt, ScopeEntry, Slice } from './slice-schema.js';
