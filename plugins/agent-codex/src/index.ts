// @leap/agent-codex: the OpenAI Codex CLI as a LEAP agent.
export { createCodexAgent } from './codex-agent.js';
export type { CodexAgentConfig } from './codex-agent.js';
export { codexRetrying, explainCodexFailure, parseCodexEvents, parseCodexUsage } from './codex-events.js';
