// The run's agents by role (CONTRACT section 9): --developer, --verifier, --planner, or an agents file's
// entries; the verifier defaults to a built-in of another family than the developer.
import { UsageError, type AgentPlugin, type AgentRole } from '@leap/core';
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
export function resolveRunAgents(options: { developer?: string; verifier?: string; planner?: string; agentsFile?: string; allowSameFamily?: boolean }, env: NodeJS.ProcessEnv): RunAgents {
  const registry = loadAgentRegistry(options.agentsFile, env);
  const pick = (name: string): RoleAgent => ({ name, agent: resolveAgent(name, registry) });
  const developer = pick(options.developer ?? 'claude');
  const verifier = options.verifier !== undefined ? pick(options.verifier) : pick(BUILTIN_AGENTS.find((name) => resolveAgent(name, registry).family !== developer.agent.family) ?? 'codex');
  // The verification is blind across model families: one family judging its own work is refused unless asked for.
  if (verifier.agent.family === developer.agent.family && options.allowSameFamily !== true) {
    throw new UsageError(
      `the verifier ${JSON.stringify(verifier.name)} is of the developer ${JSON.stringify(developer.name)}'s model family (${developer.agent.family}): a blind verification needs another family. Choose one with --verifier NAME, or allow it with --allow-same-family`,
    );
  }
  const planner = options.planner !== undefined ? pick(options.planner) : developer;
  return { developer, verifier, planner, registry };
}

/** Why an agent cannot run here (its CLI is not an executable file), or null when it can. */
export function missingAgent(role: AgentRole, chosen: RoleAgent, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const command = chosen.agent.buildInvocation('', { role, cwd }).command;
  if (findExecutable(command, env, cwd) !== null) return null;
  return `the ${role} agent ${JSON.stringify(chosen.name)} cannot run: ${JSON.stringify(command)} is not an executable file${command.includes('/') ? '' : ' on PATH'} (install its CLI, or choose another agent with --${role} NAME)`;
}
