// The OpenAI Codex agent: `codex exec --json`, the prompt on stdin (`-`), the answer in the last agent_message event.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInvocation, AgentOptions, AgentPlugin, AgentSandboxNeeds } from '@leap/core';
import { isReadOnlyRole } from '@leap/core';
import { CODEX_READINESS_SCRIPT, CODEX_READINESS_VAR } from './codex-readiness.js';
import { codexRetrying, explainCodexFailure, parseCodexEvents, parseCodexUsage } from './codex-events.js';

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
  /** Run the readiness check before a leaf (default true); false for a setup the check cannot judge. */
  preflight?: boolean;
}

/** Build the Codex agent plugin (family `openai`). */
export function createCodexAgent(config: CodexAgentConfig = {}): AgentPlugin {
  const command = config.bin ?? 'codex';
  return {
    name: config.name ?? 'codex',
    family: 'openai',
    buildInvocation: (prompt, options) => codexInvocation(prompt, options, config),
    parseAnswer: parseCodexEvents,
    // `codex exec` never checks the login: without one it retries for ever. The check says at once, judging
    // the setup as the CLI does (CODEX_API_KEY, the provider's env_key), and asks `login status` otherwise.
    // The script travels in the check's environment, so the command line a failure quotes stays one line.
    preflight: () =>
      config.preflight === false
        ? null
        : {
            command: process.execPath,
            args: ['-e', `eval(process.env.${CODEX_READINESS_VAR})`, command, ...(config.extraArgs ?? [])],
            env: { [CODEX_READINESS_VAR]: CODEX_READINESS_SCRIPT },
          },
    explainFailure: explainCodexFailure,
    parseUsage: parseCodexUsage,
    retrying: codexRetrying,
    sandbox: codexSandbox,
  };
}

/**
 * Inside a sandbox (CONTRACT section 13): CODEX_HOME (default ~/.codex) read-write, CODEX_* and OPENAI_* passed,
 * and the variable each provider of its config.toml names as its `env_key`.
 */
function codexSandbox(env: NodeJS.ProcessEnv): AgentSandboxNeeds {
  const home = env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : '.codex';
  const passEnv = ['CODEX_*', 'OPENAI_*'];
  let config = '';
  try {
    config = readFileSync(join(home.startsWith('/') ? home : join(env.HOME ?? '', home), 'config.toml'), 'utf8');
  } catch {
    // No config: the built-in provider's variables only.
  }
  for (const match of config.matchAll(/^\s*env_key\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/gm)) passEnv.push(match[1] as string);
  // An absolute CODEX_HOME may lie outside home: then it is a place of its own, read-write.
  return home.startsWith('/') ? { write: [home], passEnv } : { agentPaths: [home], passEnv };
}

function codexInvocation(prompt: string, options: AgentOptions, config: CodexAgentConfig): AgentInvocation {
  // --skip-git-repo-check: outside a git repository (a scratch folder, a planner's temp dir) exec refuses
  // to start; the sandbox, not the repository check, is what keeps a leaf inside its folder.
  // Inside the toolchain's sandbox codex's own cannot be made (its shell tool would fail with `bwrap: setting up uid
  // map: Operation not permitted`): the outer one holds it, a reader to its throwaway copy, a writer to its tree.
  const mode = options.sandboxed === true ? 'danger-full-access' : isReadOnlyRole(options.role) ? 'read-only' : 'workspace-write';
  const args = ['exec', '--json', '--skip-git-repo-check', '--sandbox', mode];
  const model = options.model ?? config.model;
  if (model !== undefined && model !== '') args.push('--model', model);
  args.push(...(config.extraArgs ?? []), '-');
  const invocation: AgentInvocation = { command: config.bin ?? 'codex', args, stdin: prompt };
  if (model !== undefined && model !== '') invocation.model = model;
  return invocation;
}
