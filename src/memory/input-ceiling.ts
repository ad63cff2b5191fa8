import type { StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import type { ContextMessage } from './context';
import type { MemoryMode, MemoryStrategyInput } from './settings';
import { sanitize, splitTurns, sumTokens, type StrategyResult } from './strategies';
import { MESSAGE_OVERHEAD_TOKENS } from './tokens';

/** What the operator's ceiling did to one model call's input, as the memory report shows it. */
export interface InputCeilingReport {
  /** MODEL_INPUT_MAX_TOKENS. */
  max_tokens: number;
  /** Oldest whole turns the ceiling left out after the strategy (0: it did not cut). */
  dropped_turns: number;
  /** Set by the chat service: loading (bounded by the ceiling) left out older messages of the session. */
  history_cut?: boolean;
  /**
   * Everything the largest model call of the turn was sent, as the ceiling counts it: tool
   * definitions, instructions, history, knowledge, the question and this turn's tool rounds.
   */
  input_tokens?: number;
}

/**
 * What the tool definitions cost in every call that offers them: each rendered as the
 * chat completions API receives it (the function's name, description and JSON schema).
 */
export function toolDefinitionTokens(tools: readonly StructuredToolInterface[], countText: (text: string) => number): number {
  return tools.reduce((sum, tool) => sum + countText(JSON.stringify(convertToOpenAITool(tool))), 0);
}

/**
 * The operator's hard ceiling on what one model call is sent (MODEL_INPUT_MAX_TOKENS),
 * applied after whatever strategy ran, `none` and a large `token_budget` included:
 * while the prompt (fixed tokens: instructions, knowledge, the question; `otherTokens`:
 * what the strategy does not count, the tool definitions and this turn's tool rounds;
 * plus the history as the strategy left it) is over the ceiling, the oldest whole turn
 * goes (the summary pair counts as one), so a tool call never loses its result and the
 * view still starts on a user turn. Unlike a strategy's own budget it may leave out
 * every turn: the question and instructions alone are what a call must send.
 * `tokens_after` stays the strategy's count (fixed tokens and history); the report's
 * `input_ceiling.input_tokens` is everything counted.
 */
export function applyInputCeiling(
  result: StrategyResult,
  fixedTokens: number,
  maxTokens: number,
  otherTokens = 0,
): StrategyResult & { report: { input_ceiling: InputCeilingReport } } {
  let turns = splitTurns(result.messages);
  let total = fixedTokens + otherTokens + sumTokens(result.messages);
  let dropped = 0;
  while (turns.length > 0 && total > maxTokens) {
    total -= sumTokens(turns[0]!);
    turns = turns.slice(1);
    dropped++;
  }
  const messages: ContextMessage[] = dropped === 0 ? result.messages : sanitize(turns.flat());
  return {
    ...result,
    messages,
    report: {
      ...result.report,
      tokens_after: fixedTokens + sumTokens(messages),
      trimmed_turns: result.report.trimmed_turns + dropped,
      input_ceiling: { max_tokens: maxTokens, dropped_turns: dropped, input_tokens: fixedTokens + otherTokens + sumTokens(messages) },
    },
  };
}

/**
 * History loading bounded by the ceiling: never more stored tokens than one call
 * may be sent, and never more messages than could fit (each costs at least its
 * framing), so a turn of a long session reads a window, not the whole session.
 */
export function historyLoadBound(maxTokens: number): { maxTokens: number; maxMessages: number } {
  return { maxTokens, maxMessages: Math.ceil(maxTokens / MESSAGE_OVERHEAD_TOKENS) };
}

/**
 * The `window` strategy's limits: the configured window (CONVERSATION_HISTORY_MAX_*),
 * a strategy's token_budget in place of its tokens, and never more tokens than the
 * ceiling (a request's token_budget may be huge). The loader and apply_memory must agree.
 */
export function windowLimitsFor(
  tokenBudget: number | undefined,
  configured: { maxMessages: number; maxTokens: number },
  inputMaxTokens: number,
): { maxMessages: number; maxTokens: number } {
  return { maxMessages: configured.maxMessages, maxTokens: Math.min(tokenBudget ?? configured.maxTokens, historyLoadBound(inputMaxTokens).maxTokens) };
}

/** The memory modes a public caller (the widget, no agent key) may ask for: not `none`, which sends everything there is. */
const PUBLIC_MODES: readonly MemoryMode[] = ['window', 'trim', 'summarize', 'compact'];
/** Token fields a public caller may set only up to the ceiling. */
const TOKEN_FIELDS = ['token_budget', 'token_soft_budget', 'context_window_tokens', 'summary_token_budget'] as const;

/**
 * Why a public caller may not use this request-level strategy, or null when it
 * may: any mode but `none`, and token budgets and windows up to the ceiling.
 * Server-to-server callers (the agent key) may use the full range; the ceiling
 * still bounds what any call is sent.
 */
export function publicStrategyRefusal(strategy: MemoryStrategyInput, maxTokens: number): string | null {
  if (!PUBLIC_MODES.includes(strategy.mode)) {
    return `memory_strategy mode "${strategy.mode}" needs the agent key; without it, use one of: ${PUBLIC_MODES.join(', ')}.`;
  }
  for (const field of TOKEN_FIELDS) {
    const value = strategy[field];
    if (value !== undefined && value > maxTokens) {
      return `memory_strategy.${field} may be at most ${maxTokens} (the service's ceiling on one model call) without the agent key.`;
    }
  }
  return null;
}
