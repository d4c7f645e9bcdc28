// A cost for CLIs that report tokens but no cost (Codex, Gemini): an agents-file entry's prices per million
// tokens (issue 21 section 4), applied to what the CLI reported, and marked as an estimate.
import type { AgentUsage } from './plugins.js';

/** US dollars per million tokens, as an agents-file entry's `usd_per_million_tokens` gives them. */
export interface TokenPrices {
  input: number;
  output: number;
}

/**
 * `usage` with `cost_usd` computed from `prices` and `cost_estimated: true`, when the CLI reported no cost
 * and both token counts; unchanged otherwise (a cost the CLI reported is never replaced, missing tokens give
 * no estimate), and unchanged without prices.
 */
export function estimateCost(usage: AgentUsage, prices: TokenPrices | undefined): AgentUsage {
  if (prices === undefined || usage.cost_usd !== null || usage.input_tokens === null || usage.output_tokens === null) return usage;
  return { ...usage, cost_usd: (usage.input_tokens * prices.input + usage.output_tokens * prices.output) / 1_000_000, cost_estimated: true };
}
