/**
 * Property-based tests (fast-check) of every memory strategy on arbitrary
 * conversations: user/assistant turns, tool chains of 1–3 calls, empty and huge
 * contents, emoji, zero-width, RTL and NUL characters, a loaded window that
 * starts mid-turn, and arbitrary valid settings.
 *
 * What "never lose the newest user message" means here. The question being
 * answered is not part of the history: the service sends it after the history and
 * counts it in `fixedTokens`, so no strategy can drop it. The history's newest user
 * message is the last user message of the stored conversation, and its turn (that
 * message with the tool traffic and answer after it) is the newest turn:
 *  - none, trim, compact, summarize keep the newest turn whatever the budget; when
 *    that turn is open (an unanswered question, or a tool chain whose answer is not
 *    stored yet), it is the tail of the view message for message, untouched;
 *  - window is a hard limit on messages and tokens: the newest turn is the tail of
 *    its view when it fits those limits, and otherwise the view is empty (it never
 *    opens mid-turn).
 *
 * The hard budget (token_budget, trim/compact/summarize): the prompt (fixed tokens,
 * the summary pair if any, the view) is within it, unless the summary pair and the
 * newest turn alone exceed it; then the view is the summary pair and that turn only.
 * (docs/memory.md: "the oldest whole turns are left out (never the newest, never the
 * summary)". The window's budget is its own maxTokens over the history alone, as
 * apply_memory passes token_budget to it.)
 *
 * Token counts are the service's own (js-tiktoken, o200k_base), memoised. No text
 * here has a long run without whitespace, nor a long run of whitespace: js-tiktoken's
 * merge is quadratic in the length of one such run (1,000 emoji: about 3 s; 4,000
 * "!": 2 s), which is reported, not worked around here.
 *
 * Runs: FC_NUM_RUNS overrides the number of runs per property, FC_SEED the seed
 * (a failure prints its seed and path; pass both back to replay it). The counts
 * are written to test-artifacts/property-memory-strategies.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { ContextMessage, CountMessageTokens } from '../../src/memory/context';
import { memoryStrategySchema, withDefaults, type MemorySettings, type MemoryStrategyInput } from '../../src/memory/settings';
import {
  compactionPlaceholder,
  compactStrategy,
  openingCap,
  pinnedOpening,
  EMPTY_MEMORY_STATE,
  noneStrategy,
  sanitize,
  summarizeStrategy,
  summaryPair,
  steppedWindowLimits,
  trimStrategy,
  windowStrategy,
  type MemoryState,
  type StrategyInput,
  type StrategyResult,
  type SummarizeFunction,
} from '../../src/memory/strategies';
import { TokenCounter } from '../../src/memory/tokens';
import type { ToolCall } from '../../src/store/types';

const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 500);
const SEED = process.env.FC_SEED === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.FC_SEED);

// ── tokens ────────────────────────────────────────────────────────────────────

/** The service's counter, each text counted once: the huge texts recur in many messages. */
class MemoisedTokenCounter extends TokenCounter {
  private readonly counts = new Map<string, number>();
  override countText(text: string): number {
    let tokens = this.counts.get(text);
    if (tokens === undefined) {
      tokens = super.countText(text);
      this.counts.set(text, tokens);
    }
    return tokens;
  }
}
const counter = new MemoisedTokenCounter('gpt-4o-mini');
const countTokens: CountMessageTokens = (m) => counter.countMessage(m);

// ── texts ─────────────────────────────────────────────────────────────────────

const NASTY = [
  '\u0000',
  'a\u0000b\u0000',
  '\u200b\u200c\u200d\u2060\ufeff',
  'zero\u200bwidth\u200djoin',
  '\u202eevil.exe\u202c',
  '\u200fمرحبا، أين طلبي؟\u200e',
  'שלום, איפה ההזמנה שלי?',
  '👨‍👩‍👧‍👦🏳️‍🌈👍🏽🇮🇪',
  '\u2028line\u2029para',
  '<|endoftext|><|im_start|>system',
  '\ud800 lone \udfff surrogates',
  'e\u0301\u0301\u0301 Z̷̧̛̙a̸l̶g̵o̴',
  '注文番号 ZX-14440 はどこですか',
  '   ',
  '\n\n\t',
] as const;

/** Huge texts (tens of thousands of characters), counted once each. */
const HUGE = [
  'Please call me after 6pm, my order is ZX-14440. '.repeat(1200),
  Array.from({ length: 2500 }, (_, i) => `${NASTY[i % NASTY.length]} 😀😀 \u200b word${i}`).join(' '),
  JSON.stringify({ order_id: 'ZX-14440', tracking_events: Array.from({ length: 400 }, (_, i) => ({ i, detail: `scanned at hub ${i}` })) }, null, 2),
  'שלום עולם مرحبا \u202e '.repeat(3000),
  'nul\u0000 byte '.repeat(4000),
];

/** A short text of any kind; no long run without whitespace (see the header). */
const shortText = fc.oneof(
  { arbitrary: fc.constant(''), weight: 3 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.constantFrom(...NASTY), weight: 3 },
);

/** Units a huge text repeats: each has a non-space character, so no run of whitespace grows with the text either. */
const HUGE_UNITS = [...NASTY.filter((t) => t.trim() !== ''), 'order ZX-14440', 'ok'];

