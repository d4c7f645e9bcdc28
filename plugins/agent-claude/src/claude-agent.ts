// The Claude Code agent: `claude -p --output-format stream-json --verbose`, the prompt on stdin, the answer in the result's `result`.
import type { AgentInvocation, AgentOptions, AgentPlugin, AgentSandboxNeeds } from '@leap/core';
import { isReadOnlyRole } from '@leap/core';
import { claudeRanDry, claudeRetrying, explainClaudeFailure, parseClaudeOutput, parseClaudeUsage } from './claude-output.js';

/** How to run Claude Code; every field has a default. */
export interface ClaudeAgentConfig {
  /** The plugin's name in agent lists (default `claude`). */
  name?: string;
  /** The executable (default `claude`, looked up on PATH). */
  bin?: string;
  /** The model (`--model`); AgentOptions.model wins. */
  model?: string;
  /**
   * Permission mode of writing roles (developer, builder); default `dontAsk`. `bypassPermissions` is
   * refused by the CLI when it runs as root (most containers and CI).
   */
  writePermissionMode?: string;
  /** Tools a writing role may use without a prompt (`--allowedTools`); default CLAUDE_WRITE_TOOLS. */
  allowedTools?: string[];
  /** Arguments added after the plugin's own. */
  extraArgs?: string[];
}

/** Tools a read-only role may not use. */
export const CLAUDE_DENIED_TOOLS = 'Edit,Write,NotebookEdit';

/** Tools a read-only role uses without a prompt: reading and searching (Glob and Grep are older versions' search tools). */
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

/**
 * The schema as `--json-schema` takes it: without its `$schema` key. Claude Code's validator knows draft-07
 * only, and given a schema that declares another draft (`.../draft/2020-12/schema`, as every published LEAP
 * schema does) it offers no StructuredOutput tool and says nothing (*2.1.197*); the answer is then free text.
 * The rest of the schema (`$id`, `title`, the constraints) is kept as it is.
 */
export function claudeJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}

function claudeInvocation(prompt: string, options: AgentOptions, config: ClaudeAgentConfig): AgentInvocation {
  // stream-json (which needs --verbose) ends with the same result object as json, and shows the CLI's
  // api_retry events while it runs: with no network, a leaf can be ended in seconds, not after 3 minutes.
  const args = ['-p', '--output-format', 'stream-json'];
  const model = options.model ?? config.model;
  if (model !== undefined && model !== '') args.push('--model', model);
  args.push('--verbose');
  // `dontAsk` never prompts (nobody can answer in print mode) and denies every tool not pre-approved;
  // unlike `bypassPermissions`, the CLI accepts it as root.
  if (isReadOnlyRole(options.role)) {
    args.push('--permission-mode', 'dontAsk', '--allowedTools', CLAUDE_READ_TOOLS.join(','), '--disallowedTools', CLAUDE_DENIED_TOOLS);
  } else {
    args.push('--permission-mode', config.writePermissionMode ?? 'dontAsk');
    const tools = config.allowedTools ?? CLAUDE_WRITE_TOOLS;
    if (tools.length > 0) args.push('--allowedTools', tools.join(','));
  }
  if (options.answerSchema !== undefined) args.push('--json-schema', JSON.stringify(claudeJsonSchema(options.answerSchema)));
  args.push(...(config.extraArgs ?? []));
  // CLAUDECODE marks a process started by Claude Code; older versions refused a nested `claude` while it
  // was set (2.1.197 does not), and the leaf is not nested in any sense that matters here.
  const invocation: AgentInvocation = { command: config.bin ?? 'claude', args, stdin: prompt, env: { CLAUDECODE: undefined } };
  if (model !== undefined && model !== '') invocation.model = model;
  return invocation;
}
