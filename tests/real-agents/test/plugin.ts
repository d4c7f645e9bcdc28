// The plugin of each CLI, as the built-in agents `claude`, `codex` and `gemini` are made.
import { createClaudeAgent } from '@leap/agent-claude';
import { createCodexAgent } from '@leap/agent-codex';
import { createGeminiAgent } from '@leap/agent-gemini';
import type { AgentPlugin } from '@leap/core';
import type { CliName } from './clis.js';

export function plugin(cli: CliName): AgentPlugin {
  return cli === 'claude' ? createClaudeAgent() : cli === 'codex' ? createCodexAgent() : createGeminiAgent();
}
