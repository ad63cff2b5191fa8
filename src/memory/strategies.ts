import type { ContextMessage, CountMessageTokens } from './context';
import { MEMORY_DEFAULTS, type MemoryMode, type MemorySettings } from './settings';

/** What a strategy remembers between requests: the rolling summary and how far it reaches. */
export interface MemoryState {
  summary: string | null;
  /** The last durable seq the summary covers; later messages are sent verbatim. */
  summarizedThroughSeq: number | null;
}

export const EMPTY_MEMORY_STATE: MemoryState = { summary: null, summarizedThroughSeq: null };

export interface StrategyInput {
  /** The durable messages loaded for this strategy, oldest first (never rewritten). */
  messages: ContextMessage[];
  state: MemoryState;
  settings: MemorySettings;
  /** What every request sends whatever the strategy: system prompt, knowledge, the question. */
  fixedTokens: number;
  countTokens: CountMessageTokens;
  /** Tokens of the whole durable history, when the caller loaded only part of it. */
  historyTokensTotal?: number;
  /** Messages in the whole durable history, when the caller loaded only part of it. */
  historyMessagesTotal?: number;
  /**
   * The operator's ceiling on one call's input (MODEL_INPUT_MAX_TOKENS), when the caller has one:
   * the triggers measure what remains against the smaller of it and context_window_tokens.
   */
  inputCeilingTokens?: number;
}

/** The window the triggers measure against: context_window_tokens, or the operator's ceiling when that is smaller. */
export function effectiveContextWindow(input: Pick<StrategyInput, 'settings' | 'inputCeilingTokens'>): number {
  return Math.min(input.settings.context_window_tokens, input.inputCeilingTokens ?? Infinity);
}

/** What a strategy did, as the chat response reports it. */
export interface MemoryReport {
  strategy: MemoryMode;
  /** The prompt with the whole history: fixed tokens + every durable message. */
  tokens_before: number;
  /** The prompt as sent: fixed tokens + the model's view of the history. */
  tokens_after: number;
  compacted_items: number;
  summarized: boolean;
  trimmed_turns: number;
  /** Which trigger fired (summarize/compact), or null. */
  triggered_by: string | null;
  /** The operator's ceiling on one model call (set by apply_memory after the strategy; see input-ceiling.ts). */
  input_ceiling?: { max_tokens: number; dropped_turns: number; history_cut?: boolean; input_tokens?: number };
}

export interface StrategyResult {
  /** The model's view of the history: starts on a user message, tool pairs intact. */
  messages: ContextMessage[];
  report: MemoryReport;
  /** Tool results replaced by placeholders, by tool name (for the metrics). */
  compactedByTool: Record<string, number>;
}

export interface SummarizeResult extends StrategyResult {
  /** Set when a new summary was made: store it so it is made once. */
  newState: MemoryState | null;
  /** The summarizer's failure, when the strategy fell back to trimming. */
  summarizerError: unknown;
}

export type SummarizeFunction = (input: {
  previousSummary: string | null;
  messages: ContextMessage[];
  tokenBudget: number;
}) => Promise<string>;

export const SUMMARY_INTRO = 'Summary of the earlier part of this conversation (those messages are not shown):';
export const SUMMARY_ACKNOWLEDGEMENT = 'Thank you, I have the earlier context and will continue from there.';

// ── the strategies ────────────────────────────────────────────────────────────

/** `none`: every durable message. */
export function noneStrategy(input: StrategyInput): StrategyResult {
  return finish(input, 'none', sanitize(input.messages), { triggeredBy: null });
}

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