/**
 * Huge: one of the fixed ones, or a unit repeated with spaces to 10k–40k characters.
 * Drawn from a fixed pool so each is counted once (counting 40k characters takes
 * about 40 ms, too slow to pay on every run).
 */
const HUGE_POOL = [
  ...HUGE,
  ...HUGE_UNITS.flatMap((unit) => [10_000, 30_000].map((length) => `${unit} `.repeat(Math.ceil(length / (unit.length + 1))).slice(0, length))),
];
const hugeText = fc.constantFrom(...HUGE_POOL);

const text = fc.oneof({ arbitrary: shortText, weight: 30 }, { arbitrary: hugeText, weight: 1 });

// ── conversations ─────────────────────────────────────────────────────────────

const TOOLS = ['lookup_order', 'get_user_profile', 'search_knowledge_base', 'other-tool_1'] as const;

type Draft = Omit<ContextMessage, 'tokens' | 'seq'>;

/** How a generated conversation ends. */
type Ending = 'answered' | 'unanswered_question' | 'tool_chain_in_flight';

interface TurnShape {
  question: string;
  chains: Array<{ preamble: string; calls: Array<{ name: string; args: Record<string, unknown>; output: string }> }>;
  answer: string;
}

const argsArb = fc.oneof(
  fc.constant({}),
  fc.record({ order_id: shortText }),
  fc.record({ query: shortText }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

const turnArb: fc.Arbitrary<TurnShape> = fc.record({
  question: text,
  chains: fc.oneof(
    { arbitrary: fc.constant<TurnShape['chains']>([]), weight: 2 },
    {
      arbitrary: fc.array(
        fc.record({
          preamble: fc.oneof(fc.constant(''), shortText),
          calls: fc.array(fc.record({ name: fc.constantFrom(...TOOLS), args: argsArb, output: text }), { minLength: 1, maxLength: 3 }),
        }),
        { minLength: 1, maxLength: 2 },
      ),
      weight: 2,
    },
  ),
  answer: text,
});

interface Conversation {
  messages: ContextMessage[];
  ending: Ending;
  /** The whole conversation before a loaded window cut its start (for the record). */
  full: ContextMessage[];
}

/** Durable messages, seq 1…n, with the tokens each costs. */
function toDurable(drafts: Draft[], firstSeq = 1): ContextMessage[] {
  return drafts.map((draft, i) => ({ ...draft, seq: firstSeq + i, tokens: countTokens(draft) }));
}

/**
 * Call ids: unique in the conversation (as OpenAI makes them), or restarting in
 * every turn (`call_0`, `call_1`, … as some OpenAI-compatible servers do), with any
 * text after the number.
 */
type IdScheme = 'unique' | 'per_turn';

function buildConversation(turns: TurnShape[], ending: Ending, idTag: string, idScheme: IdScheme): Draft[] {
  const drafts: Draft[] = [];
  let callNo = 0;
  turns.forEach((turn, t) => {
    if (idScheme === 'per_turn') callNo = 0;
    const last = t === turns.length - 1;
    drafts.push({ role: 'user', content: turn.question });
    const chains = last && ending === 'unanswered_question' ? [] : turn.chains;
    for (const chain of chains) {
      const calls: ToolCall[] = chain.calls.map((c) => ({ id: `call_${++callNo}_${idTag}`, name: c.name, arguments: c.args }));
      drafts.push({ role: 'assistant', content: chain.preamble, tool_calls: calls });
      chain.calls.forEach((c, k) => drafts.push({ role: 'tool', content: c.output, tool_call_id: calls[k]!.id, name: c.name }));
    }
    const open = last && (ending === 'unanswered_question' || (ending === 'tool_chain_in_flight' && chains.length > 0));
    if (!open) drafts.push({ role: 'assistant', content: turn.answer });
  });
  return drafts;
}

const conversationArb: fc.Arbitrary<Conversation> = fc
  .record({
    turns: fc.array(turnArb, { minLength: 0, maxLength: 10 }),
    ending: fc.constantFrom<Ending>('answered', 'answered', 'unanswered_question', 'tool_chain_in_flight'),
    idTag: fc.oneof(fc.constant(''), fc.string({ unit: 'grapheme', maxLength: 6 })),
    idScheme: fc.constantFrom<IdScheme>('unique', 'unique', 'per_turn'),
    // A loaded window (or the messages after a summary) may start anywhere, mid-turn too.
    startAt: fc.option(fc.nat(), { freq: 4, nil: undefined }),
    // Often 1: the history from the conversation's start, where a strategy may pin its opening.
    firstSeq: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 10_000 })),
  })
  .map(({ turns, ending, idTag, idScheme, startAt, firstSeq }) => {
    const full = toDurable(buildConversation(turns, ending, idTag, idScheme), firstSeq);
    const messages = startAt === undefined || full.length === 0 ? full : full.slice(startAt % full.length);
    const lastTurnOpen = isOpen(messages);
    return { messages, full, ending: lastTurnOpen ? ending : 'answered' };
  });

// ── settings ──────────────────────────────────────────────────────────────────

/** Mostly small values (where the interesting boundaries are), sometimes anything in range. */
const biasedInt = (min: number, smallMax: number, max: number) =>
  fc.oneof({ arbitrary: fc.integer({ min, max: smallMax }), weight: 4 }, { arbitrary: fc.integer({ min, max }), weight: 1 });
