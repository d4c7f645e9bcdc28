// A figure a CLI did not report is never guessed: a sum is null when no usage reported it (CONTRACT section 10).

import { getOr } from './_fold-leaves.js';
import type { Usage } from './fold-run.js';

export interface CostTotal {
  /** How many usage events (one per agent leaf). */
  leaves: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  /** How many of those leaves did not report each figure. */
  unreported: { input_tokens: number; output_tokens: number; cost_usd: number };
  /** How many costs are estimates from an agents-file entry's prices (Codex, Gemini), not a CLI's own figure. */
  estimated: number;
}

export interface CostRow {
  key: string;
  issue: number | null;
  step: string | null;
  slice: string | null;
  total: CostTotal;
}

export interface CostBreakdown {
  total: CostTotal;
  byIssue: CostRow[];
  byStep: CostRow[];
  bySlice: CostRow[];
}

function emptyTotal(): CostTotal {
  return {
    leaves: 0,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    unreported: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    estimated: 0,
  };
}

function addUsage(total: CostTotal, usage: Usage): CostTotal {
  total.leaves++;
  // Each field written out: a report adds thousands of usages, four times each.
  if (usage.input_tokens === null) total.unreported.input_tokens++;
  else total.input_tokens = (total.input_tokens ?? 0) + usage.input_tokens;
  if (usage.output_tokens === null) total.unreported.output_tokens++;
  else total.output_tokens = (total.output_tokens ?? 0) + usage.output_tokens;
  if (usage.cost_usd === null) total.unreported.cost_usd++;
  else {
    total.cost_usd = (total.cost_usd ?? 0) + usage.cost_usd;
    if (usage.cost_estimated) total.estimated++;
  }
  return total;
}

export function sumUsage(usages: readonly Usage[]): CostTotal {
  return usages.reduce(addUsage, emptyTotal());
}

/** Totals per issue, per step (within its issue), per slice. */
export function breakDownCost(usages: readonly Usage[]): CostBreakdown {
  // Rows in order of first appearance, found through maps: no key string built per usage.
  const out: CostBreakdown = { total: sumUsage(usages), byIssue: [], byStep: [], bySlice: [] };
  const row = (to: CostRow[], key: string, issue: number | null, step: string | null, slice: string | null) => {
    const made: CostRow = { key, issue, step, slice, total: emptyTotal() };
    to.push(made);
    return made;
  };
  const issues = new Map<number, CostRow>();
  const steps = new Map<number, Map<string, CostRow>>();
  const slices = new Map<string, CostRow>();
  for (const u of usages) {
    const { issue, step, slice } = u;
    if (issue !== null) {
      addUsage(getOr(issues, issue, () => row(out.byIssue, String(issue), issue, null, null)).total, u);
      const ofIssue = getOr(steps, issue, () => new Map<string, CostRow>());
      if (step !== null)
        addUsage(getOr(ofIssue, step, () => row(out.byStep, `${issue}\n${step}`, issue, step, null)).total, u);
    }
    if (slice !== null) addUsage(getOr(slices, slice, () => row(out.bySlice, slice, null, null, slice)).total, u);
  }
  return out;
}

/** A total as one line: `12,345 in / 678 out tokens, $0.42 over 5 leaves (2 of 5 leaves did not report cost)`. */
export function describeTotal(
  total: CostTotal,
  fmt: { tokens: (n: number | null) => string; usd: (n: number | null) => string },
): string {
  if (total.leaves === 0) return 'no usage reported yet';
  const { unreported: u } = total;
  const leaves = `${total.leaves} ${total.leaves === 1 ? 'leaf' : 'leaves'}`;
  if (nothingReported(total)) return `${leaves}, none of which reported tokens or cost`;
  const gaps: string[] = [];
  if (u.cost_usd > 0) gaps.push(`${u.cost_usd} of ${total.leaves} leaves did not report cost`);
  const tokenGap = Math.max(u.input_tokens, u.output_tokens);
  if (tokenGap > 0) gaps.push(`${tokenGap} did not report tokens`);
  if (total.estimated > 0)
    gaps.push(`${total.estimated} of ${total.leaves - u.cost_usd} costs estimated from agents-file prices`);
  const tokens = `${fmt.tokens(total.input_tokens)} in / ${fmt.tokens(total.output_tokens)} out tokens`;
  return `${tokens}, ${fmt.usd(total.cost_usd)} over ${leaves}${gaps.length > 0 ? ` (${gaps.join('; ')})` : ''}`;
}

// Whether no leaf reported any figure (scripted agents, CLIs that say nothing): then it is said once, not row by row.
export function nothingReported(t: CostTotal): boolean {
  const { unreported: u, leaves } = t;
  return u.cost_usd === leaves && u.input_tokens === leaves && u.output_tokens === leaves;
}
