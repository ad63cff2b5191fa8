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
 * on an orphan. The service loads this window in SQL (history_window); this is the
 * same rule on an array, for callers that hold the messages already.
 */
export function windowStrategy(input: StrategyInput, limits: { maxMessages: number; maxTokens: number }): StrategyResult {
  const kept: ContextMessage[] = [];
  let tokens = 0;
  for (let i = input.messages.length - 1; i >= 0 && kept.length < limits.maxMessages; i--) {
    const message = input.messages[i]!;
    if (tokens + message.tokens > limits.maxTokens) break;
    tokens += message.tokens;
    kept.unshift(message);
  }
  return finish(input, 'window', sanitize(kept), { triggeredBy: null });
}

/** `trim`: once user turns reach max_turns, only the last keep_last_n_turns turns. */
export function trimStrategy(input: StrategyInput): StrategyResult {
  const { settings } = input;
  const turns = splitTurns(input.messages);
  let trimmed = 0;
  let kept = turns;
  if (countUserTurns(turns) >= settings.max_turns) {
    const keep = Math.max(settings.keep_last_n_turns, 1);
    trimmed = Math.max(0, turns.length - keep);
    kept = turns.slice(trimmed);
  }
  const bounded = enforceBudget([], kept, input);
  return finish(input, 'trim', bounded.messages, { trimmedTurns: trimmed + bounded.droppedTurns, triggeredBy: null });
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
  const triggeredBy = triggerReason(settings, countUserTurns(turns), input.fixedTokens + sumTokens(input.messages));
  if (!triggeredBy) return finish(input, 'compact', sanitize(input.messages), { triggeredBy });

  const protectedTurns = Math.max(settings.compact_keep, lastTurnIsOpen(turns) ? 1 : 0);
  const cutoff = turns.length - protectedTurns;
  const compacted = turns.map((turn, i) =>
    i < cutoff ? turn.map((m) => compactMessage(m, settings, input.countTokens)) : turn,
  );
  const bounded = enforceBudget([], compacted, input);
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
  );
  const keep = Math.max(settings.keep_last_n_turns, 1);
  const unchanged = (): SummarizeResult => {
    const bounded = enforceBudget(previousPair, turns, input);
    return {
      ...finish(input, 'summarize', bounded.messages, { triggeredBy, trimmedTurns: bounded.droppedTurns }),
      newState: null,
      summarizerError: null,
    };
  };
  if (!triggeredBy || turns.length <= keep) return unchanged();

  const prefix = turns.slice(0, -keep).flat();
  const tail = turns.slice(-keep);
  const throughSeq = [...prefix].reverse().find((m) => m.seq !== undefined)?.seq;
  if (throughSeq === undefined) return unchanged();

  let summary: string;
  try {
    summary = (
      await summarize({ previousSummary: state.summary, messages: prefix, tokenBudget: settings.summary_token_budget })
    ).trim();
    if (summary === '') throw new Error('The summarizer returned an empty summary');
  } catch (error) {
    const bounded = enforceBudget(previousPair, tail, input);
    return {
      ...finish(input, 'summarize', bounded.messages, {
        triggeredBy,
        trimmedTurns: turns.length - keep + bounded.droppedTurns,
      }),
      newState: null,
      summarizerError: error,
    };
  }

  const bounded = enforceBudget(summaryPair(summary, input.countTokens), tail, input);
  return {
    ...finish(input, 'summarize', bounded.messages, { triggeredBy, summarized: true, trimmedTurns: bounded.droppedTurns }),
    newState: { summary, summarizedThroughSeq: throughSeq },
    summarizerError: null,
  };
}

// ── triggers ──────────────────────────────────────────────────────────────────

/**
 * Why summarize/compact should act now, or null. Any given trigger may fire; with
 * none given, the default is "less than 20% of context_window_tokens remains".
 * `totalTokens` is what the model would be sent without the strategy.
 */
export function triggerReason(settings: MemorySettings, userTurns: number, totalTokens: number): string | null {
  // Compared in tokens, with a hair of tolerance: as shares in floating point, exactly 20%
  // remaining (1 - 0.8) comes out just below 0.2 and fired a token early.
  const remainingTokens = settings.context_window_tokens - totalTokens;
  const lessLeftThan = (share: number) => remainingTokens < share * settings.context_window_tokens - 1e-6;
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

function compactMessage(message: ContextMessage, settings: MemorySettings, countTokens: CountMessageTokens): ContextMessage {
  if (message.role === 'tool' && !message.compacted) {
    const name = message.name ?? 'unknown';
    if (!shouldCompactTool(name, settings)) return message;
    const content = compactionPlaceholder(name, message.tool_call_id ?? 'unknown');
    return { ...message, content, compacted: true, tokens: countTokens({ ...message, content }) };
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
 * The hard cap: while the prompt is over token_budget, drop the oldest turn (a
 * whole turn, so no tool call loses its result). The lead (the summary pair) and
 * the newest turn always stay.
 */
function enforceBudget(
  lead: ContextMessage[],
  turns: ContextMessage[][],
  input: StrategyInput,
): { messages: ContextMessage[]; droppedTurns: number } {
  const budget = input.settings.token_budget;
  let kept = turns;
  if (budget !== undefined) {
    let total = input.fixedTokens + sumTokens(lead) + kept.reduce((sum, t) => sum + sumTokens(t), 0);
    while (kept.length > 1 && total > budget) {
      total -= sumTokens(kept[0]!);
      kept = kept.slice(1);
    }
  }
  return { messages: [...lead, ...sanitize(kept.flat())], droppedTurns: turns.length - kept.length };
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
