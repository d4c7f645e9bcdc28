// The Gemini CLI agent: `gemini --output-format json -p ...`, the prompt on stdin, the answer in `response`.
import type { AgentAnswer, AgentInvocation, AgentOptions, AgentPlugin } from '@leap/core';
import { LeapError, isReadOnlyRole } from '@leap/core';

/** How to run the Gemini CLI; every field has a default. */
export interface GeminiAgentConfig {
  /** The plugin's name in agent lists (default `gemini`). */
  name?: string;
  /** The executable (default `gemini`, looked up on PATH). */
  bin?: string;
  /** The model (`--model`); AgentOptions.model wins. */
  model?: string;
  /** Arguments added after the plugin's own, before `-p`. */
  extraArgs?: string[];
}

/**
 * `-p` forces headless mode and is appended to what stdin holds, so the whole prompt travels on stdin
 * (no argv size limit, nothing on a command line) and `-p` only points at it.
 */
export const GEMINI_PROMPT_FLAG_TEXT = 'Follow the instructions given above on standard input.';

/** Build the Gemini CLI agent plugin (family `google`). */
export function createGeminiAgent(config: GeminiAgentConfig = {}): AgentPlugin {
  return {
    name: config.name ?? 'gemini',
    family: 'google',
    buildInvocation: (prompt, options) => geminiInvocation(prompt, options, config),
    parseAnswer: parseGeminiOutput,
  };
}

function geminiInvocation(prompt: string, options: AgentOptions, config: GeminiAgentConfig): AgentInvocation {
  const args = ['--output-format', 'json'];
  const model = options.model ?? config.model;
  if (model !== undefined && model !== '') args.push('--model', model);
  args.push('--approval-mode', isReadOnlyRole(options.role) ? 'default' : 'yolo');
  args.push(...(config.extraArgs ?? []), '-p', GEMINI_PROMPT_FLAG_TEXT);
  return { command: config.bin ?? 'gemini', args, stdin: prompt };
}

/** Read `gemini --output-format json` output: one object whose `response` is the answer; `error` throws. */
export function parseGeminiOutput(stdout: string): AgentAnswer {
  const object = lastJsonObject(stdout);
  if (object === null) {
    throw new LeapError(`gemini: expected a JSON object on stdout (--output-format json), found ${preview(stdout)}`);
  }
  const error = object.error as { type?: unknown; message?: unknown } | null | undefined;
  if (error !== undefined && error !== null) {
    const kind = typeof error.type === 'string' ? error.type : 'error';
    throw new LeapError(`gemini reported an error (${kind}): ${typeof error.message === 'string' ? error.message : preview(JSON.stringify(error))}`);
  }
  if (typeof object.response !== 'string') {
    throw new LeapError(`gemini: expected a string "response", found ${preview(JSON.stringify(object.response ?? null))}`);
  }
  return { text: object.response };
}

// The whole output as one JSON object, else the last line that is one (a warning may precede it).
function lastJsonObject(stdout: string): Record<string, unknown> | null {
  const candidates = [stdout.trim(), ...stdout.split('\n').reverse().map((line) => line.trim())];
  for (const text of candidates) {
    if (!text.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Not this one.
    }
  }
  return null;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
