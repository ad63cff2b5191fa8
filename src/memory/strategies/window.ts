import type { ContextMessage, CountMessageTokens } from '../context';
import type { MemorySettings } from '../settings';
import type { StrategyInput, StrategyResult } from './types';
import { splitTurns, toPlaceholder, sanitize, sumTokens, finish } from './building-blocks';

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

/**
 * The conversation's opening, pinned at the head of a view that must shed history:
 * its first whole turns, tool results as placeholders, as many as fit in
 * `capTokens` (pin_opening_pct of the budget), never the newest turn. In a support
 * chat the opening is where the customer says who they are and what the case is
 * (name, order number, how to reach them), what later turns keep needing; and it
 * never changes, so the prompt prefix through it stays cacheable while the rest of
 * the view steps forward. `covers` is how many of the given messages it stands for.
 */
export interface PinnedOpening {
  messages: ContextMessage[];
  covers: number;
  tokens: number;
}

export const NO_OPENING: PinnedOpening = { messages: [], covers: 0, tokens: 0 };
/** summarize pins nothing: its summary carries the opening, and its views are never compacted. */
export const NOT_PINNED = { opening: NO_OPENING };

export function pinnedOpening(
  messages: ContextMessage[],
  capTokens: number,
  countTokens: CountMessageTokens,
  /** Trailing turns the opening may not take (the newest always; compact's kept turns). */
  protectedTurns = 1,
): PinnedOpening {
  // Only messages that start the conversation (seq 1, or an array without seqs) have an opening;
  // a window loaded from its middle has none, and a gap in the seqs ends it.
  const startsConversation = (messages[0]?.seq ?? 1) <= 1;
  const turns = splitTurns(messages);
  if (capTokens <= 0 || !startsConversation || turns[0]?.[0]?.role !== 'user') return NO_OPENING;
  const opening: PinnedOpening = { messages: [], covers: 0, tokens: 0 };
  let lastSeq = messages[0]!.seq === undefined ? undefined : messages[0]!.seq - 1;
  for (const turn of turns.slice(0, -Math.max(protectedTurns, 1))) {
    const follows = lastSeq === undefined || turn[0]!.seq === undefined || turn[0]!.seq === lastSeq + 1;
    const pinned = turn.map((m) => (m.role === 'tool' ? toPlaceholder(m, countTokens) : m));
    const tokens = sumTokens(pinned);
    if (!follows || opening.tokens + tokens > capTokens || opening.covers + turn.length > OPENING_MAX_MESSAGES) break;
    opening.messages.push(...pinned);
    opening.covers += turn.length;
    opening.tokens += tokens;
    lastSeq = turn.at(-1)!.seq;
  }
  return opening.covers > 0 ? { ...opening, messages: sanitize(opening.messages) } : NO_OPENING;
}

/** The most messages an opening holds. */
export const OPENING_MAX_MESSAGES = 40;
/**
 * How many messages the service reads from the start of a session to choose the
 * opening: one more than it can hold, so that a turn ending at the last one it can
 * hold is seen to be followed (only the conversation's newest turn is never pinned).
 */
export const OPENING_READ_MESSAGES = OPENING_MAX_MESSAGES + 1;

/** The tokens the opening may take: pin_opening_pct of the budget it is pinned in. */
export function openingCap(budgetTokens: number, settings: MemorySettings): number {
  return Math.floor(budgetTokens * settings.pin_opening_pct);
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
