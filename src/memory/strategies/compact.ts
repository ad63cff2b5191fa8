import { type StrategyInput, effectiveContextWindow, type StrategyResult } from './types';
import { triggerReason } from './triggers';
import { splitTurns, countUserTurns, lastTurnIsOpen, compactMessage, enforceBudget, sanitize, sumTokens, finish } from './building-blocks';

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
