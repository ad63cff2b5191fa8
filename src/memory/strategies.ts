/**
 * The memory strategies (none, window, trim, compact, summarize), one file each under
 * strategies/, with their shared types, triggers and building blocks. Pure functions:
 * durable messages in, the model's view of the history and a report out.
 */
export { type MemoryState, EMPTY_MEMORY_STATE, type StrategyInput, effectiveContextWindow, type MemoryReport, type StrategyResult, type SummarizeResult, type SummarizeFunction, SUMMARY_INTRO, SUMMARY_ACKNOWLEDGEMENT } from './strategies/types';
export { noneStrategy } from './strategies/none';
export { windowStrategy, type PinnedOpening, pinnedOpening, OPENING_MAX_MESSAGES, OPENING_READ_MESSAGES, openingCap, windowLoadPlan, type WindowLimits, steppedWindowLimits } from './strategies/window';
export { trimStrategy } from './strategies/trim';
export { compactStrategy } from './strategies/compact';
export { summarizeStrategy } from './strategies/summarize';
export { triggerReason } from './strategies/triggers';
export { splitTurns, compactionPlaceholder, summaryPair, sanitize, sumTokens } from './strategies/building-blocks';
