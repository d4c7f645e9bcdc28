export {
  CLAUDE_DENIED_TOOLS,
  CLAUDE_READ_TOOLS,
  CLAUDE_WRITE_TOOLS,
  claudeJsonSchema,
  createClaudeAgent,
} from './claude-agent.js';
export type { ClaudeAgentConfig } from './claude-agent.js';
export type { ClaudeRetry } from './claude-output.js';
export {
  claudeRanDry,
  claudeRetrying,
  explainClaudeFailure,
  parseClaudeOutput,
  parseClaudeUsage,
} from './claude-output.js';
