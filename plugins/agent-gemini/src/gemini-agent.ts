// The Gemini CLI as a LEAP agent; its command line and why are in README.md.
import type { AgentPlugin, TokenPrices } from '@leap/core';
import { LeapError, isReadOnlyRole } from '@leap/core';
import {
  explainGeminiFailure,
  geminiRanDry,
  geminiRetrying,
  parseGeminiOutput,
  parseGeminiUsage,
} from './gemini-output.js';

/** How to run the Gemini CLI; every field has a default. */
export interface GeminiAgentConfig {
  name?: string;
  bin?: string;
  model?: string;
  /** Arguments added after the plugin's own, before `-p`. */
  extraArgs?: string[];
  /** USD per million input and output tokens: Gemini CLI reports no cost, so one is estimated (`cost_estimated`). */
  prices?: TokenPrices;
}

/** `-p` forces headless mode and is appended to stdin: the whole prompt travels on stdin, `-p` only points at it. */
export const GEMINI_PROMPT_FLAG_TEXT = 'Follow the instructions given above on standard input.';

/** The most the CLI reads of its stdin (0.61.0); the rest would be cut off without a word. */
export const GEMINI_STDIN_LIMIT_BYTES = 8 * 1024 * 1024;

export function createGeminiAgent(config: GeminiAgentConfig = {}): AgentPlugin {
  return {
    name: config.name ?? 'gemini',
    family: 'google',
    buildInvocation: (prompt, options) => {
      const size = Buffer.byteLength(prompt);
      const limit = `gemini reads at most ${GEMINI_STDIN_LIMIT_BYTES} bytes (8 MiB) of stdin`;
      if (size > GEMINI_STDIN_LIMIT_BYTES)
        throw new LeapError(`${limit}; this prompt is ${size} bytes, so the CLI would read it cut short`);
      const args = ['--output-format', 'json'];
      const model = options.model ?? config.model;
      if (model) args.push('--model', model);
      args.push('--approval-mode', isReadOnlyRole(options.role) ? 'default' : 'yolo');
      // An untrusted folder (every worktree) ends the run (rc 55) and would turn yolo into default; this session only.
      args.push('--skip-trust', ...(config.extraArgs ?? []), '-p', GEMINI_PROMPT_FLAG_TEXT);
      return { command: config.bin ?? 'gemini', args, stdin: prompt, ...(model ? { model } : {}) };
    },
    parseAnswer: (stdout) => parseGeminiOutput(stdout, config.prices),
    // No login check short of a run, and none needed: without credentials a run fails in under two seconds (rc 41).
    preflight: () => null,
    explainFailure: explainGeminiFailure,
    parseUsage: (stdout) => parseGeminiUsage(stdout, config.prices),
    retrying: geminiRetrying,
    ranDry: geminiRanDry,
    sandbox: () => ({ agentPaths: ['.gemini'], passEnv: ['GEMINI_*', 'GOOGLE_*'] }),
  };
}
