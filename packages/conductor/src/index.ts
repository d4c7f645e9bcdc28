export { runTdd } from './run-tdd.js';
export type {
  BailCause,
  TddCommit,
  TddRunEnd,
  TddRunOptions,
  TddRunResult,
  TddStepState,
  TddVerdict,
} from './types.js';
export { BAIL_CLASSES, bailClass } from './bail-causes.js';
export { readTddStatus, formatTddStatus } from './status.js';
export type { TddStatus } from './status.js';
export {
  PROJECT_CONFIG_FILE,
  projectConfigJsonSchema,
  projectConfigSchema,
  readProjectConfig,
} from './project-config.js';
export type { ProjectConfig } from './project-config.js';
export { testCommandCandidates } from './detect-test-cmd.js';
export { watchModeOf } from './watch-mode.js';
export type { WatchMode } from './watch-mode.js';
