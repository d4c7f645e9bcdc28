// What the leaves cost (CONTRACT section 10), for --max-cost; read through core's readUsage, the one reader.
import { appendEvent, createEvent, readUsage, type AgentPlugin, type AgentUsage, type EventContext } from '@leap/core';

export function issueCosts(eventsFile: string, issue: number): { leaf: string; cost: number | null }[] {
  return readUsage(eventsFile)
    .filter((e) => e.issue === issue)
    .map((e) => ({ leaf: e.leaf, cost: e.cost_usd }));
}

/** Whether a usage event for `leaf` follows byte `offset` (runAgentLeaf appends one when usage is reported). */
export function hasUsageSince(eventsFile: string, offset: number, leaf: string): boolean {
  return readUsage(eventsFile, offset).some((e) => e.leaf === leaf);
}

export function appendUsage(
  eventsFile: string,
  leaf: string,
  agent: AgentPlugin,
  usage: AgentUsage | undefined | null,
  context: EventContext,
): void {
  const fields = {
    leaf,
    agent: agent.name,
    family: agent.family,
    model: usage?.model ?? null,
    input_tokens: usage?.input_tokens ?? null,
    output_tokens: usage?.output_tokens ?? null,
    cost_usd: usage?.cost_usd ?? null,
  };
  appendEvent(eventsFile, createEvent('usage', fields, context));
}

export function describeSpend(costs: { leaf: string; cost: number | null }[]): { total: number; text: string } {
  const byLeaf = new Map<string, number>();
  let total = 0;
  for (const { leaf, cost } of costs) {
    if (cost === null) continue;
    total += cost;
    byLeaf.set(leaf, (byLeaf.get(leaf) ?? 0) + cost);
  }
  return { total, text: [...byLeaf].map(([leaf, cost]) => `${leaf} $${cost.toFixed(4)}`).join(', ') };
}
