// @leap/agent-claude: Claude Code as a LEAP agent.
export { CLAUDE_DENIED_TOOLS, createClaudeAgent, parseClaudeOutput } from './claude-agent.js';
export type { ClaudeAgentConfig } from './claude-agent.js';
