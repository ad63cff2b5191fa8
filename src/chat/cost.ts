import type { TokenUsage } from '../models/token-usage';

/** A model's prices per million tokens (MODEL_PRICES), in the operator's currency. */
export interface ModelPrice {
  input: number;
  /** Prompt tokens the provider served from its prompt cache. */
  cached_input: number;
  output: number;
}

/** Prices by model name; empty when none are configured (then no cost is reported). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The price of a model: its own entry, else the longest configured name it starts
 * with (providers answer with dated names: "gpt-4o-mini-2024-07-18" is priced as
 * "gpt-4o-mini"). Null when none matches.
 */
export function priceOf(prices: PriceTable, model: string): ModelPrice | null {
  if (prices[model]) return prices[model];
  const prefix = Object.keys(prices)
    .filter((name) => model.startsWith(name))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? prices[prefix]! : null;
}

/**
 * The estimated cost of a turn's model calls: uncached prompt tokens at the input
 * price, cached ones at the cached-input price, completion tokens at the output
 * price. Null when the model has no price, so no cost is shown rather than a wrong one.
 */
export function estimateCost(prices: PriceTable, model: string, usage: TokenUsage): number | null {
  const price = priceOf(prices, model);
  if (!price) return null;
  const uncached = Math.max(0, usage.prompt_tokens - usage.cached_tokens);
  const cost = (uncached * price.input + usage.cached_tokens * price.cached_input + usage.completion_tokens * price.output) / 1_000_000;
  return roundCost(cost);
}

/** Costs to ten-millionths of the currency unit: an answer costs fractions of a cent. */
export function roundCost(cost: number): number {
  return Math.round(cost * 1e7) / 1e7;
}