const NO_OPENING: PinnedOpening = { messages: [], covers: 0, tokens: 0 };
/** summarize pins nothing: its summary carries the opening, and its views are never compacted. */
const NOT_PINNED = { opening: NO_OPENING };

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
function afterOpening(limits: WindowLimits, opening: PinnedOpening): WindowLimits {
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
function newestWithin(messages: ContextMessage[], limits: WindowLimits): ContextMessage[] {
  let start = messages.length;
  let tokens = 0;
  while (start > 0 && messages.length - start < limits.maxMessages && tokens + messages[start - 1]!.tokens <= limits.maxTokens) {
    tokens += messages[--start]!.tokens;
  }
  return messages.slice(start);
}

/**
 * `trim`: once user turns reach max_turns, only the last keep_last_n_turns turns
 * (after the conversation's opening, pinned when there is a token_budget to size it
 * by); then turns are appended until max_turns is reached again, and it cuts back to
 * keep_last_n_turns. The cut points sit at fixed multiples of (max_turns −
 * keep_last_n_turns) turns from the start, so requests between two cuts share
 * their prefix (a provider's prompt cache serves it) and every instance agrees.
 */
export function trimStrategy(input: StrategyInput): StrategyResult {
  const { settings } = input;
  const turns = splitTurns(input.messages);
  if (countUserTurns(turns) < settings.max_turns) {
    const bounded = enforceBudget([], turns, input);
    return finish(input, 'trim', bounded.messages, { trimmedTurns: bounded.droppedTurns, triggeredBy: null });
  }
  const opening = pinnedOpening(input.messages, openingCap(settings.token_budget ?? 0, settings), input.countTokens);
  const rest = turns.slice(turnsCovering(turns, opening.covers));
  const keep = Math.max(settings.keep_last_n_turns, 1);
  const step = Math.max(1, settings.max_turns - keep);
  const past = Math.ceil((rest.length - settings.max_turns + 1) / step) * step;
  const trimmed = Math.max(0, Math.min(rest.length - keep, past));
  const bounded = enforceBudget([], rest.slice(trimmed), input, { opening });
  return finish(input, 'trim', bounded.messages, { trimmedTurns: turns.length - splitTurns(bounded.messages).length, triggeredBy: null });
}

/**
 * `compact`: when triggered, every tool result in turns older than the last
 * compact_keep becomes a placeholder naming the tool and call id (and, with
 * compact_clear_tool_inputs, the call's arguments are cleared). The structure of
 * the conversation, every call with its result, stays.
 */
export function compactStrategy(input: StrategyInput): StrategyResult {
  const { settings } = input;
  const turns = splitTurns(input.messages);
  const triggeredBy = triggerReason(settings, countUserTurns(turns), input.fixedTokens + sumTokens(input.messages), effectiveContextWindow(input));
  if (!triggeredBy) return finish(input, 'compact', sanitize(input.messages), { triggeredBy });

  const protectedTurns = Math.max(settings.compact_keep, lastTurnIsOpen(turns) ? 1 : 0);
  const cutoff = turns.length - protectedTurns;
  const compacted = turns.map((turn, i) =>
    i < cutoff ? turn.map((m) => compactMessage(m, settings, input.countTokens)) : turn,
  );
  const bounded = enforceBudget([], compacted, input, { anchorSizes: turns.map(sumTokens), protectedTurns });
  // Counted in what is sent: a placeholder whose turn the hard budget then dropped was trimmed, not compacted.
  const original = new Set(input.messages);
  const compactedByTool: Record<string, number> = {};
  for (const m of bounded.messages) {
    if (m.role !== 'tool' || !m.compacted || original.has(m)) continue;
    const name = m.name ?? 'unknown';
    compactedByTool[name] = (compactedByTool[name] ?? 0) + 1;
  }
  return finish(input, 'compact', bounded.messages, {
    triggeredBy,
    trimmedTurns: bounded.droppedTurns,
    compactedByTool,
  });
}

/**
 * `summarize`: when triggered, the turns before the last keep_last_n_turns are
 * folded into the rolling summary (the previous summary merged in), which the
 * model sees as a user/assistant pair ahead of the verbatim tail. `messages` are
 * the durable messages after state.summarizedThroughSeq. If the summarizer fails,
 * the strategy trims instead and reports the error; no error text is ever sent.
 */
export async function summarizeStrategy(input: StrategyInput, summarize: SummarizeFunction): Promise<SummarizeResult> {
  const { settings, state } = input;
  const previousPair = state.summary ? summaryPair(state.summary, input.countTokens) : [];
  const turns = splitTurns(input.messages);
  const triggeredBy = triggerReason(
    settings,
    countUserTurns(turns),
    input.fixedTokens + sumTokens(previousPair) + sumTokens(input.messages),
    effectiveContextWindow(input),
  );
  const keep = Math.max(settings.keep_last_n_turns, 1);
  const unchanged = (): SummarizeResult => {
    const bounded = enforceBudget(previousPair, turns, input, NOT_PINNED);
    return {
      ...finish(input, 'summarize', bounded.messages, { triggeredBy, trimmedTurns: bounded.droppedTurns }),
      newState: null,
      summarizerError: null,
    };
  };
  if (!triggeredBy || turns.length <= keep) return unchanged();

  // A fold already moves in steps: it leaves the summary and the last keep_last_n_turns
  // turns, and the turns after it append to that prefix until a trigger fires again.
  const tailStart = turns.length - keep;
  const prefix = turns.slice(0, tailStart).flat();
  const tail = turns.slice(tailStart);
  const throughSeq = [...prefix].reverse().find((m) => m.seq !== undefined)?.seq;
  if (throughSeq === undefined) return unchanged();

  let summary: string;
  try {
    summary = (
      await summarize({ previousSummary: state.summary, messages: prefix, tokenBudget: settings.summary_token_budget })
    ).trim();
    if (summary === '') throw new Error('The summarizer returned an empty summary');
  } catch (error) {
    const bounded = enforceBudget(previousPair, tail, input, NOT_PINNED);
    return {
      ...finish(input, 'summarize', bounded.messages, {
        triggeredBy,
        trimmedTurns: tailStart + bounded.droppedTurns,
      }),
      newState: null,
      summarizerError: error,
    };
  }

  const bounded = enforceBudget(summaryPair(summary, input.countTokens), tail, input, NOT_PINNED);
  return {
    ...finish(input, 'summarize', bounded.messages, { triggeredBy, summarized: true, trimmedTurns: bounded.droppedTurns }),
    newState: { summary, summarizedThroughSeq: throughSeq },
    summarizerError: null,
  };
}

// ── triggers ──────────────────────────────────────────────────────────────────

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

// ── building blocks ───────────────────────────────────────────────────────────

/** Turns: each user message with the assistant and tool messages after it. A leading group without a user message is its own turn. */
export function splitTurns(messages: ContextMessage[]): ContextMessage[][] {
  const turns: ContextMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || turns.length === 0) turns.push([message]);
    else turns.at(-1)!.push(message);
  }
  return turns;
}