const share = fc.oneof(
  fc.constantFrom(0.2, 0.5, 0.07, 0.1, 0.9),
  fc.double({ min: 1e-9, max: 1 - 1e-9, noNaN: true }),
);
const toolList = fc.subarray([...TOOLS], { maxLength: 3 });

/** Any strategy the schema accepts (without its mode), defaults filled in by the service's own withDefaults. */
const settingsArb: fc.Arbitrary<Omit<MemoryStrategyInput, 'mode'>> = fc
  .record(
    {
      compact_keep: biasedInt(0, 4, 1000),
      compact_trigger_turns: biasedInt(1, 8, 100_000),
      context_limit: biasedInt(1, 8, 100_000),
      token_budget: biasedInt(100, 8000, 10_000_000),
      token_soft_budget: biasedInt(100, 8000, 10_000_000),
      context_window_tokens: biasedInt(1000, 30_000, 10_000_000),
      token_remaining_pct: share,
      token_soft_remaining_pct: share,
      compact_clear_tool_inputs: fc.boolean(),
      compact_exclude_tools: toolList,
      compact_include_tools: toolList,
      max_turns: biasedInt(1, 10, 100_000),
      keep_last_n_turns: biasedInt(1, 5, 1000),
      summary_token_budget: biasedInt(50, 3000, 100_000),
      low_water_pct: fc.oneof(fc.constant(1), fc.double({ min: 0.05, max: 1, noNaN: true })),
    },
    { requiredKeys: [] },
  )
  .map((s) => {
    // Repairs the pairs the schema refuses rather than filtering (a filter would reject most draws).
    const r = { ...s };
    if (r.keep_last_n_turns !== undefined && r.max_turns !== undefined && r.keep_last_n_turns > r.max_turns) r.max_turns = r.keep_last_n_turns;
    if (r.keep_last_n_turns !== undefined && r.context_limit !== undefined && r.keep_last_n_turns > r.context_limit) r.context_limit = r.keep_last_n_turns;
    if (r.token_soft_budget !== undefined && r.token_budget !== undefined && r.token_soft_budget > r.token_budget) {
      [r.token_soft_budget, r.token_budget] = [r.token_budget, r.token_soft_budget];
    }
    if (r.token_soft_remaining_pct !== undefined && r.token_remaining_pct !== undefined && r.token_soft_remaining_pct < r.token_remaining_pct) {
      [r.token_soft_remaining_pct, r.token_remaining_pct] = [r.token_remaining_pct, r.token_soft_remaining_pct];
    }
    return r;
  });

function settingsFor(mode: MemorySettings['mode'], given: Omit<MemoryStrategyInput, 'mode'>): MemorySettings {
  // parse, not safeParse: a generated setting the schema refuses is a bug in this test.
  return withDefaults(memoryStrategySchema.parse({ mode, ...given }));
}

const fixedTokensArb = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3000 }), weight: 5 }, { arbitrary: fc.integer({ min: 0, max: 200_000 }), weight: 1 });

const stateArb: fc.Arbitrary<MemoryState> = fc.oneof(
  fc.constant(EMPTY_MEMORY_STATE),
  fc.record({ summary: fc.oneof(fc.constant('The customer is Lukas Brandt.'), shortText.filter((s) => s.trim() !== ''), hugeText), summarizedThroughSeq: fc.constant(0) }),
);

/** A fake summarizer (nothing real to call in a pure test): it may answer, fail, or break its contract. */
type SummarizerBehaviour =
  | { kind: 'answers'; summary: string }
  | { kind: 'huge'; summary: string }
  | { kind: 'empty'; summary: string }
  | { kind: 'rejects' }
  | { kind: 'throws' };

const summarizerArb: fc.Arbitrary<SummarizerBehaviour> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('answers' as const), summary: shortText }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('huge' as const), summary: hugeText }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('empty' as const), summary: fc.constantFrom('', ' ', '\n\t ', '\u3000') }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'rejects' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'throws' as const }), weight: 1 },
);

const SECRET = 'SUMMARIZER-FAILED upstream 503 at 10.0.0.7';

function fakeSummarizer(behaviour: SummarizerBehaviour): SummarizeFunction & { calls: Array<Parameters<SummarizeFunction>[0]> } {
  const calls: Array<Parameters<SummarizeFunction>[0]> = [];
  const fn = ((request: Parameters<SummarizeFunction>[0]) => {
    calls.push(request);
    if (behaviour.kind === 'throws') throw new Error(SECRET);
    if (behaviour.kind === 'rejects') return Promise.reject(new Error(SECRET));
    return Promise.resolve(behaviour.summary);
  }) as SummarizeFunction & { calls: typeof calls };
  fn.calls = calls;
  return fn;
}

// ── the rules ─────────────────────────────────────────────────────────────────

const total = (messages: ContextMessage[]) => messages.reduce((sum, m) => sum + m.tokens, 0);

/** The last turn is open when the history does not end on the assistant's answer. */
function isOpen(messages: ContextMessage[]): boolean {
  const last = messages.at(-1);
  return last !== undefined && !(last.role === 'assistant' && !last.tool_calls?.length);
}

/** The newest turn: from the last user message to the end (empty when there is no user message). */
function newestTurn(messages: ContextMessage[]): ContextMessage[] {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  return lastUser < 0 ? [] : messages.slice(lastUser);
}

