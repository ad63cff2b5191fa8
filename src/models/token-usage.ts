/** Tokens the model calls used, as the model (or the offline responder) reported them. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens the provider served from its prompt cache (prompt_tokens_details.cached_tokens); 0 when it reports none. */
  cached_tokens: number;
}

/** No model call made: what a turn's usage starts from. */
export const NO_USAGE: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0 };

/** Why a model call beside the answer's was made. */
export type SideCallPurpose = 'summary' | 'rewrite';

/** A model call made for the turn beside the answer's (the rolling summary's, the query rewrite's): on the bill too. */
export interface SideModelCall {
  purpose: SideCallPurpose;
  /** The model that answered (as it named itself), for its price. */
  model: string;
  usage: TokenUsage;
}

/** Two usages added up. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    cached_tokens: a.cached_tokens + b.cached_tokens,
  };
}
