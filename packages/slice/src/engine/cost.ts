// --max-cost: the leaves' `usage` events (core's readUsage), else their results', checked after every round.
import { type AgentUsage, readUsage, statePaths } from '@leap/core';

export class CostMeter {
  private readonly leaves = new Map<string, AgentUsage | null>();
  private readonly events: string;

  constructor(
    stateDir: string,
    private readonly since: number,
    readonly limit: number | undefined,
  ) {
    this.events = statePaths(stateDir).events;
  }

  ran(leaves: { leaf: string; usage: AgentUsage | null }[]): void {
    for (const l of leaves) this.leaves.set(l.leaf, l.usage ?? this.leaves.get(l.leaf) ?? null);
  }

  /** Dollars per leaf: its `usage` events since the run started (each launch costs), else its result's usage. */
  tally(): { usd: number; unknown: number; leaves: { leaf: string; usd: number | null }[] } {
    const fromLog = new Map<string, number | null>();
    if (this.leaves.size > 0) {
      for (const e of readUsage(this.events)) {
        if (!this.leaves.has(e.leaf) || Date.parse(e.ts ?? '') < this.since - 1) continue;
        const before = fromLog.get(e.leaf) ?? null;
        fromLog.set(e.leaf, e.cost_usd === null ? before : (before ?? 0) + e.cost_usd);
      }
    }
    const leaves = [...this.leaves].map(([leaf, usage]) => ({
      leaf,
      usd: fromLog.has(leaf) ? (fromLog.get(leaf) ?? null) : (usage?.cost_usd ?? null),
    }));
    const usd = leaves.reduce((sum, l) => sum + (l.usd ?? 0), 0);
    return { usd, unknown: leaves.filter((l) => l.usd === null).length, leaves };
  }

  over(): boolean {
    return this.limit !== undefined && this.leaves.size > 0 && this.tally().usd > this.limit;
  }

  reason(): string {
    const t = this.tally();
    const top = t.leaves
      .filter((l) => l.usd !== null && l.usd > 0)
      .sort((a, b) => (b.usd as number) - (a.usd as number))
      .slice(0, 5);
    const leaves = top.map((l) => `${l.leaf} $${(l.usd as number).toFixed(4)}`).join(', ') || 'no leaf reported a cost';
    return `the cost budget is spent: $${t.usd.toFixed(4)} of --max-cost $${this.limit} (${leaves})`;
  }
}
