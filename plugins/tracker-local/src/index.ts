// @leap/tracker-local: issues as Markdown files under the state folder.
export { createLocalTracker } from './local-tracker.js';
export type { LocalTrackerOptions } from './local-tracker.js';
export { parseLocalIssue, readLocalIssueFile } from './local-issue.js';
