import { readFileSync } from 'node:fs';
import path from 'node:path';
import { capToolOutput, type ContextMessage, type CountMessageTokens } from '../../src/memory/context';
import { memoryStrategySchema, withDefaults, type MemorySettings, type MemoryStrategyInput } from '../../src/memory/settings';
import {
  compactStrategy,
  compactionPlaceholder,
  EMPTY_MEMORY_STATE,
  noneStrategy,
  OPENING_MAX_MESSAGES,
  OPENING_READ_MESSAGES,
  openingCap,
  pinnedOpening,
  summarizeStrategy,
  SUMMARY_ACKNOWLEDGEMENT,
  SUMMARY_INTRO,
  summaryPair,
  steppedWindowLimits,
  trimStrategy,
  triggerReason,
  effectiveContextWindow,
  windowLoadPlan,
  windowStrategy,
  type MemoryState,
  type StrategyInput,
  type StrategyResult,
  type SummarizeFunction,
} from '../../src/memory/strategies';
import { TokenCounter } from '../../src/memory/tokens';
import type { ToolCall } from '../../src/store/types';
import { seededRandom } from '../support/seeded-random';

// ── builders ──────────────────────────────────────────────────────────────────

const counter = new TokenCounter('gpt-4o-mini');
const countCache = new Map<string, number>();
/** The service's counter (o200k_base), memoised because the random cases repeat huge outputs. */
const countTokens: CountMessageTokens = (m) => {
  const key = JSON.stringify([m.content, m.tool_calls ?? null, m.name ?? null]);
  let tokens = countCache.get(key);
  if (tokens === undefined) {
    tokens = counter.countMessage(m);
    countCache.set(key, tokens);
  }
  return tokens;
};

/** A message before it is stored: no seq, no token count yet. */
type Draft = Omit<ContextMessage, 'tokens' | 'seq'>;

const lookupOrder = (id: string, orderId = 'ZX-14440'): ToolCall => ({ id, name: 'lookup_order', arguments: { order_id: orderId } });
const getProfile = (id: string): ToolCall => ({ id, name: 'get_user_profile', arguments: { user_id: 'lukas@example.com' } });
const searchKnowledge = (id: string, query = 'returns'): ToolCall => ({ id, name: 'search_knowledge_base', arguments: { query } });

const customer = (content: string): Draft => ({ role: 'user', content });
const agent = (content: string): Draft => ({ role: 'assistant', content });
const callsTools = (...calls: ToolCall[]): Draft => ({ role: 'assistant', content: '', tool_calls: calls });
const toolResult = (call: ToolCall, content: string): Draft => ({ role: 'tool', content, tool_call_id: call.id, name: call.name });

/** A user turn answered without tools. */
const chatTurn = (question: string, reply: string): Draft[] => [customer(question), agent(reply)];

/** A user turn with one tool chain (one assistant message calling every tool, then the results) and, unless open, the answer. */
function toolTurn(question: string, results: Array<[ToolCall, string]>, reply?: string): Draft[] {
  return [
    customer(question),
    callsTools(...results.map(([call]) => call)),
    ...results.map(([call, output]) => toolResult(call, output)),
    ...(reply === undefined ? [] : [agent(reply)]),
  ];
}

/** Durable messages: seq 1, 2, … and the tokens each costs. */
function history(...turns: Draft[][]): ContextMessage[] {
  return turns.flat().map((draft, i) => ({ ...draft, seq: i + 1, tokens: countTokens(draft) }));
}

/** lookup_order's JSON for an order with many tracking events: thousands of tokens. */
function orderJson(orderId: string, events = 60): string {
  return JSON.stringify(
    {
      order_id: orderId,
      status: 'in_transit',
      carrier: 'PostNord',
      ship_date: '2026-04-11',
      destination_city: 'Cork',
      tracking_events: Array.from({ length: events }, (_, i) => ({
        ts: `2026-04-${String(12 + (i % 18)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:15:00Z`,
        location: `Hub ${String.fromCharCode(65 + (i % 26))}`,
        status: 'scanned',
        detail: `Package scanned at facility ${i}; no action required by the recipient at this stage.`,
      })),
    },
    null,
    2,
  );
}
const BIG_ORDER = orderJson('ZX-14440');
const PROFILE_JSON = JSON.stringify({ name: 'Lukas Brandt', loyalty_tier: 'Silver', purchase_history: [1, 2, 3].map((n) => ({ order_id: `ZX-1000${n}` })) }, null, 2);
const RETURNS_PASSAGES = '[1] Returns (help-center/returns.md)\nWe accept returns within 30 days of delivery. '.repeat(20);

/** Settings as a request gives them: validated by the real schema, defaults filled in. */
function settingsOf(input: MemoryStrategyInput): MemorySettings {
  return withDefaults(memoryStrategySchema.parse(input));
}

function inputOf(
  messages: ContextMessage[],
  settings: MemorySettings,
  extra: { fixedTokens?: number; state?: MemoryState; historyTokensTotal?: number } = {},
): StrategyInput {
  return {
    messages,
    settings,
    state: extra.state ?? EMPTY_MEMORY_STATE,
    fixedTokens: extra.fixedTokens ?? 0,
    countTokens,
    ...(extra.historyTokensTotal === undefined ? {} : { historyTokensTotal: extra.historyTokensTotal }),
  };
}

const total = (messages: ContextMessage[]) => messages.reduce((sum, m) => sum + m.tokens, 0);
const seqs = (messages: ContextMessage[]) => messages.map((m) => m.seq);

