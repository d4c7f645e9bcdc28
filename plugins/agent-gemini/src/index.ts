export { GEMINI_PROMPT_FLAG_TEXT, GEMINI_STDIN_LIMIT_BYTES, createGeminiAgent } from './gemini-agent.js';
export type { GeminiAgentConfig } from './gemini-agent.js';
export {
  explainGeminiFailure,
  geminiRanDry,
  geminiRetrying,
  parseGeminiOutput,
  parseGeminiUsage,
} from './gemini-output.js';
