export * from './local-issue.js';
export * from './local-tracker.js';