/** The turns of a history as the spec means them: each user message with what follows it (a leading remainder is its own group). */
function userTurns(messages: ContextMessage[]): ContextMessage[][] {
  const turns: ContextMessage[][] = [];
  for (const m of messages) {
    if (m.role === 'user' || turns.length === 0) turns.push([m]);
    else turns.at(-1)!.push(m);
  }
  return turns;
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * Four turns: an order lookup, a profile lookup, a knowledge search (each with a
 * big tool output) and a small talk turn.
 */
function toolHeavyConversation(): ContextMessage[] {
  return history(
    toolTurn('Where is my order ZX-14440?', [[lookupOrder('call_order'), BIG_ORDER]], 'Order ZX-14440 is in transit with PostNord to Cork.'),
    toolTurn('Which tier am I on?', [[getProfile('call_profile'), PROFILE_JSON]], 'You are on the Silver tier, Lukas.'),
    toolTurn('How long do I have to return it?', [[searchKnowledge('call_search'), RETURNS_PASSAGES]], 'You have 30 days from delivery.'),
    chatTurn('Thanks, that is all.', 'You are welcome.'),
  );
}

// ── none and window ───────────────────────────────────────────────────────────

describe('none', () => {
  it('sends every durable message as it is', () => {
    const messages = toolHeavyConversation();
    const result = noneStrategy(inputOf(messages, settingsOf({ mode: 'none' })));
    expect(result.messages).toEqual(messages);
    expect(result.report).toMatchObject({ strategy: 'none', compacted_items: 0, summarized: false, trimmed_turns: 0, triggered_by: null });
  });
});

describe('window', () => {
  // low_water_pct 1: the plain rule, cut to just under the limit (the stepped window is in "low water" below).
  const chat = history(
    chatTurn('one', 'answer one'),
    chatTurn('two', 'answer two'),
    chatTurn('three', 'answer three'),
  );

  it('keeps the newest messages within the message limit', () => {
    const result = windowStrategy(inputOf(chat, settingsOf({ mode: 'window', low_water_pct: 1 })), { maxMessages: 4, maxTokens: 100_000 });
    expect(seqs(result.messages)).toEqual([3, 4, 5, 6]);
  });

  it('keeps the newest messages within the token limit', () => {
    const lastFour = total(chat.slice(2));
    const fits = windowStrategy(inputOf(chat, settingsOf({ mode: 'window', low_water_pct: 1 })), { maxMessages: 100, maxTokens: lastFour });
    expect(seqs(fits.messages)).toEqual([3, 4, 5, 6]);
    const oneShort = windowStrategy(inputOf(chat, settingsOf({ mode: 'window', low_water_pct: 1 })), { maxMessages: 100, maxTokens: lastFour - 1 });
    expect(seqs(oneShort.messages)).toEqual([5, 6]);
  });

  it('never starts on an assistant message when the limit cuts a turn in two', () => {
    const result = windowStrategy(inputOf(chat, settingsOf({ mode: 'window', low_water_pct: 1 })), { maxMessages: 3, maxTokens: 100_000 });
    expect(seqs(result.messages)).toEqual([5, 6]);
  });

  it('never starts on an orphaned tool result when the limit cuts a tool chain', () => {
    const messages = history(
      chatTurn('hello', 'hi'),
      toolTurn('Where is ZX-14440?', [[lookupOrder('a'), 'short'], [getProfile('b'), 'short too']], 'In transit.'),
      chatTurn('ok', 'anything else?'),
    );
    // The newest 5: result b, answer, user, answer … the call and result a are cut off.
    const result = windowStrategy(inputOf(messages, settingsOf({ mode: 'window', low_water_pct: 1 })), { maxMessages: 5, maxTokens: 100_000 });
    expect(result.messages[0]!.role).toBe('user');
    expect(seqs(result.messages)).toEqual([8, 9]);
  });

  it('stops at the first message that does not fit, rather than skipping it for older ones', () => {
    const messages = history(chatTurn('old', 'old answer'), toolTurn('look it up', [[lookupOrder('c'), BIG_ORDER]], 'done'), chatTurn('new', 'new answer'));
    const limit = total(messages.slice(-2)) + 50; // room for the small old turn, but the big result comes first
    const result = windowStrategy(inputOf(messages, settingsOf({ mode: 'window', low_water_pct: 1 })), { maxMessages: 100, maxTokens: limit });
    expect(seqs(result.messages)).toEqual([7, 8]);
  });
});

// ── trim ──────────────────────────────────────────────────────────────────────

describe('trim', () => {
  const fiveTurns = () =>
    history(
      chatTurn('one', 'answer one'),
      toolTurn('two', [[lookupOrder('t2'), 'order two']], 'answer two'),
      chatTurn('three', 'answer three'),
      toolTurn('four', [[lookupOrder('t4a'), 'order four'], [getProfile('t4b'), 'profile four']], 'answer four'),
      chatTurn('five', 'answer five'),
    );

  it('changes nothing while user turns are below max_turns', () => {
    const messages = fiveTurns();
    const result = trimStrategy(inputOf(messages, settingsOf({ mode: 'trim', max_turns: 6, keep_last_n_turns: 2 })));
    expect(result.messages).toEqual(messages);
    expect(result.report.trimmed_turns).toBe(0);
  });

  it('at max_turns keeps exactly the last keep_last_n_turns user turns with their assistant and tool messages', () => {
    const messages = fiveTurns();
    const result = trimStrategy(inputOf(messages, settingsOf({ mode: 'trim', max_turns: 5, keep_last_n_turns: 2 })));
    const lastTwo = userTurns(messages).slice(-2).flat();
    expect(result.messages).toEqual(lastTwo);
    expect(result.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['t4a', 't4b']);
    expect(result.report).toMatchObject({ strategy: 'trim', trimmed_turns: 3 });
  });

  it('one turn below max_turns is still untouched', () => {
    const messages = fiveTurns().slice(0, -2); // four user turns
    const result = trimStrategy(inputOf(messages, settingsOf({ mode: 'trim', max_turns: 5, keep_last_n_turns: 1 })));
    expect(result.messages).toEqual(messages);
  });
});

describe('low water: strategies that must shed history shed it in steps', () => {
  /** n closed turns of about equal size, no tools. */
  const turns = (n: number) =>
    history(...Array.from({ length: n }, (_, i) => chatTurn(`Question ${i + 1}: ${'is the kettle covered if it leaks? '.repeat(3)}`, `Answer ${i + 1}: ${'yes, for two years. '.repeat(3)}`)));
  /** The first seq of the view each request of a growing conversation gets (one request per user message). */
  function startsOverReplay(messages: ContextMessage[], view: (history: ContextMessage[]) => ContextMessage[]): number[] {
    return messages.flatMap((m, i) => (m.role === 'user' && i > 0 ? [view(messages.slice(0, i))[0]!.seq!] : []));
  }
  const distinct = (values: number[]) => [...new Set(values)];

  it('steppedWindowLimits: the limits while the history fits, then what lies after the last multiple of the step it must pass', () => {
    // limit 20 messages, low water 60%: step 8.
    expect(steppedWindowLimits({ messages: 20, tokens: 0 }, { maxMessages: 20, maxTokens: 100 }, 0.6).maxMessages).toBe(20);
    expect(steppedWindowLimits({ messages: 21, tokens: 0 }, { maxMessages: 20, maxTokens: 100 }, 0.6).maxMessages).toBe(13);
    expect(steppedWindowLimits({ messages: 28, tokens: 0 }, { maxMessages: 20, maxTokens: 100 }, 0.6).maxMessages).toBe(20);
    expect(steppedWindowLimits({ messages: 29, tokens: 0 }, { maxMessages: 20, maxTokens: 100 }, 0.6).maxMessages).toBe(13);
    // tokens: limit 1000, step 400; 1001 tokens keep 601, 1400 keep 1000.
    expect(steppedWindowLimits({ messages: 1, tokens: 1001 }, { maxMessages: 20, maxTokens: 1000 }, 0.6).maxTokens).toBe(601);
    expect(steppedWindowLimits({ messages: 1, tokens: 1400 }, { maxMessages: 20, maxTokens: 1000 }, 0.6).maxTokens).toBe(1000);
    // low water 1: the plain limits.
    expect(steppedWindowLimits({ messages: 29, tokens: 5000 }, { maxMessages: 20, maxTokens: 1000 }, 1)).toEqual({ maxMessages: 20, maxTokens: 1000 });
  });

  it('window: once full, the start jumps to hold 60% of the message limit and stays there for the next turns', () => {
    const messages = turns(20);
    // The steps on their own (the pinned opening is tested below).
    const settings = settingsOf({ mode: 'window', pin_opening_pct: 0 });
    const starts = startsOverReplay(messages, (h) => windowStrategy(inputOf(h, settings), { maxMessages: 10, maxTokens: 100_000 }).messages);
    // Requests 1–5 hold everything (start 1); then the window (10 messages, step 4) moves every second turn.
    expect(starts.slice(0, 6)).toEqual([1, 1, 1, 1, 1, 5]);
    expect(distinct(starts)).toEqual([1, 5, 9, 13, 17, 21, 25, 29]);
    for (const start of distinct(starts).slice(1)) expect(starts.filter((s) => s === start)).toHaveLength(2);
    // With low_water_pct 1 it slides a turn at a time.
    const plain = settingsOf({ mode: 'window', low_water_pct: 1, pin_opening_pct: 0 });
    const sliding = startsOverReplay(messages, (h) => windowStrategy(inputOf(h, plain), { maxMessages: 10, maxTokens: 100_000 }).messages);
    expect(distinct(sliding).length).toBeGreaterThan(distinct(starts).length);
  });

  it('trim: cuts to keep_last_n_turns at max_turns, then appends until max_turns again', () => {
    const messages = turns(12);
    const settings = settingsOf({ mode: 'trim', max_turns: 6, keep_last_n_turns: 2 });
    const kept = messages.flatMap((m, i) => (m.role === 'user' && i > 0 ? [userTurns(trimStrategy(inputOf(messages.slice(0, i), settings)).messages).length] : []));
    // History of 1..11 turns: untouched below 6, then 2, 3, 4, 5, 2, 3 …
    expect(kept).toEqual([1, 2, 3, 4, 5, 2, 3, 4, 5, 2, 3]);
  });

  it('the hard budget cuts to the low-water mark, and the next turns extend the same view until the budget is reached again', () => {
    const messages = turns(30);
    const budget = 600;
    const settings = settingsOf({ mode: 'compact', token_budget: budget, low_water_pct: 0.5, pin_opening_pct: 0 });
    const views = messages.flatMap((m, i) => (m.role === 'user' && i > 0 ? [compactStrategy(inputOf(messages.slice(0, i), settings, { fixedTokens: 100 })).messages] : []));
    const starts = views.map((v) => v[0]!.seq!);
    for (const view of views) expect(100 + total(view)).toBeLessThanOrEqual(budget);
    const cuts = views.filter((v, i) => i > 0 && v[0]!.seq !== starts[i - 1]);
    expect(cuts.length).toBeGreaterThan(1);
    // Each cut leaves the prompt (newest turn aside) at or under 50% of the budget, far below the budget…
    for (const view of cuts) expect(100 + total(view) - total(userTurns(view).at(-1)!)).toBeLessThanOrEqual(budget / 2);
    // …so several requests share each start.
    expect(distinct(starts).length).toBeLessThan(starts.length / 2);
  });
});

describe('pinned opening: once history must be shed, the conversation\'s first turns stay at the head of the view', () => {
  /** The opening says who the customer is and what the case is; then many turns about other things. */
  const conversation = () =>
    history(
      chatTurn('Hi, my name is Lukas Brandt. I need help with my Vesper air fryer.', 'Hello Lukas, happy to help. What seems to be the problem?'),
      toolTurn('My order number is ZX-14440. Please call me after 6pm.', [[lookupOrder('call_1'), JSON.stringify({ order_id: 'ZX-14440', carrier: 'PostNord', items: 'x'.repeat(2000) })]], 'Your order ZX-14440 ships with PostNord.'),
      ...Array.from({ length: 20 }, (_, i) => chatTurn(`Question ${i + 1}: ${'does the basket go in the dishwasher? '.repeat(3)}`, `Answer ${i + 1}: ${'yes, on the top rack. '.repeat(3)}`)),
    );
  it('window: the first turns with tool results as placeholders, then the stepped window over the rest; within the limits', () => {
    const messages = conversation();
    const limits = { maxMessages: 100, maxTokens: 1000 };
    const result = windowStrategy(inputOf(messages, settingsOf({ mode: 'window' })), limits);
    const view = result.messages;
    // Turns 1 and 2 (seq 1–6) lead, the lookup_order result replaced by its placeholder; the name, order number and carrier stay.
    expect(seqs(view.slice(0, 6))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(view[4]).toMatchObject({ role: 'tool', compacted: true, content: compactionPlaceholder('lookup_order', 'call_1') });
    const text = view.map((m) => m.content).join('\n');
    for (const fact of ['Lukas Brandt', 'ZX-14440', 'after 6pm', 'PostNord']) expect(text).toContain(fact);
    // Then a run of whole turns to the end, after a gap.
    expect(view[6]!.seq).toBeGreaterThan(7);
    expect(view.slice(6)).toEqual(messages.slice(messages.findIndex((m) => m.seq === view[6]!.seq)));
    expect(total(view)).toBeLessThanOrEqual(limits.maxTokens);
    // pin_opening_pct 0: the plain suffix, and the facts of the opening are gone.
    const unpinned = windowStrategy(inputOf(messages, settingsOf({ mode: 'window', pin_opening_pct: 0 })), limits).messages;
    expect(unpinned.map((m) => m.content).join('\n')).not.toContain('ZX-14440');
  });

  it('nothing is pinned while the whole history fits, nor when the opening does not fit its share of the budget', () => {
    const messages = conversation();
    const whole = windowStrategy(inputOf(messages, settingsOf({ mode: 'window' })), { maxMessages: 1000, maxTokens: 100_000 }).messages;
    expect(whole).toEqual(messages);
    // 5% of 600 tokens holds not even the first turn.
    const tooSmall = windowStrategy(inputOf(messages, settingsOf({ mode: 'window', pin_opening_pct: 0.05 })), { maxMessages: 100, maxTokens: 600 }).messages;
    expect(tooSmall[0]!.seq).toBeGreaterThan(6);
  });

  it('the service\'s loader picks the same opening and window (windowLoadPlan on stored counts), and is told how far it may skip', () => {
    const messages = conversation();
    const limits = { maxMessages: 100, maxTokens: 1000 };
    const settings = settingsOf({ mode: 'window' });
    const totals = { messages: messages.length, tokens: total(messages) };
    const plan = windowLoadPlan(messages.slice(0, OPENING_READ_MESSAGES), totals, limits, settings, countTokens);
    const view = windowStrategy(inputOf(messages, settings), limits).messages;
    expect(plan.openingCount).toBe(6);
    expect(plan.afterSeq).toBe(6);
    // The rest as history_window_after would load it with the stepped limits: what the view holds after the opening.
    const rest = messages.slice(plan.openingCount);
    const loaded: ContextMessage[] = [];
    let tokens = 0;
    for (const m of [...rest].reverse()) {
      if (loaded.length >= plan.stepped.maxMessages || tokens + m.tokens > plan.stepped.maxTokens) break;
      tokens += m.tokens;
      loaded.unshift(m);
    }
    expect(seqs(view.slice(6))).toEqual(seqs(loaded.slice(loaded.findIndex((m) => m.role === 'user'))));
  });

  it('at most OPENING_MAX_MESSAGES messages are pinned, and the loader, reading one more, picks the same opening', () => {
    const messages = history(...Array.from({ length: 60 }, (_, i) => chatTurn(`Q${i}`, `A${i}`)));
    const settings = settingsOf({ mode: 'window', pin_opening_pct: 0.5 });
    const limits = { maxMessages: 60, maxTokens: 100_000 };
    const view = windowStrategy(inputOf(messages, settings), limits).messages;
    const plan = windowLoadPlan(messages.slice(0, OPENING_READ_MESSAGES), { messages: messages.length, tokens: total(messages) }, limits, settings, countTokens);
    expect(plan.openingCount).toBe(OPENING_MAX_MESSAGES);
    expect(seqs(view.slice(0, OPENING_MAX_MESSAGES))).toEqual(seqs(messages.slice(0, OPENING_MAX_MESSAGES)));
    expect(view[OPENING_MAX_MESSAGES]!.seq).toBeGreaterThan(OPENING_MAX_MESSAGES + 1);
  });

  it('replayed request by request, the opening never changes once pinned, so the prompt prefix through it stays cacheable', () => {
    const messages = conversation();
    const settings = settingsOf({ mode: 'window' });
    const openings = messages.flatMap((m, i) => {
      if (m.role !== 'user' || i === 0) return [];
      const view = windowStrategy(inputOf(messages.slice(0, i), settings), { maxMessages: 100, maxTokens: 1000 }).messages;
      // The opening: the view's head from seq 1 up to the gap the window left.
      const gap = view.findIndex((v, k) => k > 0 && v.seq !== view[k - 1]!.seq! + 1);
      return view[0]!.seq === 1 && gap > 0 ? [JSON.stringify(view.slice(0, gap))] : [];
    });
    expect(openings.length).toBeGreaterThanOrEqual(5);
    expect(new Set(openings).size).toBe(1);
  });

  it('trim and the hard budget keep the opening ahead of the turns they keep; it gives way when the newest turn needs the room', () => {
    const messages = conversation();
    const trimSettings = settingsOf({ mode: 'trim', max_turns: 6, keep_last_n_turns: 2, token_budget: 1500 });
    const trimmed = trimStrategy(inputOf(messages, trimSettings)).messages;
    // The opening: as many first turns as fit 15% of 1,500 tokens (turns 1–3 here), then the turns trim keeps.
    const opening = pinnedOpening(messages, openingCap(1500, trimSettings), countTokens);
    expect(seqs(opening.messages)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(trimmed.slice(0, opening.messages.length)).toEqual(opening.messages);
    const keptTurns = userTurns(trimmed.slice(opening.messages.length));
    expect(keptTurns.length).toBeGreaterThanOrEqual(2);
    expect(keptTurns.length).toBeLessThan(6);
    expect(keptTurns.at(-1)!.at(-1)!.seq).toBe(messages.at(-1)!.seq);
    const compacted = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', token_budget: 1000 }), { fixedTokens: 100 })).messages;
    expect(seqs(compacted.slice(0, 6))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(100 + total(compacted)).toBeLessThanOrEqual(1000);
    // A newest turn that fills the budget on its own: the opening is left out, the newest turn stays.
    const big = history(messages.map(({ seq: _seq, tokens: _tokens, ...m }) => m), chatTurn(`Question: ${'a long question about the warranty. '.repeat(60)}`, 'Answer.'));
    const newest = userTurns(big).at(-1)!;
    const tight = compactStrategy(inputOf(big, settingsOf({ mode: 'compact', token_budget: 100 + total(newest) + 20 }), { fixedTokens: 100 })).messages;
    expect(tight).toEqual(newest);
  });
});

// ── compact ───────────────────────────────────────────────────────────────────

describe('compact', () => {
  const alwaysTrigger = { compact_trigger_turns: 1 } as const;

  it('changes nothing when no trigger fires', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_trigger_turns: 10 })));
    expect(result.messages).toEqual(messages);
    expect(result.report).toMatchObject({ compacted_items: 0, triggered_by: null });
    expect(result.compactedByTool).toEqual({});
  });

  it('replaces tool results older than compact_keep turns with the exact placeholder, keeping call id and name, tokens recounted', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 2, ...alwaysTrigger })));

    const order = result.messages.find((m) => m.tool_call_id === 'call_order')!;
    expect(order).toEqual({
      ...messages.find((m) => m.tool_call_id === 'call_order'),
      content: '⟦removed: tool output for lookup_order (call_id=call_order); reason=context_compaction⟧',
      compacted: true,
      tokens: counter.countMessage({ content: order.content, name: 'lookup_order' }),
    });
    expect(order.tokens).toBeLessThan(40);
    const profile = result.messages.find((m) => m.tool_call_id === 'call_profile')!;
    expect(profile).toMatchObject({
      role: 'tool',
      name: 'get_user_profile',
      content: compactionPlaceholder('get_user_profile', 'call_profile'),
      compacted: true,
    });
    expect(result.messages).toHaveLength(messages.length);
    expect(result.report.triggered_by).toBe('compact_trigger_turns');
  });

  it('leaves the last compact_keep turns untouched', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 2, ...alwaysTrigger })));
    const protectedTurns = userTurns(messages).slice(-2).flat();
    expect(result.messages.slice(-protectedTurns.length)).toEqual(protectedTurns);
    expect(result.messages.find((m) => m.tool_call_id === 'call_search')!.content).toBe(RETURNS_PASSAGES);
  });

  it('never rewrites the durable messages it was given', () => {
    const messages = toolHeavyConversation();
    const before = clone(messages);
    compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 0, compact_clear_tool_inputs: true, ...alwaysTrigger })));
    expect(messages).toEqual(before);
  });

  it('keeps the arguments of the calls by default', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 1, ...alwaysTrigger })));
    const calls = result.messages.flatMap((m) => m.tool_calls ?? []);
    expect(calls).toEqual([lookupOrder('call_order'), getProfile('call_profile'), searchKnowledge('call_search')]);
  });

  it('with compact_clear_tool_inputs clears the arguments of compacted calls only, and recounts them', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(
      inputOf(
        messages,
        settingsOf({ mode: 'compact', compact_keep: 2, compact_clear_tool_inputs: true, compact_exclude_tools: ['get_user_profile'], ...alwaysTrigger }),
      ),
    );
    const callMessage = (id: string) => result.messages.find((m) => m.tool_calls?.some((c) => c.id === id))!;
    expect(callMessage('call_order')).toMatchObject({ compacted: true, tool_calls: [{ id: 'call_order', name: 'lookup_order', arguments: {} }] });
    expect(callMessage('call_order').tokens).toBe(counter.countMessage({ content: '', tool_calls: callMessage('call_order').tool_calls }));
    expect(callMessage('call_order').tokens).toBeLessThan(messages.find((m) => m.tool_calls?.[0]?.id === 'call_order')!.tokens);
    // excluded: neither result nor input compacted
    expect(callMessage('call_profile').tool_calls).toEqual([getProfile('call_profile')]);
    expect(callMessage('call_profile').compacted).toBeUndefined();
    // protected turn
    expect(callMessage('call_search').tool_calls).toEqual([searchKnowledge('call_search')]);
  });

  it('compact_exclude_tools keeps those tools’ results', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 1, compact_exclude_tools: ['get_user_profile'], ...alwaysTrigger })));
    expect(result.messages.find((m) => m.tool_call_id === 'call_profile')!.content).toBe(PROFILE_JSON);
    expect(result.compactedByTool).toEqual({ lookup_order: 1, search_knowledge_base: 1 });
  });

  it('compact_include_tools compacts only those tools and takes precedence over compact_exclude_tools', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(
      inputOf(
        messages,
        settingsOf({
          mode: 'compact',
          compact_keep: 1,
          compact_include_tools: ['lookup_order'],
          compact_exclude_tools: ['lookup_order', 'search_knowledge_base'],
          ...alwaysTrigger,
        }),
      ),
    );
    expect(result.messages.find((m) => m.tool_call_id === 'call_order')!.compacted).toBe(true);
    expect(result.messages.find((m) => m.tool_call_id === 'call_profile')!.content).toBe(PROFILE_JSON);
    expect(result.messages.find((m) => m.tool_call_id === 'call_search')!.content).toBe(RETURNS_PASSAGES);
    expect(result.compactedByTool).toEqual({ lookup_order: 1 });
  });

  it('counts compacted_items and compactedByTool per tool result, also for several calls in one message', () => {
    const messages = history(
      toolTurn('Two orders and my profile, please', [
        [lookupOrder('o1', 'ZX-14440'), orderJson('ZX-14440', 5)],
        [lookupOrder('o2', 'ZX-14441'), orderJson('ZX-14441', 5)],
        [getProfile('p1'), PROFILE_JSON],
      ], 'Both are on their way.'),
      chatTurn('thanks', 'welcome'),
    );
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 1, ...alwaysTrigger })));
    expect(result.compactedByTool).toEqual({ lookup_order: 2, get_user_profile: 1 });
    expect(result.report.compacted_items).toBe(3);
    expect(result.messages.filter((m) => m.compacted)).toHaveLength(3);
  });

  it('with compact_keep 0 compacts every closed turn', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 0, ...alwaysTrigger })));
    expect(result.report.compacted_items).toBe(3);
  });

  describe('triggers fire exactly at their boundary', () => {
    const threeTurns = history(
      toolTurn('one', [[lookupOrder('b1'), orderJson('ZX-14440', 4)]], 'one answered'),
      toolTurn('two', [[lookupOrder('b2'), orderJson('ZX-14441', 4)]], 'two answered'),
      chatTurn('three', 'three answered'),
    );
    const fourTurns = history(
      toolTurn('one', [[lookupOrder('b1'), orderJson('ZX-14440', 4)]], 'one answered'),
      toolTurn('two', [[lookupOrder('b2'), orderJson('ZX-14441', 4)]], 'two answered'),
      chatTurn('three', 'three answered'),
      chatTurn('four', 'four answered'),
    );
    const history3 = total(threeTurns);

    /** Runs compact with fixed tokens chosen so the prompt costs exactly `promptTokens`. */
    function compactAt(trigger: Partial<MemoryStrategyInput>, promptTokens: number, messages = threeTurns): StrategyResult {
      return compactStrategy(
        inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 1, ...trigger }), { fixedTokens: promptTokens - total(messages) }),
      );
    }
    const fired = (result: StrategyResult) => result.report.compacted_items > 0;

    it('compact_trigger_turns: more than N user turns', () => {
      expect(fired(compactAt({ compact_trigger_turns: 3 }, history3, threeTurns))).toBe(false);
      const above = compactAt({ compact_trigger_turns: 3 }, total(fourTurns), fourTurns);
      expect(fired(above)).toBe(true);
      expect(above.report.triggered_by).toBe('compact_trigger_turns');
    });

    it('context_limit: N user turns or more', () => {
      expect(fired(compactAt({ context_limit: 4 }, history3, threeTurns))).toBe(false);
      const at = compactAt({ context_limit: 3 }, history3, threeTurns);
      expect(fired(at)).toBe(true);
      expect(at.report.triggered_by).toBe('context_limit');
    });

    it.each([
      ['token_budget', { token_budget: 5000 }, 5000],
      ['token_soft_budget', { token_soft_budget: 5000 }, 5000],
      // remaining < 20% of 10,000: more than 8,000 tokens
      ['token_remaining_pct', { token_remaining_pct: 0.2, context_window_tokens: 10_000 }, 8000],
      // remaining < 30% of 10,000: more than 7,000 tokens
      ['token_soft_remaining_pct', { token_soft_remaining_pct: 0.3, context_window_tokens: 10_000 }, 7000],
      // 0.07 × 10,000 is 700.0000000000001 in floating point: still exactly 700 tokens
      ['token_soft_remaining_pct', { token_soft_remaining_pct: 0.07, context_window_tokens: 10_000 }, 9300],
      // less than 10% of 50,000 left
      ['token_remaining_pct', { token_remaining_pct: 0.1, context_window_tokens: 50_000 }, 45_000],
      // no trigger given: less than 20% of the default 400,000 left
      ['default_remaining_pct', {}, 320_000],
    ] as const)('%s %j: nothing at the boundary, fires one token above', (name, trigger, boundary) => {
      const at = compactAt(trigger, boundary);
      expect(at.report.triggered_by).toBeNull();
      expect(at.messages).toEqual(threeTurns);
      const above = compactAt(trigger, boundary + 1);
      expect(above.report.triggered_by).toBe(name);
      expect(fired(above)).toBe(true);
    });

    it('the default 20% does not apply once any trigger is given', () => {
      expect(triggerReason(settingsOf({ mode: 'compact', compact_trigger_turns: 50 }), 3, 399_000)).toBeNull();
      expect(triggerReason(settingsOf({ mode: 'compact' }), 3, 399_000)).toBe('default_remaining_pct');
    });

    it("measures the remaining share against the operator's ceiling when it is smaller than context_window_tokens", () => {
      const settings = settingsOf({ mode: 'compact', compact_keep: 1 });
      // 400,000-token window: 15,000 tokens leave far more than 20%.
      expect(compactStrategy(inputOf(threeTurns, settings, { fixedTokens: 15_000 })).report.triggered_by).toBeNull();
      // A 16,000-token ceiling: 15,000 leave less than 20% of it.
      const capped = { ...inputOf(threeTurns, settings, { fixedTokens: 15_000 }), inputCeilingTokens: 16_000 };
      expect(compactStrategy(capped).report.triggered_by).toBe('default_remaining_pct');
      expect(effectiveContextWindow(capped)).toBe(16_000);
      expect(effectiveContextWindow({ settings: settingsOf({ mode: 'compact', context_window_tokens: 8000 }), inputCeilingTokens: 16_000 })).toBe(8000);
    });

    it('counts the fixed part of the prompt (system prompt, knowledge, question) too', () => {
      const settings = settingsOf({ mode: 'compact', compact_keep: 1, token_soft_budget: 5000 });
      expect(compactStrategy(inputOf(threeTurns, settings, { fixedTokens: 0 })).report.triggered_by).toBeNull();
      expect(compactStrategy(inputOf(threeTurns, settings, { fixedTokens: 5001 })).report.triggered_by).toBe('token_soft_budget');
    });
  });

  describe('on the tool-heavy conversations of the evaluation set', () => {
    const toolHeavy = loadEvalSet().filter((c) => c.toolHeavy);
    const FIXED_TOKENS = 600; // a system prompt with some knowledge, and the question
    /** As the service sends them: tool results capped at TOOL_OUTPUT_MAX_CHARS (4000). */
    const capped = (messages: ContextMessage[]) => messages.map((m) => capToolOutput(m, 4000, countTokens));
    const compactKeep2 = settingsOf({ mode: 'compact', compact_keep: 2, token_soft_budget: 4000 });

    it('conv-7-0: compact_keep 2 sends at least 80% fewer tokens than none', () => {
      const messages = capped(toolHeavy.find((c) => c.id === 'conv-7-0')!.messages);
      const none = noneStrategy(inputOf(messages, settingsOf({ mode: 'none' }), { fixedTokens: FIXED_TOKENS }));
      const compact = compactStrategy(inputOf(messages, compactKeep2, { fixedTokens: FIXED_TOKENS }));
      expect(compact.report.triggered_by).toBe('token_soft_budget');
      expect(compact.report.tokens_after).toBeLessThanOrEqual(0.2 * none.report.tokens_after);
    });

    it.each(toolHeavy.map((c) => [c.id, c] as const))('%s: compaction keeps the text of every fact and every call/result pair', (_id, conversation) => {
      const messages = capped(conversation.messages);
      const compact = compactStrategy(inputOf(messages, compactKeep2, { fixedTokens: FIXED_TOKENS }));
      expect(compact.report.compacted_items).toBeGreaterThan(0);
      const view = viewText(compact.messages);
      for (const fact of conversation.facts) expect(view).toContain(fact.text);
      expect(compact.messages).toHaveLength(messages.length);
      expectSafe(messages, compact.messages);
    });
  });
});