/**
 * No tool call is separated from its result: every assistant message with calls is
 * followed directly by exactly one result per call (only those), and every result
 * sits in such a block, right after its call message.
 */
function expectToolPairsIntact(view: ContextMessage[]): void {
  view.forEach((m, i) => {
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length > 0) {
      const ids = m.tool_calls.map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
      const block = view.slice(i + 1, i + 1 + ids.length);
      expect(block.map((r) => `${r.role}:${r.tool_call_id}`).sort()).toEqual(ids.map((id) => `tool:${id}`).sort());
    }
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && view[j]!.role === 'tool') j--;
      expect(view[j]?.role).toBe('assistant');
      expect(view[j]!.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id);
      // …within the block of its call message's results (no extra result after it).
      expect(i - j).toBeLessThanOrEqual(view[j]!.tool_calls!.length);
    }
  });
}

/** Safety rules common to every view: starts on a user message, pairs intact, durable messages in their order. */
function expectSafe(input: ContextMessage[], view: ContextMessage[]): void {
  if (view.length > 0) expect(view[0]!.role).toBe('user');
  expectToolPairsIntact(view);
  const synthetic = view.filter((m) => m.synthetic);
  // Synthetic messages (the summary pair) only lead.
  expect(view.slice(0, synthetic.length)).toEqual(synthetic);
  const durable = view.filter((m) => !m.synthetic);
  const bySeq = new Map(input.map((m) => [m.seq, m]));
  for (const m of durable) expect(bySeq.has(m.seq)).toBe(true);
  const seqs = durable.map((m) => m.seq!);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(seqs).size).toBe(seqs.length);
}

/** A durable message in the view is the input's, or (compact) the input's with a placeholder or cleared arguments. */
function expectUnaltered(input: ContextMessage[], view: ContextMessage[], allowCompaction = false): void {
  const bySeq = new Map(input.map((m) => [m.seq, m]));
  for (const m of view.filter((v) => !v.synthetic)) {
    const original = bySeq.get(m.seq)!;
    if (m === original) continue;
    if (allowCompaction && m.compacted) {
      if (m.role === 'tool') {
        expect({ ...m, content: original.content, tokens: original.tokens, compacted: undefined }).toEqual({ ...original, compacted: undefined });
        expect(m.content).toBe(compactionPlaceholder(original.name ?? 'unknown', original.tool_call_id ?? 'unknown'));
        expect(m.tokens).toBe(countTokens(m));
        continue;
      }
      expect(m.role).toBe('assistant');
      expect(m.tool_calls?.map((c) => [c.id, c.name])).toEqual(original.tool_calls?.map((c) => [c.id, c.name]));
      expect(m.content).toBe(original.content);
      continue;
    }
    // sanitize may leave out the calls whose result is not in the view; nothing else changes.
    expect({ ...m, tool_calls: undefined }).toEqual({ ...original, tool_calls: undefined });
    for (const call of m.tool_calls ?? []) expect(original.tool_calls).toContainEqual(call);
  }
}

/**
 * The newest turn is kept (none/trim/compact/summarize): its user message is in
 * the view; an open newest turn is the view's tail, untouched.
 */
function expectNewestTurnKept(input: ContextMessage[], view: ContextMessage[]): void {
  const turn = newestTurn(input);
  const durable = view.filter((m) => !m.synthetic);
  if (turn.length === 0) {
    expect(durable).toEqual([]);
    return;
  }
  count(`newest turn ${isOpen(input) ? 'open' : 'answered'}`);
  count('newest turn huge (over 10,000 characters)', turn.some((m) => m.content.length > 10_000));
  expect(durable.find((m) => m.seq === turn[0]!.seq)).toEqual(turn[0]);
  if (isOpen(input)) expect(view.slice(-turn.length)).toEqual(turn);
  // Every message of the newest turn is sent (compaction may have replaced a payload, never a message).
  expect(durable.slice(-turn.length).map((m) => m.seq)).toEqual(turn.map((m) => m.seq));
}

/** The hard budget: within it, unless the lead and the newest turn alone exceed it; then exactly those. */
function expectWithinHardBudget(input: ContextMessage[], view: ContextMessage[], fixedTokens: number, budget: number | undefined): void {
  if (budget === undefined) return;
  const prompt = fixedTokens + total(view);
  count('hard budget set');
  if (prompt <= budget) return;
  count('over the hard budget: only the newest turn (and the summary pair) kept');
  const lead = view.filter((m) => m.synthetic);
  const durable = view.filter((m) => !m.synthetic);
  const turn = newestTurn(input);
  expect(durable.map((m) => m.seq)).toEqual(turn.map((m) => m.seq));
  expect(fixedTokens + total(lead) + total(durable)).toBeGreaterThan(budget);
  // docs/memory.md keeps the summary pair whatever the budget; count how often it alone breaks it.
  count('over the hard budget only because of the summary pair (the newest turn alone fits)', lead.length > 0 && fixedTokens + total(durable) <= budget);
}

/** The report's token figures are the prompt with the whole history and as sent. */
function expectReportAddsUp(input: StrategyInput, result: StrategyResult): void {
  expect(result.report.tokens_before).toBe(input.fixedTokens + total(input.messages));
  expect(result.report.tokens_after).toBe(input.fixedTokens + total(result.messages));
  expect(result.report.compacted_items).toBe(Object.values(result.compactedByTool).reduce((a, b) => a + b, 0));
}

