// What the run's leaves cost (CONTRACT section 10): `usage` events, summed for --max-cost.
import { readFileSync } from 'node:fs';
import { appendEvent, createEvent, type AgentPlugin, type AgentUsage, type EventContext } from '@leap/core';

/** One leaf's reported cost. */
export interface LeafCost {
  leaf: string;
  cost: number;
}

/** Every `usage` event of issue N in the log, in order (a torn or foreign line is skipped). */
export function readUsage(eventsFile: string, issue: number): { leaf: string; cost: number | null }[] {
  let text: string;
  try {
    text = readFileSync(eventsFile, 'utf8');
  } catch {
    return [];
  }
  const found: { leaf: string; cost: number | null }[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"usage"')) continue;
    try {
      const e = JSON.parse(line) as { event?: string; issue?: number; leaf?: string; cost_usd?: number | null };
      if (e.event === 'usage' && e.issue === issue && typeof e.leaf === 'string') found.push({ leaf: e.leaf, cost: typeof e.cost_usd === 'number' ? e.cost_usd : null });
    } catch {
      // A torn line.
    }
  }
  return found;
}

/** Whether the log already has a usage event for `leaf` after byte `offset` (runAgentLeaf appends one once it reports usage). */
export function hasUsageSince(eventsFile: string, offset: number, leaf: string): boolean {
  let text: string;
  try {
    text = readFileSync(eventsFile).subarray(offset).toString('utf8');
  } catch {
    return false;
  }
  return text.split('\n').some((line) => line.includes('"usage"') && line.includes(JSON.stringify(leaf)) && /"event":"usage"/.test(line));
}

/** Append a usage event for a leaf whose runner did not. */
export function appendUsage(eventsFile: string, leaf: string, agent: AgentPlugin, usage: AgentUsage | undefined | null, context: EventContext): void {
  appendEvent(eventsFile, createEvent('usage', {
    leaf, agent: agent.name, family: agent.family, model: usage?.model ?? null,
    input_tokens: usage?.input_tokens ?? null, output_tokens: usage?.output_tokens ?? null, cost_usd: usage?.cost_usd ?? null,
  }, context));
}

/** The spend so far and what it was spent on, for the cost-budget narration. */
export function describeSpend(costs: { leaf: string; cost: number | null }[]): { total: number; text: string } {
  const byLeaf = new Map<string, number>();
  let total = 0;
  for (const { leaf, cost } of costs) {
    if (cost === null) continue;
    total += cost;
    byLeaf.set(leaf, (byLeaf.get(leaf) ?? 0) + cost);
  }
  const parts = [...byLeaf].map(([leaf, cost]) => `${leaf} $${cost.toFixed(4)}`);
  return { total, text: parts.join(', ') };
}
