// A worker's --label families are checked at its start against the agents it can run here (each CLI on PATH).
import { UsageError, findExecutable, showValue } from '@leap/core';
import type { RoundRequest } from '@leap/slice';

const FAMILY = /^[A-Za-z0-9_.-]{1,64}$/;

/** `--label` values as families (`claude` is `anthropic`, as the jury reads), each runnable here; else a UsageError. */
export async function checkLabels(given: string[], agents: string | undefined, env: NodeJS.ProcessEnv, cwd: string) {
  if (given.length === 0) return [];
  const { BUILTIN_AGENTS, loadAgentRegistry, resolveAgent, vendorFamily } = await import('@leap/verify');
  const bad = given.find((label) => !FAMILY.test(label));
  const want = 'an agent family (1 to 64 of A-Z a-z 0-9 _ . -)';
  if (bad !== undefined) throw new UsageError(`Expected --label to be ${want}, got ${showValue(bad)}`);
  const registry = loadAgentRegistry(agents, env);
  // Every agent this worker could be asked for, by family: which are installed here, which are not.
  const byFamily = new Map<string, { installed: string[]; missing: string[] }>();
  for (const name of new Set([...BUILTIN_AGENTS, ...Object.keys(registry.entries)])) {
    try {
      const agent = resolveAgent(name, registry);
      const { command } = agent.buildInvocation('', { role: 'builder', cwd });
      const seen = byFamily.get(agent.family) ?? { installed: [], missing: [] };
      if (findExecutable(command, env.PATH, cwd) === null) seen.missing.push(`${name} (${command} not found)`);
      else seen.installed.push(name);
      byFamily.set(agent.family, seen);
    } catch {}
  }
  const labels = given.map((label) => {
    const family = vendorFamily(label);
    const seen = byFamily.get(family);
    const none = `--label ${showValue(label)}: no agent of the family ${showValue(family)}`;
    if (seen === undefined) {
      const known = [...byFamily.keys()].sort().join(', ');
      const of = agents === undefined ? 'the built-in agents' : `the built-ins and ${agents}`;
      throw new UsageError(`${none} here (the families of ${of}: ${known})`);
    }
    if (seen.installed.length === 0) throw new UsageError(`${none} is installed here: ${seen.missing.join(', ')}`);
    return family;
  });
  return [...new Set(labels)].sort();
}

/** The families a round needs, as the engine's agents file names them (builder's, reviewers'); null if unresolved. */
export async function roundFamilies(request: RoundRequest, env: NodeJS.ProcessEnv) {
  const { loadAgentRegistry, resolveAgent } = await import('@leap/verify');
  try {
    const registry = loadAgentRegistry(request.agentsFile ?? undefined, env);
    const family = (name: string) => resolveAgent(name, registry).family;
    const families = { builder: family(request.agent), reviewers: [...new Set(request.reviewers.map(family))] };
    return [families.builder, ...families.reviewers].every((f) => FAMILY.test(f)) ? families : null;
  } catch {
    return null;
  }
}

/** Why a worker of `labels` hands a round of `families` back (none: unlabelled, takes every round); null: it is its. */
export function notForLabels(labels: string[], families?: { builder: string; reviewers: string[] }): string | null {
  if (labels.length === 0) return null;
  const mine = `this worker's labels: ${labels.join(', ')}`;
  if (families === undefined) return `the job names no agent families; ${mine}`;
  const missing = [...new Set([families.builder, ...families.reviewers])].filter((f) => !labels.includes(f)).sort();
  if (missing.length === 0) return null;
  return `it needs the famil${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')}; ${mine}`;
}