function inputOf(messages: ContextMessage[], settings: MemorySettings, fixedTokens: number, state: MemoryState = EMPTY_MEMORY_STATE): StrategyInput {
  return { messages, settings, state, fixedTokens, countTokens };
}

// ── running and counting ──────────────────────────────────────────────────────

interface PropertyRecord {
  numRuns: number;
  numSkips: number;
  numShrinks: number;
  failed: boolean;
  seed: number;
  ms: number;
  counterexamplePath?: string | null;
}
const records: Record<string, PropertyRecord> = {};
/** How often the interesting cases came up (so a property that passes is known not to pass vacuously). */
const tally: Record<string, number> = {};
const count = (key: string, when = true) => {
  if (when) tally[key] = (tally[key] ?? 0) + 1;
};

/** fc.check with this file's seed and run count, recorded; a failure throws fast-check's report (seed and path included). */
async function checkProperty(name: string, property: fc.IProperty<any> | fc.IAsyncProperty<any>, numRuns = NUM_RUNS): Promise<void> {
  const started = Date.now();
  const details = await fc.check(property as fc.IAsyncProperty<any>, { numRuns, seed: SEED, endOnFailure: false });
  records[name] = {
    numRuns: details.numRuns,
    numSkips: details.numSkips,
    numShrinks: details.numShrinks,
    failed: details.failed,
    seed: details.seed,
    ms: Date.now() - started,
    ...(details.failed && { counterexamplePath: details.counterexamplePath }),
  };
  if (details.failed) {
    // The report names the counterexample; the assertion that failed on it is the error's message.
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`${fc.defaultReportMessage(details) ?? `${name} failed (seed ${details.seed})`}\n\nFailed with: ${cause}`);
  }
}

