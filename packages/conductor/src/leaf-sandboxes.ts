// The run's sandbox (CONTRACT section 13), decided once; developers write the tree, planner and verifier read a copy.
import type { AgentPlugin, AgentRole } from '@leap/core';
import { agentSandbox, chooseSandbox, sandboxSetting, type SandboxChoice } from '@leap/verify';
import type { SandboxSpec } from '@leap/supervise';
import type { ProjectConfig } from './project-config.js';
import { apartCopy } from './user-writes.js';

/** On, and bwrap cannot make its namespaces here: a SandboxUnavailableError (exit 2) before anything is touched. */
export function chooseRunSandbox(
  flag: 'on' | 'off' | undefined,
  config: ProjectConfig | undefined,
  env: NodeJS.ProcessEnv,
): SandboxChoice {
  return chooseSandbox(flag ?? config?.sandbox ?? sandboxSetting(undefined, env), env, config?.testNetwork === true);
}

/** The spec of an agent leaf of this run, or null when the run is unsandboxed; a developer `leaf` writes apart. */
export function agentLeafSandbox(
  sandbox: SandboxChoice,
  role: AgentRole,
  agent: AgentPlugin,
  root: string,
  stateDir: string,
  env: NodeJS.ProcessEnv,
  leaf?: string,
): SandboxSpec | null {
  if (sandbox.bwrap === null) return null;
  const writes = role === 'developer' || role === 'builder';
  const spec = agentSandbox(agent, writes ? 'writer' : 'reader', root, env, stateDir);
  return role === 'developer' && leaf !== undefined ? { ...spec, apart: apartCopy(stateDir, leaf) } : spec;
}
