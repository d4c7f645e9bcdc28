// @leap/agent-codex: the OpenAI Codex CLI as a LEAP agent.
export { createCodexAgent, parseCodexEvents } from './codex-agent.js';
export type { CodexAgentConfig } from './codex-agent.js';