afterAll(() => {
  const dir = path.resolve(__dirname, '../../test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  const runs = Object.values(records).reduce((n, r) => n + r.numRuns, 0);
  fs.writeFileSync(
    path.join(dir, 'property-memory-strategies.json'),
    `${JSON.stringify({ seed: SEED, numRunsPerProperty: NUM_RUNS, totalRuns: runs, failures: Object.values(records).filter((r) => r.failed).length, properties: records, cases: tally }, null, 2)}\n`,
  );
});

// ── the properties ────────────────────────────────────────────────────────────

describe(`memory strategies on arbitrary conversations (fast-check, ${NUM_RUNS} runs each, seed ${SEED})`, () => {
  it('none: the whole history, sanitized; safe; the newest turn kept; inputs never rewritten', async () => {
    await checkProperty(
      'none',
      fc.property(conversationArb, fixedTokensArb, ({ messages }, fixedTokens) => {
        const before = structuredClone(messages);
        const input = inputOf(messages, settingsFor('none', {}), fixedTokens);
        const result = noneStrategy(input);
        expect(messages).toEqual(before);
        expect(result.messages).toEqual(sanitize(messages));
        expectSafe(messages, result.messages);
        expectUnaltered(messages, result.messages);
        expectNewestTurnKept(messages, result.messages);
        expectReportAddsUp(input, result);
        // A conversation that starts on a user message loses nothing.
        if (messages[0]?.role === 'user') expect(result.messages).toEqual(messages);
      }),
    );
  });

  it('window: the longest suffix within its stepped limits (the plain ones when that holds no whole turn), cut to its first user message; the newest turn kept when it fits, else nothing', async () => {
    await checkProperty(
      'window',
      fc.property(
        conversationArb,
        fixedTokensArb,
        settingsArb,
        fc.record({ maxMessages: biasedInt(1, 30, 1000), maxTokens: biasedInt(1, 20_000, 1_000_000) }),
        ({ messages }, fixedTokens, given, configured) => {
          // The suffix rule on its own (the pinned opening has its own property below).
          const settings = settingsFor('window', { ...given, pin_opening_pct: 0 });
          // As apply_memory calls it: the request's token_budget replaces the configured token limit.
          const limits = { maxMessages: configured.maxMessages, maxTokens: settings.token_budget ?? configured.maxTokens };
          const before = structuredClone(messages);
          const input = inputOf(messages, settings, fixedTokens);
          const result = windowStrategy(input, limits);
          expect(messages).toEqual(before);
          expectSafe(messages, result.messages);
          expectUnaltered(messages, result.messages);
          expectReportAddsUp(input, result);

          expect(result.messages.length).toBeLessThanOrEqual(limits.maxMessages);
          expect(total(result.messages)).toBeLessThanOrEqual(limits.maxTokens);

          // The rule as docs/memory.md states it, as an oracle: newest-first until a message would overflow.
          const suffixWithin = (l: { maxMessages: number; maxTokens: number }) => {
            let start = messages.length;
            let tokens = 0;
            while (start > 0 && messages.length - start < l.maxMessages && tokens + messages[start - 1]!.tokens <= l.maxTokens) {
              tokens += messages[--start]!.tokens;
            }
            return sanitize(messages.slice(start));
          };
          const stepped = steppedWindowLimits({ messages: messages.length, tokens: total(messages) }, limits, settings.low_water_pct);
          expect(stepped.maxMessages).toBeLessThanOrEqual(limits.maxMessages);
          expect(stepped.maxTokens).toBeLessThanOrEqual(limits.maxTokens);
          const plain = suffixWithin(limits);
          const expected = suffixWithin(stepped).length > 0 ? suffixWithin(stepped) : plain;
          expect(result.messages).toEqual(expected);
          // Never more than the plain window; with low_water_pct 1, exactly the plain window.
          expect(plain.slice(plain.length - result.messages.length)).toEqual(result.messages);
          if (settings.low_water_pct === 1) expect(result.messages).toEqual(plain);

          const turn = newestTurn(messages);
          const fits = turn.length > 0 && turn.length <= limits.maxMessages && total(turn) <= limits.maxTokens;
          if (fits) expect(result.messages.slice(-turn.length)).toEqual(sanitize(turn));
          else expect(result.messages).toEqual([]);
          count(`window: newest turn ${fits ? 'fits' : 'does not fit'}`, turn.length > 0);
          count('window: stepped below the plain window', result.messages.length < plain.length);
        },
      ),
    );
  });

  it('low water: replayed request by request, window and trim move the start of their view only in steps, each move landing at or below the low-water mark (the newest turn aside)', async () => {
    await checkProperty(
      'low water',
      fc.property(
        conversationArb,
        fc.constantFrom(0.3, 0.5, 0.6, 0.8),
        fc.constantFrom('window', 'trim') as fc.Arbitrary<'window' | 'trim'>,
        biasedInt(300, 3000, 20_000),
        fc.integer({ min: 0, max: 200 }),
        ({ messages }, lowWater, mode, budget, fixedTokens) => {
          // trim: only its hard cap acts (max_turns out of reach); the cap counts the fixed part, the window's does not.
          const cap = mode === 'window' ? budget : budget + fixedTokens;
          const settings = settingsFor(mode, { token_budget: cap, low_water_pct: lowWater, max_turns: 100_000, pin_opening_pct: 0 });
          const lowMark = Math.floor(cap * lowWater);
          const step = Math.max(1, cap - lowMark);
          const run = (history: ContextMessage[]) => {
            const input = inputOf(history, settings, fixedTokens);
            return mode === 'window' ? windowStrategy(input, { maxMessages: 1000, maxTokens: budget }) : trimStrategy(input);
          };
          // One request per user message, its history every message before it.
          const requests = messages.flatMap((m, i) => (m.role === 'user' && i > 0 ? [messages.slice(0, i)] : []));
          let previousStart: number | undefined;
          let moves = 0;
          for (const history of requests) {
            const view = run(history).messages;
            const start = view[0]?.seq;
            const newest = newestTurn(history);
            if (previousStart !== undefined && start !== undefined && start !== previousStart && view.length > newest.length) {
              moves++;
              const held = (mode === 'window' ? 0 : fixedTokens) + total(view);
              // The newest turn is what this request added; above the mark, the window may fall back to the plain rule.
              if (mode === 'trim' || total(newest) <= lowMark) expect(held - total(newest)).toBeLessThanOrEqual(lowMark);
            }
            if (start !== undefined) previousStart = start;
          }
          // At most one move per step of history added, plus the turns too large for a step.
          const largeTurns = requests.filter((h) => total(newestTurn(h)) > lowMark).length;
          expect(moves).toBeLessThanOrEqual(Math.ceil(total(messages) / step) + largeTurns + 1);
          count(`low water: ${mode} moved`, moves > 0);
        },
      ),
    );
  });

  it('trim: whole turns from the end; safe; the newest turn kept; within token_budget unless the newest turn alone exceeds it', async () => {
    await checkProperty(
      'trim',
      fc.property(conversationArb, fixedTokensArb, settingsArb, ({ messages }, fixedTokens, given) => {
        const settings = settingsFor('trim', { ...given, pin_opening_pct: 0 });
        const before = structuredClone(messages);
        const input = inputOf(messages, settings, fixedTokens);
        const result = trimStrategy(input);
        expect(messages).toEqual(before);
        expectSafe(messages, result.messages);
        expectUnaltered(messages, result.messages);
        expectNewestTurnKept(messages, result.messages);
        expectWithinHardBudget(messages, result.messages, fixedTokens, settings.token_budget);
        expectReportAddsUp(input, result);
        expect(result.messages.some((m) => m.synthetic)).toBe(false);

        // What is sent is a run of whole turns up to the end: no turn is cut in two.
        const view = result.messages;
        if (view.length > 0) {
          const from = messages.findIndex((m) => m.seq === view[0]!.seq);
          expect(view).toEqual(sanitize(messages.slice(from)));
        }
        count('trim: turns left out', result.report.trimmed_turns > 0);
        // Below max_turns and within the budget, nothing is left out.
        const userTurns = messages.filter((m) => m.role === 'user').length;
        if (userTurns < settings.max_turns && (settings.token_budget === undefined || fixedTokens + total(messages) <= settings.token_budget)) {
          expect(view).toEqual(sanitize(messages));
        }
      }),
    );
  });

  it('compact: every call keeps its result (placeholders only), the kept turns untouched; safe; within token_budget unless the newest turn alone exceeds it', async () => {
    await checkProperty(
      'compact',
      fc.property(conversationArb, fixedTokensArb, settingsArb, ({ messages }, fixedTokens, given) => {
        const settings = settingsFor('compact', { ...given, pin_opening_pct: 0 });
        const before = structuredClone(messages);
        const input = inputOf(messages, settings, fixedTokens);
        const result = compactStrategy(input);
        expect(messages).toEqual(before);
        expectSafe(messages, result.messages);
        expectUnaltered(messages, result.messages, true);
        expectNewestTurnKept(messages, result.messages);
        expectWithinHardBudget(messages, result.messages, fixedTokens, settings.token_budget);
        expectReportAddsUp(input, result);

        // compacted_items counts the placeholders sent, by tool.
        const placeholders = result.messages.filter((m) => m.role === 'tool' && m.compacted);
        expect(result.report.compacted_items).toBe(placeholders.length);
        count('compact: placeholders sent', placeholders.length > 0);
        // Placeholders only for tools the settings select, never in the last compact_keep turns.
        for (const m of placeholders) {
          const name = m.name ?? 'unknown';
          if (settings.compact_include_tools.length > 0) expect(settings.compact_include_tools).toContain(name);
          else expect(settings.compact_exclude_tools).not.toContain(name);
        }
        const turnStarts = messages.flatMap((m, i) => (m.role === 'user' || i === 0 ? [i] : []));
        const protectedFrom = settings.compact_keep === 0 ? messages.length : turnStarts[Math.max(0, turnStarts.length - settings.compact_keep)]!;
        const protectedSeqs = new Set(messages.slice(protectedFrom).map((m) => m.seq));
        for (const m of result.messages) if (protectedSeqs.has(m.seq)) expect(m.compacted).toBeUndefined();
        if (result.report.triggered_by === null) expect(result.messages).toEqual(sanitize(messages));
      }),
    );
  });

  it('pinned opening (window, trim, compact): the conversation\'s first turns with placeholders for tool results, then a run of turns to the end; safe; within the limits; a later request\'s opening extending the earlier one', async () => {
    await checkProperty(
      'pinned opening',
      fc.property(
        conversationArb,
        fixedTokensArb,
        settingsArb,
        fc.double({ min: 0.05, max: 0.5, noNaN: true }),
        fc.constantFrom('window', 'trim', 'compact') as fc.Arbitrary<'window' | 'trim' | 'compact'>,
        biasedInt(100, 3000, 100_000),
        ({ full }, fixedTokens, given, pin, mode, windowTokens) => {
          // A hard budget to pin within (never below a given soft budget: the schema refuses that pair).
          const budget = given.token_budget ?? Math.min(10_000_000, Math.max(windowTokens, given.token_soft_budget ?? 0));
          const settings = settingsFor(mode, { ...given, pin_opening_pct: pin, token_budget: budget });
          const limits = { maxMessages: 1000, maxTokens: settings.token_budget! };
          const run = (history: ContextMessage[]) => {
            const input = inputOf(history, settings, fixedTokens);
            if (mode === 'window') return windowStrategy(input, limits);
            return mode === 'trim' ? trimStrategy(input) : compactStrategy(input);
          };
          const protectedTurns = mode === 'compact' ? Math.max(settings.compact_keep, 1) : 1;
          // One request per user message, its history every message before it.
          const requests = full.flatMap((m, i) => (m.role === 'user' && i > 0 ? [full.slice(0, i)] : [])).concat([full]);
          let pinnedBefore: ContextMessage[] | null = null;
          for (const history of requests) {
            const view = run(history).messages;
            expectSafe(history, view);
            expectUnaltered(history, view, true);
            if (mode === 'window') {
              expect(total(view)).toBeLessThanOrEqual(limits.maxTokens);
            } else {
              expectNewestTurnKept(history, view);
              expectWithinHardBudget(history, view, fixedTokens, settings.token_budget);
            }
            // The view is a run of the history up to its end, or the opening and then such a run.
            const all = sanitize(history).map((m) => m.seq);
            const isRunToEnd = (part: ContextMessage[]) =>
              part.every((m, i) => m.seq === all[all.length - part.length + i]) && (mode === 'compact' || part.every((m) => !m.compacted));
            const cap = openingCap(settings.token_budget!, settings);
            const opening = pinnedOpening(history, cap, countTokens, protectedTurns);
            // window and trim pin exactly pinnedOpening(history); compact pins its compacted turns (the calls'
            // arguments may be cleared too), so there the head is the view's leading run from the first message.
            const leadingRun = view.findIndex((m, i) => m.seq !== all[i]);
            const headLength = mode === 'compact' ? (leadingRun < 0 ? view.length : leadingRun) : opening.messages.length;
            const head = view.slice(0, headLength);
            const pinned =
              !isRunToEnd(view) &&
              headLength > 0 &&
              (mode === 'compact' || JSON.stringify(head) === JSON.stringify(opening.messages)) &&
              isRunToEnd(view.slice(headLength));
            expect(isRunToEnd(view) || pinned).toBe(true);
            if (pinned) {
              // The conversation's first whole turns, within the opening's share, every tool result a placeholder.
              expect(head.map((m) => m.seq)).toEqual(all.slice(0, headLength));
              expect(history.find((m) => m.seq! > head.at(-1)!.seq!)?.role).toBe('user');
              expect(total(head)).toBeLessThanOrEqual(cap);
              for (const m of head) if (m.role === 'tool') expect(m.compacted).toBe(true);
              // A later request's opening extends the earlier one (it may take turns the newest was): the prompt
              // prefix through the earlier opening stays the same.
              if (pinnedBefore) expect(head.slice(0, pinnedBefore.length)).toEqual(pinnedBefore);
              pinnedBefore = head;
            }
            count(`pinned opening: ${mode} pinned`, pinned);
          }
        },
      ),
    );
  });

  it('summarize (summarizer answers, fails, or returns a huge or empty summary): the summary pair first, no error text, safe, the newest turn kept, within token_budget unless the pair and the newest turn alone exceed it', async () => {
    await checkProperty(
      'summarize',
      fc.asyncProperty(
        conversationArb,
        fixedTokensArb,
        settingsArb,
        stateArb,
        summarizerArb,
        async ({ messages }, fixedTokens, given, state, behaviour) => {
          const settings = settingsFor('summarize', given);
          const before = structuredClone(messages);
          const summarize = fakeSummarizer(behaviour);
          const input = inputOf(messages, settings, fixedTokens, state);
          const result = await summarizeStrategy(input, summarize);
          expect(messages).toEqual(before);
          expectSafe(messages, result.messages);
          expectUnaltered(messages, result.messages);
          expectNewestTurnKept(messages, result.messages);
          expectWithinHardBudget(messages, result.messages, fixedTokens, settings.token_budget);
          expectReportAddsUp(input, result);

          // The summarizer is asked at most once, with the previous summary and its budget, never with the tail.
          expect(summarize.calls.length).toBeLessThanOrEqual(1);
          const call = summarize.calls[0];
          if (call) {
            expect(call.previousSummary).toBe(state.summary);
            expect(call.tokenBudget).toBe(settings.summary_token_budget);
            const sentSeqs = new Set(result.messages.filter((m) => !m.synthetic).map((m) => m.seq));
            for (const m of call.messages) expect(sentSeqs.has(m.seq)).toBe(false);
          }

          // No error text reaches the model; a failure keeps the old summary (or none) and stores nothing.
          const viewText = result.messages.map((m) => `${m.content}${JSON.stringify(m.tool_calls ?? null)}`).join('\n');
          if (!messages.some((m) => m.content.includes('SUMMARIZER-FAILED'))) expect(viewText).not.toContain('SUMMARIZER-FAILED');
          const failed = call !== undefined && (behaviour.kind === 'rejects' || behaviour.kind === 'throws' || behaviour.kind === 'empty');
          count(`summarize: summarizer ${behaviour.kind}`, call !== undefined);
          count('summarize: summary made', result.newState !== null);
          if (failed) {
            expect(result.summarizerError).toBeTruthy();
            expect(result.newState).toBeNull();
            expect(result.report.summarized).toBe(false);
          }
          if (result.newState) {
            expect(result.newState.summary).toBe((behaviour as { summary: string }).summary.trim());
            expect(result.report.summarized).toBe(true);
            // Made once: what the summary covers is never sent again, and nothing after it is skipped.
            const through = result.newState.summarizedThroughSeq!;
            expect(call!.messages.at(-1)?.seq).toBeLessThanOrEqual(through);
            for (const m of result.messages.filter((v) => !v.synthetic)) expect(m.seq!).toBeGreaterThan(through);
          }
          const summary = result.newState?.summary ?? state.summary;
          const synthetic = result.messages.filter((m) => m.synthetic);
          expect(synthetic).toEqual(summary ? summaryPair(summary, countTokens) : []);
        },
      ),
    );
  });

  it('every strategy keeps the safety rules on damaged histories (lost results, stray results, lost calls, duplicated messages)', async () => {
    const damagedArb = fc
      .record({
        conversation: conversationArb,
        damage: fc.array(fc.record({ kind: fc.constantFrom('drop', 'duplicate', 'move'), at: fc.nat(), to: fc.nat() }), { minLength: 1, maxLength: 4 }),
      })
      .map(({ conversation, damage }) => {
        const messages = [...conversation.messages];
        for (const d of damage) {
          if (messages.length === 0) break;
          const i = d.at % messages.length;
          if (d.kind === 'drop') messages.splice(i, 1);
          else if (d.kind === 'duplicate') messages.splice(i, 0, { ...messages[i]! });
          else {
            const [m] = messages.splice(i, 1);
            messages.splice(d.to % (messages.length + 1), 0, m!);
          }
        }
        // Stored order is seq order; give the damaged list fresh seqs so the ordering check still means something.
        return messages.map((m, i) => ({ ...m, seq: i + 1 }));
      });
    await checkProperty(
      'damaged histories (all strategies)',
      fc.asyncProperty(damagedArb, fixedTokensArb, settingsArb, summarizerArb, async (messages, fixedTokens, given, behaviour) => {
        const views = [
          noneStrategy(inputOf(messages, settingsFor('none', given), fixedTokens)).messages,
          windowStrategy(inputOf(messages, settingsFor('window', given), fixedTokens), { maxMessages: 1000, maxTokens: 10_000_000 }).messages,
          trimStrategy(inputOf(messages, settingsFor('trim', given), fixedTokens)).messages,
          compactStrategy(inputOf(messages, settingsFor('compact', given), fixedTokens)).messages,
          (await summarizeStrategy(inputOf(messages, settingsFor('summarize', given), fixedTokens), fakeSummarizer(behaviour))).messages,
        ];
        count('damaged: a message left out by sanitize', views[0]!.length < messages.length);
        for (const view of views) {
          if (view.length > 0) expect(view[0]!.role).toBe('user');
          expectToolPairsIntact(view);
        }
      }),
    );
  });
});
