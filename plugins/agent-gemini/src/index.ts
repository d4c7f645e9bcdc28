// @leap/agent-gemini: the Gemini CLI as a LEAP agent.
export { GEMINI_PROMPT_FLAG_TEXT, createGeminiAgent, parseGeminiOutput } from './gemini-agent.js';
export type { GeminiAgentConfig } from './gemini-agent.js';
