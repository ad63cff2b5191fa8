import type { ContextMessage, CountMessageTokens } from '../context';
import type { MemorySettings } from '../settings';
import type { StrategyInput, StrategyResult } from './types';
import { finish, sanitize, sumTokens, NO_OPENING, NOT_PINNED, OPENING_MAX_MESSAGES, OPENING_READ_MESSAGES, openingCap, pinnedOpening, type PinnedOpening } from './building-blocks';

// The pinned opening lives with the building blocks that make it; its names are exported here too, where window's users look.
export { NO_OPENING, NOT_PINNED, OPENING_MAX_MESSAGES, OPENING_READ_MESSAGES, openingCap, pinnedOpening, type PinnedOpening };

/**
 * `window`: the newest messages within a token and message budget, never starting
 * on an orphan. The service loads this window in SQL (history_window) with the
 * limits windowLoadPlan gives; this is the same rule on an array, for callers that
 * hold the messages already. It moves in steps: once the history outgrows a limit,
 * the window's start jumps forward so that it holds the low-water share of the
 * limit, and stays there while later turns are appended (see steppedWindowLimits).
 * From then on the conversation's opening is pinned ahead of it (see pinnedOpening).
 * When the stepped window would hold no whole turn, the plain window is sent.
 */
export function windowStrategy(input: StrategyInput, limits: WindowLimits): StrategyResult {
  const whole = {
    messages: input.historyMessagesTotal ?? input.messages.length,
    tokens: input.historyTokensTotal ?? sumTokens(input.messages),
  };
  const mustCut = whole.messages > limits.maxMessages || whole.tokens > limits.maxTokens;
  const opening = mustCut ? pinnedOpening(input.messages, openingCap(limits.maxTokens, input.settings), input.countTokens) : NO_OPENING;
  const rest = input.messages.slice(opening.covers);
  const restLimits = afterOpening(limits, opening);
  const steppedRest = (messages: ContextMessage[]) => {
    const totals = { messages: messages.length, tokens: sumTokens(messages) };
    const stepped = sanitize(newestWithin(messages, steppedWindowLimits(totals, restLimits, input.settings.low_water_pct)));
    return stepped.length > 0 ? stepped : sanitize(newestWithin(messages, restLimits));
  };
  const tail = steppedRest(rest);
  // An opening with nothing after it that fits is no window: the plain one is sent instead.
  const kept = tail.length > 0 ? [...opening.messages, ...tail] : sanitize(newestWithin(input.messages, limits));
  return finish(input, 'window', kept, { triggeredBy: null });
}

/** The limits left for the rest of the view once the opening is pinned. */
export function afterOpening(limits: WindowLimits, opening: PinnedOpening): WindowLimits {
  return { maxMessages: limits.maxMessages - opening.messages.length, maxTokens: limits.maxTokens - opening.tokens };
}

/**
 * What the service loads for `window`, from the session's totals and its first
 * stored messages (oldest first, OPENING_READ_MESSAGES of them): the
 * opening's messages to keep from those, and the stepped limits of the window over
 * the messages after them (history_window_after). The same rule windowStrategy
 * applies to an array, on stored token counts, so every instance loads the same.
 */
export function windowLoadPlan(
  first: ContextMessage[],
  totals: { messages: number; tokens: number },
  limits: WindowLimits,
  settings: MemorySettings,
  countTokens: CountMessageTokens,
): { openingCount: number; afterSeq: number; stepped: WindowLimits; plain: WindowLimits } {
  const mustCut = totals.messages > limits.maxMessages || totals.tokens > limits.maxTokens;
  const opening = mustCut ? pinnedOpening(first, openingCap(limits.maxTokens, settings), countTokens) : NO_OPENING;
  const covered = first.slice(0, opening.covers);
  const restTotals = { messages: totals.messages - covered.length, tokens: totals.tokens - sumTokens(covered) };
  const plain = afterOpening(limits, opening);
  return {
    openingCount: opening.covers,
    afterSeq: covered.at(-1)?.seq ?? 0,
    stepped: steppedWindowLimits(restTotals, plain, settings.low_water_pct),
    plain,
  };
}

export interface WindowLimits {
  maxMessages: number;
  maxTokens: number;
}

/**
 * The window's limits for a history of `totals` (the whole durable history: the
 * session's message_count and token_count), so that it moves in steps rather than
 * one message per turn. Cut points sit at fixed multiples of a step counted from the
 * start of the conversation (step = limit − low-water share of it): the window keeps
 * what lies after the last multiple it must pass to fit the limit. Until the history
 * grows past the next multiple's reach the cut stays where it is and each request
 * extends the previous one's prefix; then the start jumps one step and the window
 * holds the low-water share again. Derived from the totals only, so every instance
 * agrees without remembering anything. Both limits are never above the given ones.
 */
export function steppedWindowLimits(totals: { messages: number; tokens: number }, limits: WindowLimits, lowWaterPct: number): WindowLimits {
  const steppedLimit = (total: number, limit: number) => {
    if (total <= limit) return limit;
    const step = Math.max(1, limit - Math.floor(limit * lowWaterPct));
    return total - Math.ceil((total - limit) / step) * step;
  };
  return {
    maxMessages: Math.max(0, steppedLimit(totals.messages, limits.maxMessages)),
    maxTokens: Math.max(0, steppedLimit(totals.tokens, limits.maxTokens)),
  };
}

/** The newest messages while their running token sum fits and their number is within maxMessages. */
export function newestWithin(messages: ContextMessage[], limits: WindowLimits): ContextMessage[] {
  let start = messages.length;
  let tokens = 0;
  while (start > 0 && messages.length - start < limits.maxMessages && tokens + messages[start - 1]!.tokens <= limits.maxTokens) {
    tokens += messages[--start]!.tokens;
  }
  return messages.slice(start);
}