function countUserTurns(turns: ContextMessage[][]): number {
  return turns.filter((t) => t[0]!.role === 'user').length;
}

/**
 * The last turn is still open when it does not end with the assistant's answer:
 * a tool chain in flight, or a question not yet answered. It is never touched.
 */
function lastTurnIsOpen(turns: ContextMessage[][]): boolean {
  const last = turns.at(-1)?.at(-1);
  return last !== undefined && !(last.role === 'assistant' && !last.tool_calls?.length);
}

export function compactionPlaceholder(toolName: string, callId: string): string {
  return `⟦removed: tool output for ${toolName} (call_id=${callId}); reason=context_compaction⟧`;
}

function shouldCompactTool(name: string, settings: MemorySettings): boolean {
  if (settings.compact_include_tools.length > 0) return settings.compact_include_tools.includes(name);
  return !settings.compact_exclude_tools.includes(name);
}

/** A tool result as its placeholder (naming the tool and the call), tokens recounted. */
function toPlaceholder(message: ContextMessage, countTokens: CountMessageTokens): ContextMessage {
  if (message.compacted) return message;
  const content = compactionPlaceholder(message.name ?? 'unknown', message.tool_call_id ?? 'unknown');
  return { ...message, content, compacted: true, tokens: countTokens({ ...message, content }) };
}

function compactMessage(message: ContextMessage, settings: MemorySettings, countTokens: CountMessageTokens): ContextMessage {
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
function enforceBudget(
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
function turnsCovering(turns: ContextMessage[][], messages: number): number {
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

function finish(
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
