export * from './codex-agent.js';
export * from './codex-events.js';
export * from './codex-readiness.js';