// ── summarize ─────────────────────────────────────────────────────────────────

describe('summarize', () => {
  const fourTurns = () =>
    history(
      chatTurn('Hi, I am Lukas Brandt.', 'Hello Lukas.'),
      toolTurn('Where is ZX-14440?', [[lookupOrder('s1'), BIG_ORDER]], 'It is in transit with PostNord.'),
      chatTurn('Please call me after 6pm.', 'Noted: a phone call after 6pm.'),
      chatTurn('Ship the replacement to Cork.', 'It will go to Cork.'),
    );
  const triggerAt3 = (extra: Partial<MemoryStrategyInput> = {}) => settingsOf({ mode: 'summarize', context_limit: 3, keep_last_n_turns: 2, ...extra });
  const summarizeTo = (summary: string) => jest.fn<ReturnType<SummarizeFunction>, Parameters<SummarizeFunction>>(async () => summary);
  const previous: MemoryState = { summary: 'Earlier: the customer asked about a blender.', summarizedThroughSeq: 0 };

  it('when not triggered, sends the messages as they are and does not summarize', async () => {
    const messages = fourTurns();
    const summarize = summarizeTo('never');
    const result = await summarizeStrategy(inputOf(messages, triggerAt3({ context_limit: 5 })), summarize);
    expect(summarize).not.toHaveBeenCalled();
    expect(result.messages).toEqual(messages);
    expect(result).toMatchObject({ newState: null, summarizerError: null, report: { summarized: false, triggered_by: null } });
  });

  it('when not triggered, puts the previous summary pair ahead of the messages', async () => {
    const messages = fourTurns();
    const result = await summarizeStrategy(inputOf(messages, triggerAt3({ context_limit: 5 }), { state: previous }), summarizeTo('never'));
    expect(result.messages).toEqual([...summaryPair(previous.summary!, countTokens), ...messages]);
    expect(result.newState).toBeNull();
  });

  it('when triggered, summarizes the prefix with the previous summary, and sends the summary pair and the verbatim tail', async () => {
    const messages = fourTurns();
    const summarize = summarizeTo('  Lukas Brandt; ZX-14440 is with PostNord.  ');
    const result = await summarizeStrategy(inputOf(messages, triggerAt3({ summary_token_budget: 300 }), { state: previous }), summarize);

    const [prefix, tail] = [userTurns(messages).slice(0, 2).flat(), userTurns(messages).slice(2).flat()];
    expect(summarize).toHaveBeenCalledTimes(1);
    expect(summarize).toHaveBeenCalledWith({ previousSummary: previous.summary, messages: prefix, tokenBudget: 300 });

    const summaryText = `${SUMMARY_INTRO}\nLukas Brandt; ZX-14440 is with PostNord.`;
    expect(result.messages).toEqual([
      { role: 'user', content: summaryText, tokens: counter.countMessage({ content: summaryText }), synthetic: true },
      { role: 'assistant', content: SUMMARY_ACKNOWLEDGEMENT, tokens: counter.countMessage({ content: SUMMARY_ACKNOWLEDGEMENT }), synthetic: true },
      ...tail,
    ]);
    expect(result.messages.filter((m) => m.content.includes(previous.summary!))).toEqual([]);
    expect(result.newState).toEqual({ summary: 'Lukas Brandt; ZX-14440 is with PostNord.', summarizedThroughSeq: prefix.at(-1)!.seq });
    expect(result.report).toMatchObject({ strategy: 'summarize', summarized: true, triggered_by: 'context_limit', trimmed_turns: 0 });
    expect(result.summarizerError).toBeNull();
  });

  it('passes no previous summary on the first summary', async () => {
    const summarize = summarizeTo('first summary');
    await summarizeStrategy(inputOf(fourTurns(), triggerAt3()), summarize);
    expect(summarize.mock.calls[0]![0].previousSummary).toBeNull();
  });

  describe('when the summarizer fails', () => {
    const secret = 'upstream 503: model overloaded at 10.0.0.7';

    it.each([
      ['rejects', async () => Promise.reject(new Error(secret))],
      ['throws at once', () => { throw new Error(secret); }],
    ] as Array<[string, SummarizeFunction]>)('when it %s: trims to the tail, keeps the existing summary pair, reports the error, sends no error text', async (_how, failing) => {
      const messages = fourTurns();
      const result = await summarizeStrategy(inputOf(messages, triggerAt3(), { state: previous }), failing);
      expect(result.messages).toEqual([...summaryPair(previous.summary!, countTokens), ...userTurns(messages).slice(2).flat()]);
      expect(result.summarizerError).toBeInstanceOf(Error);
      expect((result.summarizerError as Error).message).toBe(secret);
      expect(result.newState).toBeNull();
      expect(result.report).toMatchObject({ summarized: false, trimmed_turns: 2 });
      expect(viewText(result.messages)).not.toMatch(/503|overloaded|error/i);
    });

    it('without an earlier summary, sends only the tail', async () => {
      const messages = fourTurns();
      const result = await summarizeStrategy(inputOf(messages, triggerAt3()), async () => Promise.reject(new Error(secret)));
      expect(result.messages).toEqual(userTurns(messages).slice(2).flat());
      expect(result.messages.some((m) => m.synthetic)).toBe(false);
    });

    it.each(['', '   \n '])('counts an empty summary (%j) as a failure', async (empty) => {
      const messages = fourTurns();
      const result = await summarizeStrategy(inputOf(messages, triggerAt3()), summarizeTo(empty));
      expect(result.summarizerError).toBeTruthy();
      expect(result.newState).toBeNull();
      expect(result.messages).toEqual(userTurns(messages).slice(2).flat());
      expect(result.report.summarized).toBe(false);
    });
  });

  it('counts the previous summary pair towards the token triggers', async () => {
    const messages = fourTurns();
    const pairTokens = total(summaryPair(previous.summary!, countTokens));
    const settings = settingsOf({ mode: 'summarize', keep_last_n_turns: 2, token_soft_budget: 5000 });
    const fixedTokens = 5000 - total(messages) - pairTokens;
    const at = await summarizeStrategy(inputOf(messages, settings, { state: previous, fixedTokens }), summarizeTo('s'));
    expect(at.report.triggered_by).toBeNull();
    const above = await summarizeStrategy(inputOf(messages, settings, { state: previous, fixedTokens: fixedTokens + 1 }), summarizeTo('s'));
    expect(above.report.triggered_by).toBe('token_soft_budget');
  });
});

