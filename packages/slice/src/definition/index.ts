// The slice file (CONTRACT section 7) read, validated and planned; scope hashes; the file-map check. No zod or ajv.
export { readSlice, loadSliceFile, SliceFileError, validateSlice, foldsCase } from './read-slice.js';
export { ID_PATTERN, type Violation } from './violation.js';
export { planWaves, dependencyCycles } from './plan-waves.js';
export { checkFileMap } from './check-file-map.js';
export { hashFile, resolveInRepo } from './resolve-in-repo.js';
export type { Ball, Slice } from './slice-schema.js';
