// The one reader of `usage` events (CONTRACT section 10), for every --max-cost and cost table.
import { readFileSync } from 'node:fs';

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
  let bytes: Buffer;
  try {
    bytes = readFileSync(eventsFile);
  } catch {
    return [];
  }
  const found: UsageEntry[] = [];
  for (const line of (offset > 0 ? bytes.subarray(offset) : bytes).toString('utf8').split('\n')) {
    if (!line.includes('"usage"')) continue;
    try {
      const usage = usageOf(JSON.parse(line) ?? {});
      if (usage !== null) found.push(usage);
    } catch {}
  }
  return found;
}
