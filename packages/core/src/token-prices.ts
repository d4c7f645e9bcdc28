// A cost for CLIs that report tokens but none (Codex, Gemini), from an agents-file entry's prices (issue 21 §4).
import type { AgentUsage } from './plugins.js';

/** US dollars per million tokens, as an agents-file entry's `usd_per_million_tokens` gives them. */
export type TokenPrices = { input: number; output: number };

/** Estimated only when the CLI reported no cost but both token counts; a reported cost is never replaced. */
export function estimateCost(usage: AgentUsage, prices: TokenPrices | undefined): AgentUsage {
  if (prices === undefined || usage.cost_usd !== null || usage.input_tokens === null || usage.output_tokens === null)
    return usage;
  const cost_usd = (usage.input_tokens * prices.input + usage.output_tokens * prices.output) / 1_000_000;
  return { ...usage, cost_usd, cost_estimated: true };
}
