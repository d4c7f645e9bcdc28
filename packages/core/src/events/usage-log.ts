// The one reader of `usage` events (CONTRACT section 10), for every --max-cost and cost table; estimated costs.
import { readFileSync } from 'node:fs';
import type { AgentUsage } from '../plugins.js';
import { orElse } from '../errors.js';

/** One `usage` event, its figures checked: a figure that is not a non-negative number is null (not reported). */
export type UsageEntry = NonNullable<ReturnType<typeof usageOf>>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

export function usageOf(e: Record<string, unknown>) {
  if (e.event !== 'usage' || typeof e.leaf !== 'string' || e.leaf === '') return null;
  return {
    leaf: e.leaf,
    ts: str(e.ts),
    agent: str(e.agent),
    family: str(e.family),
    model: str(e.model),
    input_tokens: count(e.input_tokens),
    output_tokens: count(e.output_tokens),
    cost_usd: count(e.cost_usd),
    cost_estimated: e.cost_estimated === true && count(e.cost_usd) !== null, // from an agents-file entry's prices
    issue: typeof e.issue === 'number' && Number.isFinite(e.issue) ? e.issue : null,
    step: str(e.step),
    slice: str(e.slice),
    ball: str(e.ball),
  };
}

/** Usage events from byte `offset` on; a missing log is none, a torn or foreign line skipped. */
export function readUsage(eventsFile: string, offset = 0): UsageEntry[] {
  const bytes = orElse(() => readFileSync(eventsFile).subarray(Math.max(0, offset)), null);
  return (bytes?.toString('utf8').split('\n') ?? []).flatMap(
    (line) => (line.includes('"usage"') && orElse(() => usageOf(JSON.parse(line) ?? {}), null)) || [],
  );
}

/** US dollars per million tokens, as an agents-file entry's `usd_per_million_tokens` gives them. */
export type TokenPrices = { input: number; output: number };

/** For CLIs that report tokens but no cost (Codex, Gemini): set only when both counts are there and no cost is. */
export function estimateCost(usage: AgentUsage, prices: TokenPrices | undefined): AgentUsage {
  if (prices === undefined || usage.cost_usd !== null || usage.input_tokens === null || usage.output_tokens === null)
    return usage;
  const cost_usd = (usage.input_tokens * prices.input + usage.output_tokens * prices.output) / 1_000_000;
  return { ...usage, cost_usd, cost_estimated: true };
}
