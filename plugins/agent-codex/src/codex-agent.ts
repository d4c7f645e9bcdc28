// The OpenAI Codex agent: `codex exec --json`, the prompt on stdin (`-`), the answer in the last agent_message event.
import type { AgentAnswer, AgentInvocation, AgentOptions, AgentPlugin } from '@leap/core';
import { LeapError, isReadOnlyRole } from '@leap/core';

/** How to run Codex; every field has a default. */
export interface CodexAgentConfig {
  /** The plugin's name in agent lists (default `codex`). */
  name?: string;
  /** The executable (default `codex`, looked up on PATH). */
  bin?: string;
  /** The model (`--model`); AgentOptions.model wins. */
  model?: string;
  /** Arguments added after the plugin's own, before the `-` that reads the prompt. */
  extraArgs?: string[];
}

/** Build the Codex agent plugin (family `openai`). */
export function createCodexAgent(config: CodexAgentConfig = {}): AgentPlugin {
  return {
    name: config.name ?? 'codex',
    family: 'openai',
    buildInvocation: (prompt, options) => codexInvocation(prompt, options, config),
    parseAnswer: parseCodexEvents,
  };
}

function codexInvocation(prompt: string, options: AgentOptions, config: CodexAgentConfig): AgentInvocation {
  const args = ['exec', '--json', '--sandbox', isReadOnlyRole(options.role) ? 'read-only' : 'workspace-write'];
  const model = options.model ?? config.model;
  if (model !== undefined && model !== '') args.push('--model', model);
  args.push(...(config.extraArgs ?? []), '-');
  return { command: config.bin ?? 'codex', args, stdin: prompt };
}

/**
 * Read `codex exec --json` output (JSON Lines): the text of the last completed `agent_message` item.
 * A `turn.failed` or `error` event, or no agent message at all, throws.
 */
export function parseCodexEvents(stdout: string): AgentAnswer {
  let text: string | null = null;
  let failure: string | null = null;
  let events = 0;
  for (const line of stdout.split('\n')) {
    const event = parseLine(line);
    if (event === null) continue;
    events++;
    if (event.type === 'item.completed') {
      const item = event.item as Record<string, unknown> | undefined;
      if (item?.type === 'agent_message' && typeof item.text === 'string') text = item.text;
    } else if (event.type === 'turn.failed') {
      const error = event.error as { message?: unknown } | undefined;
      failure = typeof error?.message === 'string' ? error.message : 'turn failed';
    } else if (event.type === 'error' && typeof event.message === 'string') {
      failure = event.message;
    }
  }
  if (failure !== null) throw new LeapError(`codex reported an error: ${failure}`);
  if (text === null) {
    throw new LeapError(events === 0
      ? 'codex: expected JSON Lines events on stdout (codex exec --json), found none'
      : `codex: no completed agent_message item among ${events} events`);
  }
  return { text };
}

function parseLine(line: string): Record<string, unknown> | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
