import type { ContextMessage, CountMessageTokens } from '../context';
import type { MemoryMode, MemorySettings } from '../settings';

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
