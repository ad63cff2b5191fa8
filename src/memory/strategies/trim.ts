import type { StrategyInput, StrategyResult } from './types';
import { pinnedOpening, openingCap } from './window';
import { splitTurns, countUserTurns, enforceBudget, turnsCovering, finish } from './building-blocks';

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
