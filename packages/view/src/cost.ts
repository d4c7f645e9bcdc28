// A figure a CLI did not report is never guessed: a sum is null when no usage reported it (CONTRACT section 10).
import { getOr } from './_fold-leaves.js';
import { formatTokens, formatUsd } from './_text.js';
import type { Usage } from './fold-run.js';

const FIGURES = ['input_tokens', 'output_tokens', 'cost_usd'] as const;
/** `estimated`: how many costs are estimates from an agents-file entry's prices (Codex, Gemini), not a CLI's own. */
export type CostTotal = Record<(typeof FIGURES)[number], number | null> & {
  leaves: number;
  unreported: Record<(typeof FIGURES)[number], number>;
  estimated: number;
};
export type CostRow = { issue: number | null; step: string | null; slice: string | null; total: CostTotal };

function emptyTotal(): CostTotal {
  const unreported = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  return { leaves: 0, input_tokens: null, output_tokens: null, cost_usd: null, unreported, estimated: 0 };
}

function addUsage(total: CostTotal, usage: Usage): CostTotal {
  total.leaves++;
  for (const k of FIGURES) {
    const v = usage[k];
    if (v === null) total.unreported[k]++;
    else total[k] = (total[k] ?? 0) + v;
  }
  if (usage.cost_usd !== null && usage.cost_estimated) total.estimated++;
  return total;
}

export const sumUsage = (usages: readonly Usage[]): CostTotal => usages.reduce(addUsage, emptyTotal());

export function breakDownCost(usages: readonly Usage[]) {
  const out = { total: sumUsage(usages), byIssue: [] as CostRow[], byStep: [] as CostRow[], bySlice: [] as CostRow[] };
  const rows = new Map<string, CostRow>();
  const add = (to: CostRow[], key: string, u: Usage, row: Omit<CostRow, 'total'>): void => {
    const made = getOr(rows, key, () => ({ ...row, total: emptyTotal() }));
    if (made.total.leaves === 0) to.push(made);
    addUsage(made.total, u);
  };
  for (const u of usages) {
    const { issue, step, slice } = u;
    if (issue !== null) add(out.byIssue, `i${issue}`, u, { issue, step: null, slice: null });
    if (issue !== null && step !== null) add(out.byStep, `s${issue}\n${step}`, u, { issue, step, slice: null });
    if (slice !== null) add(out.bySlice, `b${slice}`, u, { issue: null, step: null, slice });
  }
  return out;
}

/** A total as one line: `12,345 in / 678 out tokens, $0.42 over 5 leaves (2 of 5 leaves did not report cost)`. */
export function describeTotal(total: CostTotal, fmt = { tokens: formatTokens, usd: formatUsd }): string {
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
