export * from './gh-issue.js';
export * from './github-tracker.js';
export { GhError, type GhFailureKind, classifyGhFailure, runGh } from './run-gh.js';
