import type { Config } from '../config';
import type { ContextMessage } from '../memory/context';
import { historyLoadBound, windowLimitsFor } from '../memory/input-ceiling';
import type { MemorySettings } from '../memory/settings';
import { OPENING_READ_MESSAGES, windowLoadPlan } from '../memory/strategies';
import type { TokenCounter } from '../memory/tokens';
import type { ChatStore, SessionRecord, StoredMessage } from '../store/types';

export interface HistoryLoaderParts {
  store: ChatStore;
  tokenCounter: TokenCounter;
  history: Config['history'];
  /** MODEL_INPUT_MAX_TOKENS: history loading is bounded by it too. */
  inputMaxTokens: number;
}

/** Reads from the durable history what a turn's memory strategy needs, and no more. */
export class HistoryLoader {
  constructor(private readonly parts: HistoryLoaderParts) {}

  /**
   * The durable messages the strategy works on: the SQL window for `window`, the
   * messages after the stored summary for `summarize`, the history otherwise (with
   * the conversation's opening for `trim` and `compact`, which may pin it). All of
   * them newest first and bounded by the ceiling on one model call
   * (MODEL_INPUT_MAX_TOKENS): more could never be sent, and a long session must
   * not be read whole on every turn. `olderLeftOut`: the bound left out older
   * messages the strategy would have been given (never said of `window`, whose
   * own limits cut).
   */
  async load(
    sessionId: string,
    session: SessionRecord | null,
    settings: MemorySettings,
  ): Promise<{ messages: StoredMessage[]; olderLeftOut: boolean }> {
    const { enabled } = this.parts.history;
    if (!enabled || !session) return { messages: [], olderLeftOut: false };
    const bound = historyLoadBound(this.parts.inputMaxTokens);
    const store = this.parts.store;
    switch (settings.mode) {
      case 'window': {
        const limits = windowLimitsFor(settings.token_budget, this.parts.history, this.parts.inputMaxTokens);
        const totals = { messages: session.messageCount, tokens: session.tokenCount };
        const fits = totals.messages <= limits.maxMessages && totals.tokens <= limits.maxTokens;
        if (fits) return { messages: await store.loadHistoryWindow(sessionId, limits), olderLeftOut: false };
        // Past the limits: the conversation's opening, pinned, then a window over the rest whose start
        // moves in steps derived from the session's totals (every instance agrees); the plain window
        // when that holds no whole turn.
        const first = settings.pin_opening_pct > 0 ? await store.loadHistoryOpening(sessionId, OPENING_READ_MESSAGES) : [];
        const plan = windowLoadPlan(first.map(toContextMessage), totals, limits, settings, (m) => this.parts.tokenCounter.countMessage(m));
        const opening = first.slice(0, plan.openingCount);
        const stepped = await store.loadHistoryWindow(sessionId, { ...plan.stepped, afterSeq: plan.afterSeq });
        const rest = stepped.length > 0 ? stepped : await store.loadHistoryWindow(sessionId, { ...plan.plain, afterSeq: plan.afterSeq });
        return { messages: rest.length > 0 ? [...opening, ...rest] : await store.loadHistoryWindow(sessionId, limits), olderLeftOut: false };
      }
      case 'summarize': {
        const afterSeq = session.summarizedThroughSeq ?? 0;
        const messages = await store.loadHistoryWindow(sessionId, { ...bound, afterSeq });
        return { messages, olderLeftOut: startsAfter(messages, afterSeq + 1, session) };
      }
      case 'trim':
      case 'compact': {
        const newest = await store.loadHistoryWindow(sessionId, bound);
        const olderLeftOut = startsAfter(newest, 1, session);
        // A session longer than the bound: the opening the strategy may pin is read as well.
        if (settings.pin_opening_pct === 0 || !olderLeftOut || newest.length === 0) return { messages: newest, olderLeftOut };
        const first = await store.loadHistoryOpening(sessionId, OPENING_READ_MESSAGES);
        return { messages: [...first.filter((m) => m.seq < newest[0]!.seq), ...newest], olderLeftOut };
      }
      case 'none': {
        const messages = await store.loadHistoryWindow(sessionId, bound);
        return { messages, olderLeftOut: startsAfter(messages, 1, session) };
      }
    }
  }
}

/**
 * Whether loading, bounded by the ceiling, left out older messages the strategy
 * would otherwise have been given (every strategy but `window`, whose window is
 * its own; `summarize` starts after its summary). Seqs are gapless from 1.
 */
/** Whether a load that should have started at seq `firstWanted` started later (the bound cut it). */
function startsAfter(loaded: StoredMessage[], firstWanted: number, session: SessionRecord): boolean {
  const firstLoaded = loaded[0]?.seq ?? session.messageCount + 1;
  return firstLoaded > firstWanted && session.messageCount >= firstWanted;
}

/** A stored message as the memory strategies and the graph see it. */
export function toContextMessage(m: StoredMessage): ContextMessage {
  return {
    role: m.role,
    content: m.content,
    // The model is shown its own calls as it made them; what a connector sent instead is for people reading the history.
    tool_calls: m.toolCalls?.map((c) => ({ id: c.id, name: c.name, arguments: c.model_arguments ?? c.arguments })) ?? null,
    tool_call_id: m.toolCallId,
    name: m.name,
    tokens: m.tokenCount,
    seq: m.seq,
  };
}
