// Claude Code as a LEAP agent; its command line and why are in README.md.
import type { AgentInvocation, AgentOptions, AgentPlugin, AgentSandboxNeeds } from '@leap/core';
import { isReadOnlyRole } from '@leap/core';
import {
  claudeRanDry,
  claudeRetrying,
  explainClaudeFailure,
  parseClaudeOutput,
  parseClaudeUsage,
} from './claude-output.js';

/** How to run Claude Code; every field has a default. */
export interface ClaudeAgentConfig {
  /** The plugin's name in agent lists (default `claude`). */
  name?: string;
  /** The executable (default `claude`, looked up on PATH). */
  bin?: string;
  /** The model (`--model`); AgentOptions.model wins. */
  model?: string;
  /** Writing roles' permission mode (default `dontAsk`); the CLI refuses `bypassPermissions` as root. */
  writePermissionMode?: string;
  /** Tools a writing role may use without a prompt (`--allowedTools`); default CLAUDE_WRITE_TOOLS. */
  allowedTools?: string[];
  /** Arguments added after the plugin's own. */
  extraArgs?: string[];
}

export const CLAUDE_DENIED_TOOLS = 'Edit,Write,NotebookEdit';

/** Tools a read-only role uses unprompted: reading and searching (Glob and Grep: older versions' search tools). */
export const CLAUDE_READ_TOOLS = ['Read', 'Glob', 'Grep'];

/** Tools a writing role uses without a prompt: editing files and running commands, no web access. */
export const CLAUDE_WRITE_TOOLS = ['Bash', 'Edit', 'Write', 'NotebookEdit', ...CLAUDE_READ_TOOLS];

/** Build the Claude Code agent plugin (family `anthropic`). */
export function createClaudeAgent(config: ClaudeAgentConfig = {}): AgentPlugin {
  return {
    name: config.name ?? 'claude',
    family: 'anthropic',
    buildInvocation: (prompt, options) => claudeInvocation(prompt, options, config),
    parseAnswer: parseClaudeOutput,
    // A missing login costs nothing to find: `claude -p` says so in under a second, before any call.
    preflight: () => null,
    explainFailure: explainClaudeFailure,
    parseUsage: parseClaudeUsage,
    retrying: claudeRetrying,
    ranDry: claudeRanDry,
    sandbox: claudeSandbox,
  };
}

/** Inside a sandbox (CONTRACT section 13): its config and session places read-write, its own variables passed. */
function claudeSandbox(env: NodeJS.ProcessEnv): AgentSandboxNeeds {
  const agentPaths = ['.claude', '.claude.json', '.claude.json.backup', '.config/claude'];
  const dir = env.CLAUDE_CONFIG_DIR;
  // CLAUDE_CONFIG_DIR may lie outside home: then it is a place of its own, read-write.
  const write = dir?.startsWith('/') ? [dir] : [];
  if (dir !== undefined && dir !== '' && !dir.startsWith('/')) agentPaths.push(dir);
  return { agentPaths, write, passEnv: ['ANTHROPIC_*', 'CLAUDE_*', 'DISABLE_*'] };
}

/** Without `$schema`: given a draft other than 07, Claude Code 2.1.197 silently offers no StructuredOutput tool. */
export function claudeJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}

function claudeInvocation(prompt: string, options: AgentOptions, config: ClaudeAgentConfig): AgentInvocation {
  // stream-json (needs --verbose) shows api_retry events as they come: no network ends a leaf in seconds, not 3 min.
  const args = ['-p', '--output-format', 'stream-json'];
  const model = options.model ?? config.model;
  if (model) args.push('--model', model);
  args.push('--verbose');
  // `dontAsk` never prompts and denies every tool not pre-approved; unlike `bypassPermissions`, it runs as root.
  if (isReadOnlyRole(options.role)) {
    args.push('--permission-mode', 'dontAsk', '--allowedTools', CLAUDE_READ_TOOLS.join(','));
    args.push('--disallowedTools', CLAUDE_DENIED_TOOLS);
  } else {
    args.push('--permission-mode', config.writePermissionMode ?? 'dontAsk');
    const tools = config.allowedTools ?? CLAUDE_WRITE_TOOLS;
    if (tools.length > 0) args.push('--allowedTools', tools.join(','));
  }
  if (options.answerSchema !== undefined)
    args.push('--json-schema', JSON.stringify(claudeJsonSchema(options.answerSchema)));
  args.push(...(config.extraArgs ?? []));
  // CLAUDECODE marks a nested `claude`, which older versions refused (2.1.197 does not).
  return {
    command: config.bin ?? 'claude',
    args,
    stdin: prompt,
    env: { CLAUDECODE: undefined },
    ...(model ? { model } : {}),
  };
}
