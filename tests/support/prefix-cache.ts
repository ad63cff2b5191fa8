/**
 * A simulation of OpenAI's prompt cache, shared by the loopback stub and
 * `npm run eval:memory` so both measure the same thing.
 *
 * OpenAI's rule (platform.openai.com/docs/guides/prompt-caching): prompts of 1,024
 * tokens or more are cached; a request is served from cache up to the longest
 * prefix it shares with a recent request, in steps of 128 tokens (1,024, 1,152,
 * …). The prompt is compared as rendered text: the tool definitions first, then
 * each message with its role, so a change anywhere ends the shared prefix there.
 */

export const CACHE_MIN_TOKENS = 1024;
export const CACHE_STEP_TOKENS = 128;
/** How many recent prompts the cache remembers (OpenAI keeps prefixes for minutes; a replay is seconds). */
const DEFAULT_CAPACITY = 256;

export interface CachedPrompt {
  promptTokens: number;
  cachedTokens: number;
}

/** The tokens a shared prefix of `prefixTokens` earns: none under 1,024, else rounded down to a 128-token step. */
export function servedFromCache(prefixTokens: number, promptTokens: number): number {
  if (promptTokens < CACHE_MIN_TOKENS || prefixTokens < CACHE_MIN_TOKENS) return 0;
  return Math.min(Math.floor(prefixTokens / CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS, promptTokens);
}

export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export class PrefixCacheSimulator {
  private readonly recent: string[] = [];

  constructor(
    private readonly countTokens: (text: string) => number,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  /** What the cache serves of this prompt; the prompt is then cached for the requests after it. */
  serve(prompt: string): CachedPrompt {
    const promptTokens = this.countTokens(prompt);
    let shared = 0;
    for (const earlier of this.recent) shared = Math.max(shared, commonPrefixLength(prompt, earlier));
    const cachedTokens = shared > 0 ? servedFromCache(this.countTokens(prompt.slice(0, shared)), promptTokens) : 0;
    if (promptTokens >= CACHE_MIN_TOKENS) {
      this.recent.push(prompt);
      if (this.recent.length > this.capacity) this.recent.shift();
    }
    return { promptTokens, cachedTokens };
  }

  clear(): void {
    this.recent.length = 0;
  }
}
