// The Claude Code agent: `claude -p --output-format json`, the prompt on stdin, the answer in `result`.
import type { AgentAnswer, AgentInvocation, AgentOptions, AgentPlugin } from '@leap/core';
import { LeapError, isReadOnlyRole } from '@leap/core';

/** How to run Claude Code; every field has a default. */
export interface ClaudeAgentConfig {
  /** The plugin's name in agent lists (default `claude`). */
  name?: string;
  /** The executable (default `claude`, looked up on PATH). */
  bin?: string;
  /** The model (`--model`); AgentOptions.model wins. */
  model?: string;
  /** Permission mode of writing roles (developer, builder); default `bypassPermissions`. */
  writePermissionMode?: string;
  /** Arguments added after the plugin's own. */
  extraArgs?: string[];
}

/** Tools a read-only role may not use. */
export const CLAUDE_DENIED_TOOLS = 'Edit,Write,NotebookEdit';

/** Build the Claude Code agent plugin (family `anthropic`). */
export function createClaudeAgent(config: ClaudeAgentConfig = {}): AgentPlugin {
  return {
    name: config.name ?? 'claude',
    family: 'anthropic',
    buildInvocation: (prompt, options) => claudeInvocation(prompt, options, config),
    parseAnswer: parseClaudeOutput,
  };
}

function claudeInvocation(prompt: string, options: AgentOptions, config: ClaudeAgentConfig): AgentInvocation {
  const args = ['-p', '--output-format', 'json'];
  const model = options.model ?? config.model;
  if (model !== undefined && model !== '') args.push('--model', model);
  if (isReadOnlyRole(options.role)) {
    // In print mode nobody can approve a tool, so `default` denies Bash and the edit tools stay denied.
    args.push('--permission-mode', 'default', '--disallowedTools', CLAUDE_DENIED_TOOLS);
  } else {
    args.push('--permission-mode', config.writePermissionMode ?? 'bypassPermissions');
  }
  if (options.answerSchema !== undefined) args.push('--json-schema', JSON.stringify(options.answerSchema));
  args.push(...(config.extraArgs ?? []));
  // CLAUDECODE marks a process started by Claude Code; a nested `claude` refuses to start while it is set.
  return { command: config.bin ?? 'claude', args, stdin: prompt, env: { CLAUDECODE: undefined } };
}

/** Read `claude -p --output-format json` output: the final JSON object's `result`; `is_error` throws. */
export function parseClaudeOutput(stdout: string): AgentAnswer {
  const result = lastJsonObject(stdout);
  if (result === null) {
    throw new LeapError(`claude: expected a JSON object on stdout (--output-format json), found ${preview(stdout)}`);
  }
  if (result.is_error === true) {
    const subtype = typeof result.subtype === 'string' ? result.subtype : 'error';
    throw new LeapError(`claude reported an error (${subtype}): ${typeof result.result === 'string' ? result.result : preview(JSON.stringify(result))}`);
  }
  if (typeof result.result !== 'string') {
    throw new LeapError(`claude: expected a string "result" in the final JSON object, found ${preview(JSON.stringify(result.result ?? null))}`);
  }
  const answer: AgentAnswer = { text: result.result };
  if (result.structured_output !== undefined && result.structured_output !== null) answer.json = result.structured_output;
  return answer;
}

// The whole output as one JSON object, else the last line that is one (stream-json ends with the result).
function lastJsonObject(stdout: string): Record<string, unknown> | null {
  const whole = tryObject(stdout.trim());
  if (whole !== null) return whole;
  const lines = stdout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const object = tryObject((lines[i] ?? '').trim());
    if (object !== null) return object;
  }
  return null;
}

function tryObject(text: string): Record<string, unknown> | null {
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
