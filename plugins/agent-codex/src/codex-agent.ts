// The OpenAI Codex CLI as a LEAP agent; its command line and why are in README.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInvocation, AgentOptions, AgentPlugin, AgentSandboxNeeds, TokenPrices } from '@leap/core';
import { isReadOnlyRole, orElse } from '@leap/core';
import { CODEX_READINESS_SCRIPT, CODEX_READINESS_VAR, CODEX_SANDBOX_MODE_VAR } from './codex-readiness.js';
import { codexRanDry, codexRetrying, explainCodexFailure, parseCodexEvents, parseCodexUsage } from './codex-events.js';

/** How to run Codex; every field has a default. */
export interface CodexAgentConfig {
  name?: string;
  bin?: string;
  model?: string;
  /** Arguments added after the plugin's own, before the `-` that reads the prompt. */
  extraArgs?: string[];
  /** Run the readiness check before a leaf (default true); false for a setup the check cannot judge. */
  preflight?: boolean;
  /** USD per million input and output tokens: Codex reports no cost, so one is estimated (`cost_estimated`). */
  prices?: TokenPrices;
}

export function createCodexAgent(config: CodexAgentConfig = {}): AgentPlugin {
  const command = config.bin ?? 'codex';
  return {
    name: config.name ?? 'codex',
    family: 'openai',
    buildInvocation: (prompt, options) => {
      // --skip-git-repo-check: exec refuses outside a git repository; the sandbox keeps a leaf inside its folder.
      const args = ['exec', '--json', '--skip-git-repo-check', '--sandbox', sandboxMode(options)];
      const model = options.model ?? config.model;
      if (model) args.push('--model', model);
      args.push(...(config.extraArgs ?? []), '-');
      return { command, args, stdin: prompt, ...(model ? { model } : {}) };
    },
    parseAnswer: (stdout) => parseCodexEvents(stdout, config.prices),
    // `codex exec` never checks its login (it retries for ever) nor its sandbox: the readiness script does.
    preflight: (options) => {
      if (config.preflight === false) return null;
      const args = ['-e', `eval(process.env.${CODEX_READINESS_VAR})`, command, ...(config.extraArgs ?? [])];
      const env = { [CODEX_READINESS_VAR]: CODEX_READINESS_SCRIPT, [CODEX_SANDBOX_MODE_VAR]: sandboxMode(options) };
      return { command: process.execPath, args, env };
    },
    explainFailure: explainCodexFailure,
    parseUsage: (stdout) => parseCodexUsage(stdout, config.prices),
    retrying: codexRetrying,
    ranDry: codexRanDry,
    brokenRun: codexBrokenRun,
    sandbox: codexSandbox,
  };
}

/** CONTRACT section 13: CODEX_HOME read-write; CODEX_*, OPENAI_* and each config.toml provider's `env_key` passed. */
function codexSandbox(env: NodeJS.ProcessEnv): AgentSandboxNeeds {
  const home = env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : '.codex';
  const file = join(home.startsWith('/') ? home : join(env.HOME ?? '', home), 'config.toml');
  const config = orElse(() => readFileSync(file, 'utf8'), '');
  const keys = [...config.matchAll(/^\s*env_key\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/gm)].map((m) => m[1] as string);
  const passEnv = ['CODEX_*', 'OPENAI_*', ...keys];
  // An absolute CODEX_HOME may lie outside home: then it is a place of its own, read-write.
  return home.startsWith('/') ? { write: [home], passEnv } : { agentPaths: [home], passEnv };
}

// Codex 0.171.0 only warns when it cannot make its sandbox helper (danger-full-access needs none): all fails, exit 0.
const HELPER_REFUSAL = /Refusing to create helper binaries under temporary dir[^\n]*/;

function codexBrokenRun(_stdout: string, stderr: string, invocation: AgentInvocation): string | null {
  const mode = invocation.args[invocation.args.indexOf('--sandbox') + 1];
  const warning = HELPER_REFUSAL.exec(stderr)?.[0];
  if (mode === undefined || mode === 'danger-full-access' || warning === undefined) return null;
  return (
    `codex could not run its own ${mode} sandbox (it said: ${warning.trim()}), so every command the model ran failed ` +
    'though the run exited 0; give CODEX_HOME a folder outside the temporary folder (TMPDIR, else /tmp), or point ' +
    'TMPDIR elsewhere'
  );
}

function sandboxMode(options: AgentOptions): 'danger-full-access' | 'read-only' | 'workspace-write' {
  if (options.sandboxed === true) return 'danger-full-access';
  return isReadOnlyRole(options.role) ? 'read-only' : 'workspace-write';
}