// ── the hard budget ───────────────────────────────────────────────────────────

describe('token_budget as a hard cap', () => {
  // low_water_pct 1 where the fewest turns must go: cut to just under the budget. The default sheds to 60% ("low water" below).
  /** Six closed turns of about equal size, no tools. */
  const sixTurns = () =>
    history(...Array.from({ length: 6 }, (_, i) => chatTurn(`Question ${i + 1}: ${'tell me more about the warranty. '.repeat(20)}`, `Answer ${i + 1}: ${'the warranty lasts two years. '.repeat(20)}`)));

  /** The oldest whole turns are dropped, as few as possible: the view is a suffix of whole turns that fits, and one more turn would not. */
  function expectFewestTurnsDropped(messages: ContextMessage[], view: ContextMessage[], fixedTokens: number, budget: number) {
    const turns = userTurns(messages);
    const keptTurns = turns.findIndex((t) => t[0]!.seq === view[0]!.seq);
    expect(keptTurns).toBeGreaterThan(0);
    expect(view).toEqual(turns.slice(keptTurns).flat());
    expect(fixedTokens + total(view)).toBeLessThanOrEqual(budget);
    expect(fixedTokens + total(turns.slice(keptTurns - 1).flat())).toBeGreaterThan(budget);
  }

  it('trim drops the oldest whole turns until the prompt fits', () => {
    const messages = sixTurns();
    const budget = 1000;
    const result = trimStrategy(inputOf(messages, settingsOf({ mode: 'trim', max_turns: 50, token_budget: budget, low_water_pct: 1 }), { fixedTokens: 200 }));
    expectFewestTurnsDropped(messages, result.messages, 200, budget);
    expect(result.report.trimmed_turns).toBe(6 - userTurns(result.messages).length);
    expect(result.report.tokens_after).toBeLessThanOrEqual(budget);
  });

  it('compact drops the oldest whole turns when compaction alone is not enough', () => {
    const messages = sixTurns();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', token_budget: 1000, low_water_pct: 1 }), { fixedTokens: 200 }));
    expect(result.report.triggered_by).toBe('token_budget');
    expectFewestTurnsDropped(messages, result.messages, 200, 1000);
  });

  it('compact counts only the placeholders it sends, not those in turns the budget then dropped', () => {
    const messages = toolHeavyConversation();
    const newestTwo = userTurns(messages).slice(-2).flat();
    // room for the two newest turns only (the search result in them stays whole: compact_keep 2)
    const budget = 200 + total(newestTwo) + 5;
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 2, token_budget: budget, low_water_pct: 1, pin_opening_pct: 0 }), { fixedTokens: 200 }));
    expect(result.messages).toEqual(newestTwo);
    expect(result.report).toMatchObject({ compacted_items: 0, trimmed_turns: 2 });
    expect(result.compactedByTool).toEqual({});
  });

  it('a turn that fits the budget exactly stays', () => {
    const messages = sixTurns();
    const budget = 200 + total(userTurns(messages).slice(-2).flat());
    const result = trimStrategy(inputOf(messages, settingsOf({ mode: 'trim', token_budget: budget, low_water_pct: 1 }), { fixedTokens: 200 }));
    expect(result.messages).toEqual(userTurns(messages).slice(-2).flat());
  });

  it('summarize counts the summary pair in the budget, drops the oldest tail turns and keeps the pair', async () => {
    const messages = sixTurns();
    const summary = 'The customer asked about the warranty of the Vesper air fryer, order ZX-14440. '.repeat(25).trim();
    const pair = summaryPair(summary, countTokens);
    const lastTwo = userTurns(messages).slice(-2).flat();
    // Room for the pair and two turns; without the pair, a third turn would fit as well.
    const budget = 200 + total(pair) + total(lastTwo) + 5;
    expect(200 + total(userTurns(messages).slice(-3).flat())).toBeLessThanOrEqual(budget);

    const settings = settingsOf({ mode: 'summarize', context_limit: 5, keep_last_n_turns: 5, token_budget: budget, low_water_pct: 1 });
    const result = await summarizeStrategy(inputOf(messages, settings, { fixedTokens: 200 }), async () => summary);
    expect(result.messages).toEqual([...pair, ...lastTwo]);
    expect(result.report.trimmed_turns).toBe(3);
  });

  it('never drops the newest turn, nor the summary pair, even when they alone are over budget', async () => {
    const messages = sixTurns();
    const newest = userTurns(messages).at(-1)!;
    const tiny = { token_budget: 100 };
    expect(trimStrategy(inputOf(messages, settingsOf({ mode: 'trim', ...tiny }), { fixedTokens: 90 })).messages).toEqual(newest);
    expect(compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', ...tiny }), { fixedTokens: 90 })).messages).toEqual(newest);
    const summarized = await summarizeStrategy(
      inputOf(messages, settingsOf({ mode: 'summarize', keep_last_n_turns: 2, ...tiny }), { fixedTokens: 90 }),
      async () => 'summary',
    );
    expect(summarized.messages).toEqual([...summaryPair('summary', countTokens), ...newest]);
    // Two turns and keep_last_n_turns 2: nothing to summarize, the budget still applies.
    const lastTwo = userTurns(messages).slice(-2).flat();
    const nothingToSummarize = await summarizeStrategy(
      inputOf(lastTwo, settingsOf({ mode: 'summarize', keep_last_n_turns: 2, ...tiny }), { fixedTokens: 90, state: { summary: 'old', summarizedThroughSeq: 0 } }),
      async () => 'never',
    );
    expect(nothingToSummarize.newState).toBeNull();
    expect(nothingToSummarize.messages).toEqual([...summaryPair('old', countTokens), ...newest]);
  });
});

