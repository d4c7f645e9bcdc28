// The run's agents by role (CONTRACT section 9): each list tried in order as vendors run dry; a failing CLI's words.
import { UsageError, findExecutable, orElse, type AgentDry, type AgentPlugin, type AgentRole } from '@leap/core';
import { BUILTIN_AGENTS, agentList, loadAgentRegistry, resolveAgent } from '@leap/verify';

export type RoleAgent = { name: string; agent: AgentPlugin };

export type RunRole = 'developer' | 'verifier' | 'planner';

export type RunAgents = ReturnType<typeof resolveRunAgents>;

export function resolveRunAgents(
  options: { developer?: string; verifier?: string; planner?: string; agentsFile?: string; allowSameFamily?: boolean },
  env: NodeJS.ProcessEnv,
) {
  const registry = loadAgentRegistry(options.agentsFile, env);
  const pick = (name: string): RoleAgent => ({ name, agent: resolveAgent(name, registry) });
  const listOf = (role: RunRole): RoleAgent[] | null => {
    const given = options[role];
    // An agents file gives a role its agents by its `roles`, else by an entry named after the role.
    const named = Object.hasOwn(registry.entries, role) ? [role] : undefined;
    const names = given !== undefined ? agentList(`--${role}`, given) : (registry.roles[role] ?? named);
    return names === undefined ? null : names.map(pick);
  };
  const developers = listOf('developer') ?? [pick('claude')];
  const developer = developers[0] as RoleAgent;
  // With several developers, every built-in of another family, so one the run falls over to still has a verifier.
  const others = BUILTIN_AGENTS.filter((name) => resolveAgent(name, registry).family !== developer.agent.family);
  const verifiers = listOf('verifier') ?? (developers.length > 1 ? others : others.slice(0, 1)).map(pick);
  if (verifiers.length === 0) verifiers.push(pick('codex'));
  const allowSameFamily = options.allowSameFamily === true;
  // Blind across families: one judging its own work is refused unless asked; each developer needs another's verifier.
  if (!allowSameFamily) {
    for (const d of developers) {
      if (verifiers.some((v) => v.agent.family !== d.agent.family)) continue;
      const which =
        verifiers.length === 1
          ? `the verifier ${JSON.stringify((verifiers[0] as RoleAgent).name)} is`
          : `every verifier (${verifiers.map((v) => v.name).join(', ')}) is`;
      throw new UsageError(
        `${which} of the developer ${JSON.stringify(d.name)}'s model family (${d.agent.family}): ` +
          'a blind verification needs another family. ' +
          'Choose one with --verifier NAME, or allow it with --allow-same-family',
      );
    }
  }
  const planners = listOf('planner') ?? developers;
  return {
    developer,
    verifier: (allowSameFamily
      ? verifiers[0]
      : verifiers.find((v) => v.agent.family !== developer.agent.family)) as RoleAgent,
    planner: planners[0] as RoleAgent,
    lists: { developer: developers, verifier: verifiers, planner: planners },
    allowSameFamily,
    registry,
  };
}

export type DryAgents = Map<string, AgentDry & { role: RunRole }>;

/** The first of the role's list not dry (a verifier not of `avoidFamily`, unless allowed); null when none is left. */
export function currentAgent(agents: RunAgents, dry: DryAgents, role: RunRole, avoidFamily: string | null = null) {
  const blind = role === 'verifier' && !agents.allowSameFamily && avoidFamily !== null;
  return agents.lists[role].find((a) => !dry.has(a.name) && !(blind && a.agent.family === avoidFamily)) ?? null;
}

/** `claude: rate-limit (its words); gemini: quota (its words)`: every agent of a role that ran dry, in list order. */
export function dryCauses(agents: RunAgents, dry: DryAgents, role: RunRole): string {
  return agents.lists[role]
    .flatMap((a) => {
      const d = dry.get(a.name);
      return d === undefined ? [] : [`${a.name} (${a.agent.family}): ${d.kind}: ${d.message}`];
    })
    .join('; ');
}

export function missingAgent(role: AgentRole, chosen: RoleAgent, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const command = chosen.agent.buildInvocation('', { role, cwd }).command;
  if (findExecutable(command, env.PATH, cwd) !== null) return null;
  return (
    `the ${role} agent ${JSON.stringify(chosen.name)} cannot run: ` +
    `${JSON.stringify(command)} is not an executable file${command.includes('/') ? '' : ' on PATH'} ` +
    `(install its CLI, or choose another agent with --${role} NAME)`
  );
}

export function sameFamily(agents: RunAgents): string {
  const family = agents.developer.agent.family;
  return agents.verifier.agent.family === family ? ` (the same model family, ${family}: --allow-same-family)` : '';
}

/** The names of a role's list, as the start of a run says them: `claude, then gemini when it runs dry`. */
export function listWords(list: readonly RoleAgent[]): string {
  const [first, ...rest] = list.map((a) => a.name);
  return rest.length === 0 ? (first ?? '') : `${first} (then ${rest.join(', then ')}, should a vendor run dry)`;
}

// What an agent CLI said when it failed by itself, in its own words, for the bail's narration.
const MAX = 600;

/** Its plugin's explanation (never raw stream-json), else its answer text if it parses, else its last lines. */
export function agentWords(agent: AgentPlugin, stdout: string, stderr: string): string {
  const explained = agent.explainFailure?.(stdout, stderr)?.trim() ?? '';
  const notSupervisor = stderr.split('\n').filter((l) => !/^supervise\[/.test(l));
  const err = lastLines(notSupervisor.join('\n'));
  const words = explained || [outWords(agent, stdout), err].filter((w) => w !== '').join('\n');
  return words.length > MAX ? `${words.slice(0, MAX)}…` : words;
}

function outWords(agent: AgentPlugin, stdout: string): string {
  return orElse(() => agent.parseAnswer(stdout).text.trim(), null) ?? jsonWords(stdout) ?? lastLines(stdout);
}

// A JSON result line the plugin takes as no answer (claude's `is_error`): its `result`, `error` or `message`.
function jsonWords(stdout: string): string | null {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  const data = last.startsWith('{') ? orElse(() => JSON.parse(last) as Record<string, unknown>, null) : null;
  const words = [data?.result, data?.error, data?.message].find((w) => typeof w === 'string' && w.trim() !== '');
  return (words as string | undefined)?.trim() ?? null;
}

function lastLines(text: string, count = 4): string {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(-count)
    .join('\n');
}
