import { MEMORY_DEFAULTS, type MemorySettings } from '../settings';

/**
 * Why summarize/compact should act now, or null. Any given trigger may fire; with
 * none given, the default is "less than 20% of the context window remains".
 * `totalTokens` is what the model would be sent without the strategy; `contextWindow`
 * the window the remaining share is measured in (effectiveContextWindow: the smaller of
 * context_window_tokens and the operator's ceiling), context_window_tokens when omitted.
 */
export function triggerReason(
  settings: MemorySettings,
  userTurns: number,
  totalTokens: number,
  contextWindow = settings.context_window_tokens,
): string | null {
  // Compared in tokens, with a hair of tolerance: as shares in floating point, exactly 20%
  // remaining (1 - 0.8) comes out just below 0.2 and fired a token early.
  const remainingTokens = contextWindow - totalTokens;
  const lessLeftThan = (share: number) => remainingTokens < share * contextWindow - 1e-6;
  const checks: Array<[string, number | undefined, boolean]> = [
    ['compact_trigger_turns', settings.compact_trigger_turns, userTurns > (settings.compact_trigger_turns ?? Infinity)],
    ['context_limit', settings.context_limit, userTurns >= (settings.context_limit ?? Infinity)],
    ['token_budget', settings.token_budget, totalTokens > (settings.token_budget ?? Infinity)],
    ['token_soft_budget', settings.token_soft_budget, totalTokens > (settings.token_soft_budget ?? Infinity)],
    ['token_remaining_pct', settings.token_remaining_pct, lessLeftThan(settings.token_remaining_pct ?? -Infinity)],
    [
      'token_soft_remaining_pct',
      settings.token_soft_remaining_pct,
      lessLeftThan(settings.token_soft_remaining_pct ?? -Infinity),
    ],
  ];
  const given = checks.filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    return lessLeftThan(MEMORY_DEFAULTS.default_remaining_pct) ? 'default_remaining_pct' : null;
  }
  return given.find(([, , fired]) => fired)?.[0] ?? null;
}