// ── safety rules ──────────────────────────────────────────────────────────────

/** The model's view obeys the safety rules: starts on a user message, no call without its result, no result without its call. */
function expectSafe(input: ContextMessage[], view: ContextMessage[]) {
  if (view.length > 0) expect(view[0]!.role).toBe('user');
  const calledBefore = new Set<string>();
  for (const [i, m] of view.entries()) {
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? []) {
        calledBefore.add(call.id);
        // its result follows, in the same turn
        const turnEnd = view.findIndex((n, j) => j > i && n.role === 'user');
        const results = view.slice(i + 1, turnEnd < 0 ? undefined : turnEnd);
        expect(results.filter((r) => r.role === 'tool' && r.tool_call_id === call.id)).toHaveLength(1);
      }
    }
    if (m.role === 'tool') expect(calledBefore.has(m.tool_call_id!)).toBe(true);
  }
  // Durable messages keep their order; only synthetic ones are new.
  const durable = view.filter((m) => !m.synthetic);
  expect(durable.every((m) => input.some((n) => n.seq === m.seq))).toBe(true);
  expect(seqs(durable)).toEqual([...seqs(durable)].sort((a, b) => a! - b!));
}

/** When the last message is not the assistant's answer, the last turn (from its user message) must reach the model untouched. */
function expectOpenLastTurnKept(input: ContextMessage[], view: ContextMessage[]) {
  const last = input.at(-1);
  const open = last !== undefined && !(last.role === 'assistant' && !last.tool_calls?.length);
  const lastUser = input.findLastIndex((m) => m.role === 'user');
  if (!open || lastUser < 0) return;
  const lastTurn = input.slice(lastUser);
  expect(view.slice(-lastTurn.length)).toEqual(lastTurn);
}

