// The run's sandbox (CONTRACT section 13), decided once; developers write the tree, planner and verifier read a copy.
import type { AgentPlugin, AgentRole } from '@leap/core';
import { agentSandbox, chooseSandbox, sandboxSetting } from '@leap/verify';
import type { RunBase } from './conductor.js';
import type { ProjectConfig } from './project-config.js';
import { apartCopy } from './user-writes.js';

/** On, and bwrap cannot make its namespaces here: a SandboxUnavailableError (exit 2) before anything is touched. */
export function chooseRunSandbox(env: NodeJS.ProcessEnv, flag?: 'on' | 'off', config?: ProjectConfig) {
  return chooseSandbox(flag ?? config?.sandbox ?? sandboxSetting(undefined, env), env, config?.testNetwork === true);
}

/** The spec of an agent leaf of this run, or null when the run is unsandboxed; a developer `leaf` writes apart. */
export function agentLeafSandbox(run: RunBase, role: AgentRole, agent: AgentPlugin, env = run.env, leaf?: string) {
  if (run.setup.sandbox.bwrap === null) return null;
  const writes = role === 'developer' || role === 'builder';
  const spec = agentSandbox(agent, writes ? 'writer' : 'reader', run.root, env, run.paths.dir);
  return role === 'developer' && leaf !== undefined ? { ...spec, apart: apartCopy(run.paths.dir, leaf) } : spec;
}
