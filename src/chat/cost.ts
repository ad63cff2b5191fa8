import { addUsage, NO_USAGE, type SideCallPurpose, type SideModelCall, type TokenUsage } from '../models/token-usage';

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

/** One purpose's share of a turn's bill: its calls' tokens, and their cost when every one of them has a price. */
export interface PurposeUsage extends TokenUsage {
  /** Model calls made for this purpose in the turn. */
  calls: number;
  cost?: number;
}

/** A turn's usage: every model call summed (what the provider bills), and each purpose on its own. */
export interface TurnUsage extends TokenUsage {
  by_purpose: { answer: PurposeUsage } & Partial<Record<SideCallPurpose, PurposeUsage>>;
}

/**
 * The bill of one turn: the answering calls (their usage summed in the graph, priced
 * at the model that answered) and the calls beside them (the summary's, the query
 * rewrite's), each priced at its own model. The total cost is null unless every call
 * has a price: a partial sum would understate the bill.
 */
export function turnBill(
  prices: PriceTable,
  answer: { model: string; usage: TokenUsage; calls: number },
  sideCalls: readonly SideModelCall[],
): { usage: TurnUsage; cost: number | null } {
  const byPurpose: Record<string, PurposeUsage & { priced: boolean }> = {};
  const add = (purpose: string, model: string, usage: TokenUsage, calls: number) => {
    const cost = estimateCost(prices, model, usage);
    const entry = byPurpose[purpose] ?? { ...NO_USAGE, calls: 0, cost: 0, priced: true };
    byPurpose[purpose] = {
      ...addUsage(entry, usage),
      calls: entry.calls + calls,
      cost: (entry.cost ?? 0) + (cost ?? 0),
      priced: entry.priced && cost !== null,
    };
  };
  add('answer', answer.model, answer.usage, answer.calls);
  for (const call of sideCalls) add(call.purpose, call.model, call.usage, 1);

  let total: TokenUsage = NO_USAGE;
  let cost: number | null = 0;
  const shown: Record<string, PurposeUsage> = {};
  for (const [purpose, { priced, cost: purposeCost, ...entry }] of Object.entries(byPurpose)) {
    total = addUsage(total, entry);
    cost = priced && cost !== null ? cost + purposeCost! : null;
    shown[purpose] = { ...entry, ...(priced && { cost: roundCost(purposeCost!) }) };
  }
  return {
    usage: { ...total, by_purpose: shown as TurnUsage['by_purpose'] },
    cost: cost === null ? null : roundCost(cost),
  };
}
