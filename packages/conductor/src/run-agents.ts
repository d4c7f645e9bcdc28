// The run's agents by role (CONTRACT section 9): --developer, --verifier, --planner, or an agents file's
// entries; the verifier defaults to a built-in of another family than the developer.
import type { AgentPlugin, AgentRole } from '@leap/core';
import { BUILTIN_AGENTS, findExecutable, loadAgentRegistry, resolveAgent, type AgentRegistry } from '@leap/verify';

/** One role's agent and the name it was chosen by. */
export interface RoleAgent {
  name: string;
  agent: AgentPlugin;
}

/** The three roles of a run. */
export interface RunAgents {
  developer: RoleAgent;
  verifier: RoleAgent;
  planner: RoleAgent;
  registry: AgentRegistry;
}

/** Resolve the agents; an unknown name or a bad agents file throws a UsageError (exit 2). */
export function resolveRunAgents(options: { developer?: string; verifier?: string; planner?: string; agentsFile?: string }, env: NodeJS.ProcessEnv): RunAgents {
  const registry = loadAgentRegistry(options.agentsFile, env);
  const pick = (name: string): RoleAgent => ({ name, agent: resolveAgent(name, registry) });
  const developer = pick(options.developer ?? 'claude');
  const verifier = options.verifier !== undefined
    ? pick(options.verifier)
    : pick(BUILTIN_AGENTS.find((name) => resolveAgent(name, registry).family !== developer.agent.family) ?? 'codex');
  const planner = options.planner !== undefined ? pick(options.planner) : developer;
  return { developer, verifier, planner, registry };
}

/** Why an agent cannot run here (its CLI is not an executable file), or null when it can. */
export function missingAgent(role: AgentRole, chosen: RoleAgent, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const command = chosen.agent.buildInvocation('', { role, cwd }).command;
  if (findExecutable(command, env, cwd) !== null) return null;
  return `the ${role} agent ${JSON.stringify(chosen.name)} cannot run: ${JSON.stringify(command)} is not an executable file${command.includes('/') ? '' : ' on PATH'} (install its CLI, or choose another agent with --${role} NAME)`;
}