describe('safety rules, each on its own', () => {
  const startsMidTurn = () => {
    const full = history(
      toolTurn('Where is ZX-14440?', [[lookupOrder('m1'), BIG_ORDER], [getProfile('m2'), PROFILE_JSON]], 'In transit.'),
      chatTurn('And the returns?', '30 days.'),
      chatTurn('Thanks', 'Welcome'),
    );
    return full.slice(3); // the loaded window starts on result m2 (its call is not loaded), then the answer
  };
  const allStrategies = {
    none: (input: StrategyInput) => noneStrategy(input),
    window: (input: StrategyInput) => windowStrategy(input, { maxMessages: 1000, maxTokens: 1_000_000 }),
    trim: (input: StrategyInput) => trimStrategy({ ...input, settings: settingsOf({ mode: 'trim', max_turns: 1, keep_last_n_turns: 1 }) }),
    compact: (input: StrategyInput) => compactStrategy({ ...input, settings: settingsOf({ mode: 'compact', compact_keep: 0, compact_trigger_turns: 1 }) }),
  };

  it.each(Object.entries(allStrategies))('%s: the first message the model sees is a user message, never an orphaned result or answer', (_name, run) => {
    const messages = startsMidTurn();
    const result = run(inputOf(messages, settingsOf({ mode: 'none' })));
    expect(result.messages[0]!.role).toBe('user');
    expect(result.messages.some((m) => m.tool_call_id === 'm2')).toBe(false);
  });

  it('summarize: the first message is a user message, also when not triggered', async () => {
    const result = await summarizeStrategy(inputOf(startsMidTurn(), settingsOf({ mode: 'summarize', context_limit: 50 })), async () => 'x');
    expect(result.messages[0]!.role).toBe('user');
    expect(seqs(result.messages)).toEqual([6, 7, 8, 9]);
  });

  it('a history with no user message at all gives an empty view', () => {
    const messages = startsMidTurn().slice(0, 2);
    expect(noneStrategy(inputOf(messages, settingsOf({ mode: 'none' }))).messages).toEqual([]);
  });

  it('a tool call whose result is missing is dropped with the call, keeping the call that was answered', () => {
    const a = lookupOrder('x1');
    const b = lookupOrder('x2', 'ZX-14441');
    const messages = history([customer('two orders'), { role: 'assistant', content: 'Checking both.', tool_calls: [a, b] }, toolResult(a, 'order one'), agent('One found.')], chatTurn('ok', 'bye'));
    const result = noneStrategy(inputOf(messages, settingsOf({ mode: 'none' })));
    expect(result.messages[1]!.tool_calls).toEqual([a]);
    expectSafe(messages, result.messages);
  });

  it('a tool result whose call is not in the view is dropped', () => {
    const a = lookupOrder('y1');
    const messages = history(
      [customer('my order?'), callsTools(a), toolResult(a, 'order'), toolResult(lookupOrder('y-unknown'), 'stray result'), agent('Found it.')],
      chatTurn('ok', 'bye'),
    );
    const result = noneStrategy(inputOf(messages, settingsOf({ mode: 'none' })));
    expect(result.messages.map((m) => m.content)).not.toContain('stray result');
    expect(result.messages).toHaveLength(messages.length - 1);
  });

  describe('a tool chain in flight keeps its whole last turn', () => {
    const inFlight = () =>
      history(
        toolTurn('Where is ZX-14440?', [[lookupOrder('f1'), BIG_ORDER]], 'In transit.'),
        toolTurn('And ZX-14441?', [[lookupOrder('f2', 'ZX-14441'), BIG_ORDER]]), // no answer yet
      );

    it('compact with compact_keep 0 leaves it uncompacted (a closed turn would be compacted)', () => {
      const messages = inFlight();
      const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 0, compact_trigger_turns: 1, compact_clear_tool_inputs: true })));
      expectOpenLastTurnKept(messages, result.messages);
      expect(result.compactedByTool).toEqual({ lookup_order: 1 });
      const closed = history(...userTurns(messages).map((t) => t.map(({ seq: _s, tokens: _t, ...draft }) => draft)), [agent('Also in transit.')]);
      expect(compactStrategy(inputOf(closed, settingsOf({ mode: 'compact', compact_keep: 0, compact_trigger_turns: 1 }))).compactedByTool).toEqual({ lookup_order: 2 });
    });

    it('trim and the hard budget keep it whole even over budget', () => {
      const messages = inFlight();
      const result = trimStrategy(inputOf(messages, settingsOf({ mode: 'trim', max_turns: 1, keep_last_n_turns: 1, token_budget: 100 })));
      expect(result.messages).toEqual(userTurns(messages)[1]);
    });

    it('summarize keeps it in the verbatim tail, also when the summarizer fails', async () => {
      const messages = inFlight();
      const settings = settingsOf({ mode: 'summarize', context_limit: 1, keep_last_n_turns: 1 });
      const ok = await summarizeStrategy(inputOf(messages, settings), async () => 'summary');
      expectOpenLastTurnKept(messages, ok.messages);
      const failed = await summarizeStrategy(inputOf(messages, settings), async () => Promise.reject(new Error('down')));
      expectOpenLastTurnKept(messages, failed.messages);
    });

    it('an unanswered question is kept too', () => {
      const messages = history(chatTurn('one', 'answer'), [customer('')]);
      const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_keep: 0, compact_trigger_turns: 1, token_budget: 100 }), { fixedTokens: 100 }));
      expect(result.messages.at(-1)).toEqual(messages.at(-1));
    });
  });
});

