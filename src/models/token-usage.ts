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
