// Claude Code as a LEAP agent; its command line and why are in README.md.
import { type AgentPlugin, isReadOnlyRole } from '@leap/core';
import {
  claudeRanDry,
  claudeRetrying,
  explainClaudeFailure,
  parseClaudeOutput,
  parseClaudeUsage,
} from './claude-output.js';

/** How to run Claude Code; every field has a default. */
export interface ClaudeAgentConfig {
  name?: string;
  bin?: string;
  model?: string;
  /** Writing roles' permission mode (default `dontAsk`); the CLI refuses `bypassPermissions` as root. */
  writePermissionMode?: string;
  /** A writing role's `--allowedTools` (default CLAUDE_WRITE_TOOLS). */
  allowedTools?: string[];
  /** Arguments added after the plugin's own. */
  extraArgs?: string[];
}

/** A read-only role's tools: reading and searching (Glob and Grep: older versions' search tools). */
export const CLAUDE_READ_TOOLS = ['Read', 'Glob', 'Grep'];

/** A writing role's tools: editing files and running commands, no web access. */
export const CLAUDE_WRITE_TOOLS = ['Bash', 'Edit', 'Write', 'NotebookEdit', ...CLAUDE_READ_TOOLS];

export function createClaudeAgent(config: ClaudeAgentConfig = {}): AgentPlugin {
  return {
    name: config.name ?? 'claude',
    family: 'anthropic',
    buildInvocation: (prompt, options) => {
      const model = options.model ?? config.model;
      const readOnly = isReadOnlyRole(options.role);
      const tools = readOnly ? CLAUDE_READ_TOOLS : (config.allowedTools ?? CLAUDE_WRITE_TOOLS);
      // stream-json (needs --verbose) shows api_retry events live: no network ends a leaf in seconds, not 3 min.
      const args = ['-p', '--output-format', 'stream-json', ...(model ? ['--model', model] : []), '--verbose'];
      // `dontAsk` never prompts and denies every tool not pre-approved; unlike `bypassPermissions`, it runs as root.
      args.push('--permission-mode', readOnly ? 'dontAsk' : (config.writePermissionMode ?? 'dontAsk'));
      if (tools.length > 0) args.push('--allowedTools', tools.join(','));
      if (readOnly) args.push('--disallowedTools', 'Edit,Write,NotebookEdit');
      if (options.answerSchema !== undefined)
        args.push('--json-schema', JSON.stringify(claudeJsonSchema(options.answerSchema)));
      args.push(...(config.extraArgs ?? []));
      // CLAUDECODE marks a nested `claude`, which older versions refused (2.1.197 does not).
      const env = { CLAUDECODE: undefined };
      return { command: config.bin ?? 'claude', args, stdin: prompt, env, ...(model ? { model } : {}) };
    },
    parseAnswer: parseClaudeOutput,
    // A missing login costs nothing to find: `claude -p` says so in under a second, before any call.
    preflight: () => null,
    explainFailure: explainClaudeFailure,
    parseUsage: parseClaudeUsage,
    retrying: claudeRetrying,
    ranDry: claudeRanDry,
    // CONTRACT section 13; a CLAUDE_CONFIG_DIR outside home is a read-write place of its own.
    sandbox: (env) => {
      const dir = env.CLAUDE_CONFIG_DIR ?? '';
      const agentPaths = ['.claude', '.claude.json', '.claude.json.backup', '.config/claude'];
      if (dir !== '' && !dir.startsWith('/')) agentPaths.push(dir);
      return { agentPaths, write: dir.startsWith('/') ? [dir] : [], passEnv: ['ANTHROPIC_*', 'CLAUDE_*', 'DISABLE_*'] };
    },
  };
}

/** Without `$schema`: given a draft other than 07, Claude Code 2.1.197 silently offers no StructuredOutput tool. */
export function claudeJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}