describe('safety rules on seeded random conversations', () => {
  const TOOLS = ['lookup_order', 'get_user_profile', 'search_knowledge_base'];
  const HUGE = orderJson('ZX-14440', 150);
  const CASES = 300;

  function randomCase(seed: number) {
    const rand = seededRandom(seed);
    const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
    const text = () => pick(['', 'ok', 'Where is my order ZX-14440?', 'Please call me after 6pm. '.repeat(int(1, 30))]);
    const output = () => pick(['', 'No order ZX-00000 was found.', PROFILE_JSON, orderJson('ZX-14441', 10), HUGE]);

    const drafts: Draft[] = [];
    const turns = int(1, 10);
    let callNo = 0;
    for (let t = 0; t < turns; t++) {
      drafts.push(customer(text()));
      const chains = rand() < 0.4 ? 0 : int(1, 2);
      for (let c = 0; c < chains; c++) {
        const calls = Array.from({ length: int(1, 3) }, (): ToolCall => ({
          id: `call_${seed}_${++callNo}`,
          name: pick(TOOLS),
          arguments: pick([{}, { order_id: 'ZX-14440' }, { query: 'returns' }]),
        }));
        drafts.push({ role: 'assistant', content: pick(['', 'Let me check.']), tool_calls: calls });
        for (const call of calls) drafts.push(toolResult(call, output()));
      }
      const openLast = t === turns - 1 && rand() < 0.35;
      if (!openLast) drafts.push(agent(text()));
    }
    let messages = history(drafts);
    if (rand() < 0.2) messages = messages.slice(int(0, messages.length - 1)); // a loaded window may start mid-turn

    const keep = int(1, 4);
    const trigger = pick([
      {},
      { compact_trigger_turns: int(1, 6) },
      { context_limit: int(keep, 8) },
      { token_soft_budget: int(100, 20_000) },
      { token_remaining_pct: 0.5, context_window_tokens: int(1000, 40_000) },
    ]);
    // Drawn once, so each case is the same whichever test runs it.
    const common: Omit<MemoryStrategyInput, 'mode'> = {
      keep_last_n_turns: keep,
      max_turns: int(keep, 8),
      compact_keep: int(0, 3),
      compact_clear_tool_inputs: rand() < 0.5,
      ...(rand() < 0.25 ? { compact_include_tools: [pick(TOOLS)] } : {}),
      ...(rand() < 0.25 ? { compact_exclude_tools: [pick(TOOLS)] } : {}),
      ...(rand() < 0.4 ? { token_budget: int(100, 60_000) } : {}),
      ...trigger,
    };
    if (common.token_soft_budget !== undefined && common.token_budget !== undefined && common.token_soft_budget > common.token_budget) {
      delete common.token_soft_budget;
    }
    const settings = (mode: 'trim' | 'compact' | 'summarize') => settingsOf({ mode, ...common });
    const fixedTokens = int(0, 3000);
    const state: MemoryState = rand() < 0.4 ? { summary: 'The customer is Lukas Brandt.', summarizedThroughSeq: 0 } : EMPTY_MEMORY_STATE;
    const summarizerOutcome = pick(['summary', 'reject', 'empty'] as const);
    const summarize: SummarizeFunction = async () => {
      if (summarizerOutcome === 'reject') throw new Error('SUMMARIZER-FAILED');
      return summarizerOutcome === 'empty' ? '' : `Summary of seed ${seed}.`;
    };
    const windowLimits = { maxMessages: int(1, 40), maxTokens: int(50, 20_000) };
    return { messages, settings, fixedTokens, state, summarize, windowLimits };
  }

  const cases = Array.from({ length: CASES }, (_, i) => ({ seed: 1000 + i, ...randomCase(1000 + i) }));

  /** Common to every strategy: safe view, inputs not rewritten, the report's token fields add up. */
  function check(messages: ContextMessage[], fixedTokens: number, before: ContextMessage[], result: StrategyResult) {
    expectSafe(messages, result.messages);
    expect(messages).toEqual(before);
    expect(result.report.tokens_before).toBe(fixedTokens + total(messages));
    expect(result.report.tokens_after).toBe(fixedTokens + total(result.messages));
  }

  it(`none (${CASES} cases): every message, safe, the open last turn untouched`, () => {
    for (const { seed, messages, fixedTokens } of cases) {
      const before = clone(messages);
      const result = noneStrategy(inputOf(messages, settingsOf({ mode: 'none' }), { fixedTokens }));
      try {
        check(messages, fixedTokens, before, result);
        expectOpenLastTurnKept(messages, result.messages);
        const firstUser = messages.findIndex((m) => m.role === 'user');
        if (firstUser >= 0 && messages[0]!.role === 'user') expect(result.messages).toEqual(messages);
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`);
      }
    }
  });

  it(`window (${CASES} cases): safe, within its limits, the open last turn untouched when it fits`, () => {
    for (const { seed, messages, fixedTokens, windowLimits } of cases) {
      const before = clone(messages);
      const result = windowStrategy(inputOf(messages, settingsOf({ mode: 'window' }), { fixedTokens }), windowLimits);
      try {
        check(messages, fixedTokens, before, result);
        expect(result.messages.length).toBeLessThanOrEqual(windowLimits.maxMessages);
        expect(total(result.messages)).toBeLessThanOrEqual(windowLimits.maxTokens);
        const lastTurn = messages.slice(Math.max(0, messages.findLastIndex((m) => m.role === 'user')));
        if (lastTurn.length <= windowLimits.maxMessages && total(lastTurn) <= windowLimits.maxTokens) {
          expectOpenLastTurnKept(messages, result.messages);
        }
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`);
      }
    }
  });

  it(`trim (${CASES} cases): safe, the newest turn and an open last turn untouched`, () => {
    for (const { seed, messages, fixedTokens, settings } of cases) {
      const before = clone(messages);
      const result = trimStrategy(inputOf(messages, settings('trim'), { fixedTokens }));
      try {
        check(messages, fixedTokens, before, result);
        expectOpenLastTurnKept(messages, result.messages);
        if (messages.some((m) => m.role === 'user')) expect(result.messages.at(-1)).toEqual(messages.at(-1));
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`);
      }
    }
  });

  it(`compact (${CASES} cases): safe, placeholders only outside the kept turns, an open last turn untouched`, () => {
    for (const { seed, messages, fixedTokens, settings } of cases) {
      const before = clone(messages);
      const s = settings('compact');
      const result = compactStrategy(inputOf(messages, s, { fixedTokens }));
      try {
        check(messages, fixedTokens, before, result);
        expectOpenLastTurnKept(messages, result.messages);
        if (s.compact_keep > 0) {
          // (the hard budget may still drop them whole, but never alters them)
          for (const m of userTurns(messages).slice(-s.compact_keep).flat()) {
            const sent = result.messages.find((n) => n.seq === m.seq);
            if (sent) expect(sent).toEqual(m);
          }
        }
        for (const m of result.messages.filter((n) => n.compacted && n.role === 'tool')) {
          expect(m.content).toBe(compactionPlaceholder(m.name!, m.tool_call_id!));
        }
        expect(result.report.compacted_items).toBe(result.messages.filter((m) => m.compacted && m.role === 'tool').length);
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`);
      }
    }
  });

  it(`summarize (${CASES} cases): safe, the summary pair first, no error text, an open last turn untouched`, async () => {
    for (const { seed, messages, fixedTokens, settings, state, summarize } of cases) {
      const before = clone(messages);
      const result = await summarizeStrategy(inputOf(messages, settings('summarize'), { fixedTokens, state }), summarize);
      try {
        check(messages, fixedTokens, before, result);
        expectOpenLastTurnKept(messages, result.messages);
        expect(viewText(result.messages)).not.toContain('SUMMARIZER-FAILED');
        const synthetic = result.messages.filter((m) => m.synthetic);
        const summary = result.newState?.summary ?? state.summary;
        if (summary) expect(synthetic).toEqual(summaryPair(summary, countTokens));
        else expect(synthetic).toEqual([]);
        expect(result.messages.slice(0, synthetic.length)).toEqual(synthetic);
        if (result.summarizerError) expect(result.newState).toBeNull();
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`);
      }
    }
  });
});

// ── report fields ─────────────────────────────────────────────────────────────

describe('the report', () => {
  it('tokens_before is the fixed tokens plus the whole history; tokens_after the fixed tokens plus the view', () => {
    const messages = toolHeavyConversation();
    const result = compactStrategy(inputOf(messages, settingsOf({ mode: 'compact', compact_trigger_turns: 1 }), { fixedTokens: 321 }));
    expect(result.report.tokens_before).toBe(321 + total(messages));
    expect(result.report.tokens_after).toBe(321 + total(result.messages));
    expect(result.report.tokens_after).toBeLessThan(result.report.tokens_before);
  });

  it('tokens_before uses historyTokensTotal when the caller loaded only part of the history', async () => {
    const messages = toolHeavyConversation();
    const input = inputOf(messages, settingsOf({ mode: 'trim' }), { fixedTokens: 10, historyTokensTotal: 123_456 });
    expect(trimStrategy(input).report.tokens_before).toBe(123_466);
    expect(noneStrategy(input).report.tokens_before).toBe(123_466);
    expect(windowStrategy(input, { maxMessages: 2, maxTokens: 1000 }).report.tokens_before).toBe(123_466);
    expect((await summarizeStrategy(input, async () => 's')).report.tokens_before).toBe(123_466);
    expect(trimStrategy(input).report.tokens_after).toBe(10 + total(messages));
  });
});

// ── the evaluation set ────────────────────────────────────────────────────────

interface EvalConversation {
  id: string;
  tool_heavy: boolean;
  messages: Array<{ role: ContextMessage['role']; content: string; tool_calls?: ToolCall[]; tool_call_id?: string; name?: string }>;
  facts: Array<{ id: string; text: string; seq: number }>;
}

function loadEvalSet() {
  const file = path.resolve(__dirname, '../fixtures/eval-conversations.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as EvalConversation)
    .map((c) => ({
      id: c.id,
      toolHeavy: c.tool_heavy,
      facts: c.facts,
      messages: c.messages.map((m, seq): ContextMessage => ({ ...m, seq, tokens: counter.countMessage(m) })),
    }));
}

/** Everything the model reads of the history: contents and tool call arguments. */
function viewText(messages: ContextMessage[]): string {
  return messages.map((m) => `${m.content}\n${JSON.stringify(m.tool_calls ?? [])}`).join('\n');
}
