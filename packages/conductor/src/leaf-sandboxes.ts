// The run's sandbox (CONTRACT section 13): decided once, in checkInput, from `--sandbox`, leap.config.json's
// `sandbox` and `testNetwork`, and LEAP_SANDBOX; then each leaf's spec by its role: the developer a writer of
// the repository, the planner and the verifier readers of a throwaway copy of it; suite runs writers.
import type { AgentPlugin, AgentRole } from '@leap/core';
import { agentSandbox, chooseSandbox, sandboxSetting, type SandboxChoice } from '@leap/verify';
import type { SandboxSpec } from '@leap/supervise';
import type { ProjectConfig } from './project-config.js';

/** The run's choice, and where its setting came from (for the narration). */
export interface RunSandbox extends SandboxChoice {
  setting: 'on' | 'off';
  source: string;
}

/**
 * `--sandbox` wins, then leap.config.json's `sandbox`, then LEAP_SANDBOX, else on. With it on, bwrap must be
 * able to make its namespaces here: else a SandboxUnavailableError (exit 2, one line naming the cause and
 * `apt-get install bubblewrap`), before anything is touched.
 */
export function chooseRunSandbox(flag: 'on' | 'off' | undefined, config: ProjectConfig | undefined, env: NodeJS.ProcessEnv): RunSandbox {
  const fromConfig = config?.sandbox;
  const setting = flag ?? fromConfig ?? sandboxSetting(undefined, env);
  const source = flag !== undefined ? '--sandbox' : fromConfig !== undefined ? 'leap.config.json' : env.LEAP_SANDBOX ? 'LEAP_SANDBOX' : 'the default';
  return { ...chooseSandbox(setting, env, config?.testNetwork === true), setting, source };
}

/** What a role is inside the sandbox: the developer writes the repository; the planner only answers, the verifier only judges. */
function sandboxRole(role: AgentRole): 'writer' | 'reader' {
  return role === 'developer' || role === 'builder' ? 'writer' : 'reader';
}

/** The spec of an agent leaf of this run, or null when the run is unsandboxed. */
export function agentLeafSandbox(sandbox: RunSandbox, role: AgentRole, agent: AgentPlugin, root: string, stateDir: string, env: NodeJS.ProcessEnv): SandboxSpec | null {
  return sandbox.bwrap === null ? null : agentSandbox(agent, sandboxRole(role), root, env, stateDir);
}
