import { AsyncCaller, classifyRateLimitError } from '@langchain/core/utils/async_caller';

/** LangChain's own handler (AsyncCaller keeps it protected): no retry after an abort, on a 4xx other than 429, or on a used-up quota. */
class LangChainRetries extends AsyncCaller {
  readonly failedAttempt = this.onFailedAttempt!;
}
const langchainFailedAttempt = new LangChainRetries({}).failedAttempt;

/**
 * Decides after each failed model or embeddings call whether to retry (return)
 * or give up (throw). A 429 is retried with backoff like a 5xx, as
 * OPENAI_MAX_RETRIES promises: LangChain's handler gives up at once on a 429
 * without a Retry-After header, which OpenAI-compatible servers and proxies
 * often send. Everything else is LangChain's call, so a used-up quota or a
 * Retry-After of minutes still fails fast.
 */
export function retryRateLimitsWithBackoff(error: unknown): void {
  if (classifyRateLimitError(error)?.reason === 'headerless_429') return;
  langchainFailedAttempt(error);
}
