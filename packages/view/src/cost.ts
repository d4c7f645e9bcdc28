// Tokens and cost summed over usage events (CONTRACT section 10). A figure a CLI did not report is
// never guessed: a sum is null when no usage reported it, and `unreported` says how many did not.

import type { Usage } from './fold-run.js';

/** The sum of some usage events. */
export interface CostTotal {
  /** How many usage events (one per agent leaf). */
  leaves: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  /** How many of those leaves did not report each figure. */
  unreported: { input_tokens: number; output_tokens: number; cost_usd: number };
}

/** One line of a cost table: what it is about, and its total. */
export interface CostRow {
  key: string;
  issue: number | null;
  step: string | null;
  slice: string | null;
  total: CostTotal;
}

/** The totals of a run: all of it, and per issue, step, slice and leaf. */
export interface CostBreakdown {
  total: CostTotal;
  byIssue: CostRow[];
  byStep: CostRow[];
  bySlice: CostRow[];
}

/** An empty total. */
export function emptyTotal(): CostTotal {
  return { leaves: 0, input_tokens: null, output_tokens: null, cost_usd: null, unreported: { input_tokens: 0, output_tokens: 0, cost_usd: 0 } };
}

/** Add one usage event to a total. */
export function addUsage(total: CostTotal, usage: Usage): CostTotal {
  total.leaves++;
  for (const field of ['input_tokens', 'output_tokens', 'cost_usd'] as const) {
    const value = usage[field];
    if (value === null) total.unreported[field]++;
    else total[field] = (total[field] ?? 0) + value;
  }
  return total;
}

/** Sum usage events. */
export function sumUsage(usages: readonly Usage[]): CostTotal {
  const total = emptyTotal();
  for (const usage of usages) addUsage(total, usage);
  return total;
}

/** Totals per issue, per step (within its issue), per slice. */
export function breakDownCost(usages: readonly Usage[]): CostBreakdown {
  const issues = new Map<string, CostRow>();
  const steps = new Map<string, CostRow>();
  const slices = new Map<string, CostRow>();
  const row = (map: Map<string, CostRow>, key: string, fields: Omit<CostRow, 'key' | 'total'>): CostRow => {
    let found = map.get(key);
    if (found === undefined) {
      found = { key, ...fields, total: emptyTotal() };
      map.set(key, found);
    }
    return found;
  };
  for (const u of usages) {
    if (u.issue !== null) {
      addUsage(row(issues, String(u.issue), { issue: u.issue, step: null, slice: null }).total, u);
      if (u.step !== null) addUsage(row(steps, `${u.issue}\n${u.step}`, { issue: u.issue, step: u.step, slice: null }).total, u);
    }
    if (u.slice !== null) addUsage(row(slices, u.slice, { issue: null, step: null, slice: u.slice }).total, u);
  }
  return { total: sumUsage(usages), byIssue: [...issues.values()], byStep: [...steps.values()], bySlice: [...slices.values()] };
}

/** A total as one line: `12,345 in / 678 out tokens, $0.42 (2 of 5 leaves did not report cost)`. */
export function describeTotal(total: CostTotal, fmt: { tokens: (n: number | null) => string; usd: (n: number | null) => string }): string {
  if (total.leaves === 0) return 'no usage reported yet';
  const { unreported: u } = total;
  if (u.cost_usd === total.leaves && u.input_tokens === total.leaves && u.output_tokens === total.leaves) {
    return `${total.leaves} ${total.leaves === 1 ? 'leaf' : 'leaves'}, none of which reported tokens or cost`;
  }
  const gaps: string[] = [];
  if (total.unreported.cost_usd > 0) gaps.push(`${total.unreported.cost_usd} of ${total.leaves} leaves did not report cost`);
  const tokenGap = Math.max(total.unreported.input_tokens, total.unreported.output_tokens);
  if (tokenGap > 0) gaps.push(`${tokenGap} did not report tokens`);
  return `${fmt.tokens(total.input_tokens)} in / ${fmt.tokens(total.output_tokens)} out tokens, ${fmt.usd(total.cost_usd)} over ${total.leaves} ${total.leaves === 1 ? 'leaf' : 'leaves'}${gaps.length > 0 ? ` (${gaps.join('; ')})` : ''}`;
}
