export { createLocalTracker } from './local-tracker.js';
export type { LocalTrackerOptions } from './local-tracker.js';
export { parseLocalIssue, readLocalIssueFile } from './local-issue.js';
