import type { ContextMessage, CountMessageTokens } from '../context';
import type { MemoryMode, MemorySettings } from '../settings';
import { type StrategyInput, type StrategyResult, SUMMARY_INTRO, SUMMARY_ACKNOWLEDGEMENT } from './types';

/** Turns: each user message with the assistant and tool messages after it. A leading group without a user message is its own turn. */
export function splitTurns(messages: ContextMessage[]): ContextMessage[][] {
  const turns: ContextMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || turns.length === 0) turns.push([message]);
    else turns.at(-1)!.push(message);
  }
  return turns;
}

export function countUserTurns(turns: ContextMessage[][]): number {
  return turns.filter((t) => t[0]!.role === 'user').length;
}

/**
 * The last turn is still open when it does not end with the assistant's answer:
 * a tool chain in flight, or a question not yet answered. It is never touched.
 */
export function lastTurnIsOpen(turns: ContextMessage[][]): boolean {
  const last = turns.at(-1)?.at(-1);
  return last !== undefined && !(last.role === 'assistant' && !last.tool_calls?.length);
}

export function compactionPlaceholder(toolName: string, callId: string): string {
  return `⟦removed: tool output for ${toolName} (call_id=${callId}); reason=context_compaction⟧`;
}

export function shouldCompactTool(name: string, settings: MemorySettings): boolean {
  if (settings.compact_include_tools.length > 0) return settings.compact_include_tools.includes(name);
  return !settings.compact_exclude_tools.includes(name);
}

/** A tool result as its placeholder (naming the tool and the call), tokens recounted. */
export function toPlaceholder(message: ContextMessage, countTokens: CountMessageTokens): ContextMessage {
  if (message.compacted) return message;
  const content = compactionPlaceholder(message.name ?? 'unknown', message.tool_call_id ?? 'unknown');
  return { ...message, content, compacted: true, tokens: countTokens({ ...message, content }) };
}

export function compactMessage(message: ContextMessage, settings: MemorySettings, countTokens: CountMessageTokens): ContextMessage {
  if (message.role === 'tool' && !message.compacted) {
    return shouldCompactTool(message.name ?? 'unknown', settings) ? toPlaceholder(message, countTokens) : message;
  }
  if (message.role === 'assistant' && settings.compact_clear_tool_inputs && message.tool_calls?.length) {
    let cleared = false;
    const tool_calls = message.tool_calls.map((call) => {
      if (!shouldCompactTool(call.name, settings) || Object.keys(call.arguments).length === 0) return call;
      cleared = true;
      return { ...call, arguments: {} };
    });
    if (!cleared) return message;
    return { ...message, tool_calls, compacted: true, tokens: countTokens({ ...message, tool_calls }) };
  }
  return message;
}

/** The synthetic pair that carries the summary, so roles still alternate. */
export function summaryPair(summary: string, countTokens: CountMessageTokens): ContextMessage[] {
  const question = `${SUMMARY_INTRO}\n${summary}`;
  return [
    { role: 'user', content: question, tokens: countTokens({ content: question }), synthetic: true },
    {
      role: 'assistant',
      content: SUMMARY_ACKNOWLEDGEMENT,
      tokens: countTokens({ content: SUMMARY_ACKNOWLEDGEMENT }),
      synthetic: true,
    },
  ];
}

/**
 * The hard cap: when the prompt is over token_budget, the oldest whole turns are
 * left out (so no tool call loses its result); the lead (the summary pair), the
 * conversation's opening (pinnedOpening, when there is no lead) and the newest turn
 * stay. It sheds in steps, down to the low-water mark: the cut points sit at
 * multiples of (token_budget − low_water_pct × token_budget) tokens counted from the
 * first turn after the opening, and the view starts at the first turn past the
 * smallest multiple that brings the prompt within the budget. Between two cuts the
 * start stays put and each request extends the previous one's prefix.
 */
