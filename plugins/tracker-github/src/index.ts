export { createGithubTracker, ISSUE_FIELDS } from './github-tracker.js';
export type { GithubTracker, GithubTrackerOptions } from './github-tracker.js';
export { parseGhIssue } from './gh-issue.js';
export type { GithubComment, GithubIssue } from './gh-issue.js';
export { GhError, classifyGhFailure, runGh } from './run-gh.js';
export type { GhFailureKind } from './run-gh.js';
