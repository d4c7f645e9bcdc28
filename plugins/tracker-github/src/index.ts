export * from './gh-issue.js';
export * from './github-tracker.js';
export { GhError, classifyGhFailure, runGh } from './run-gh.js';
export type { GhFailureKind } from './run-gh.js';