export function enforceBudget(
  lead: ContextMessage[],
  turns: ContextMessage[][],
  input: StrategyInput,
  options: {
    /** Where the cut points are counted on: the turns' tokens before compaction shrank them (they never change). */
    anchorSizes?: number[];
    /** An opening the caller already took off `turns` (trim), or none to pin (summarize); otherwise it is found here when there is no lead. */
    opening?: PinnedOpening;
    /** Trailing turns an opening found here may not take (compact's kept turns). */
    protectedTurns?: number;
  } = {},
): { messages: ContextMessage[]; droppedTurns: number } {
  const budget = input.settings.token_budget;
  const given = options.opening ?? NO_OPENING;
  const whole = { messages: [...lead, ...given.messages, ...sanitize(turns.flat())], droppedTurns: 0 };
  const room = budget === undefined ? Infinity : budget - input.fixedTokens - sumTokens(lead);
  if (budget === undefined || sumTokens(turns.flat()) + given.tokens <= room) return whole;

  let opening = given;
  let rest = turns;
  let anchors = options.anchorSizes ?? turns.map(sumTokens);
  if (!options.opening && lead.length === 0) {
    opening = pinnedOpening(turns.flat(), openingCap(budget, input.settings), input.countTokens, options.protectedTurns);
    const pinned = turnsCovering(turns, opening.covers);
    rest = turns.slice(pinned);
    anchors = anchors.slice(pinned);
  }
  // The newest turn always stays; when it and the opening do not fit together, the opening gives way.
  if (rest.length > 0 && sumTokens(rest.at(-1)!) > room - opening.tokens && opening !== NO_OPENING) {
    if (!options.opening) {
      rest = turns;
      anchors = options.anchorSizes ?? turns.map(sumTokens);
    }
    opening = NO_OPENING;
  }

  if (rest.length <= 1) return { messages: [...lead, ...opening.messages, ...sanitize(rest.flat())], droppedTurns: 0 };
  const available = room - opening.tokens;
  const sizes = rest.map(sumTokens);
  const tokensFrom = (start: number) => sizes.slice(start).reduce((a, b) => a + b, 0);
  let kept = rest;
  if (tokensFrom(0) > available) {
    const step = Math.max(1, budget - Math.floor(budget * input.settings.low_water_pct));
    // The first turn at or past the first multiple of the step whose rest fits (the newest turn always stays).
    // Without compaction, anchor and actual sizes agree and the first multiple tried is the answer.
    const sameSizes = anchors.every((size, i) => size === sizes[i]);
    let multiple = sameSizes ? Math.max(1, Math.ceil((tokensFrom(0) - available) / step)) : 1;
    let start = 0;
    for (;;) {
      let before = 0;
      start = 0;
      while (start < rest.length - 1 && before < multiple * step) before += anchors[start++]!;
      if (start === rest.length - 1 || tokensFrom(start) <= available) break;
      multiple++;
    }
    kept = rest.slice(start);
  }
  return { messages: [...lead, ...opening.messages, ...sanitize(kept.flat())], droppedTurns: rest.length - kept.length };
}

/** How many whole turns the first `messages` messages make up. */
export function turnsCovering(turns: ContextMessage[][], messages: number): number {
  let count = 0;
  for (let covered = 0; count < turns.length && covered + turns[count]!.length <= messages; count++) covered += turns[count]!.length;
  return count;
}

/**
 * The safety rules every view obeys: it starts on a user message (after any
 * synthetic lead), and every tool call has its result and every result its call.
 */
export function sanitize(messages: ContextMessage[]): ContextMessage[] {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  const started = firstUser < 0 ? [] : messages.slice(firstUser);

  // A call's result is one of the tool messages right after its call message (as the
  // chat API requires), matched there by id: ids need not be unique in a conversation
  // (some OpenAI-compatible servers restart them every turn, a missing id is stored as
  // ''), so a result elsewhere with the same id does not answer it.
  const result: ContextMessage[] = [];
  for (let i = 0; i < started.length; i++) {
    const message = started[i]!;
    if (message.role === 'tool') continue; // taken with its call message below; a stray result is dropped
    if (!(message.role === 'assistant' && message.tool_calls?.length)) {
      result.push(message);
      continue;
    }
    let end = i + 1;
    while (end < started.length && started[end]!.role === 'tool') end++;
    const results = new Map<string, ContextMessage>();
    for (const r of started.slice(i + 1, end)) {
      if (typeof r.tool_call_id === 'string' && !results.has(r.tool_call_id)) results.set(r.tool_call_id, r);
    }
    const seen = new Set<string>();
    const calls = message.tool_calls.filter((c) => results.has(c.id) && !seen.has(c.id) && seen.add(c.id));
    if (calls.length === message.tool_calls.length) result.push(message);
    else if (calls.length > 0 || message.content !== '') result.push({ ...message, tool_calls: calls.length > 0 ? calls : null });
    for (const r of results.values()) if (seen.has(r.tool_call_id!)) result.push(r);
  }
  return result;
}

export function sumTokens(messages: ContextMessage[]): number {
  return messages.reduce((sum, m) => sum + m.tokens, 0);
}

export function finish(
  input: StrategyInput,
  strategy: MemoryMode,
  messages: ContextMessage[],
  details: { triggeredBy: string | null; trimmedTurns?: number; summarized?: boolean; compactedByTool?: Record<string, number> },
): StrategyResult {
  const compactedByTool = details.compactedByTool ?? {};
  return {
    messages,
    compactedByTool,
    report: {
      strategy,
      tokens_before: input.fixedTokens + (input.historyTokensTotal ?? sumTokens(input.messages)),
      tokens_after: input.fixedTokens + sumTokens(messages),
      compacted_items: Object.values(compactedByTool).reduce((a, b) => a + b, 0),
      summarized: details.summarized ?? false,
      trimmed_turns: details.trimmedTurns ?? 0,
      triggered_by: details.triggeredBy,
    },
  };
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
