/**
 * Memory evaluation (not a test): replays the evaluation conversations through every
 * memory strategy at a fixed budget and measures what each one sends the model and
 * which probed facts it still carries. Prints markdown tables and records them in
 * BENCHMARKS.md, replacing only the section between EVAL_START and EVAL_END.
 *
 *   npm run eval:memory [-- conversations.jsonl]   (default: ../shared/eval/conversations.jsonl)
 *
 * The replay is what the service sees: a request at every user message, whose history
 * is every earlier message (tool results capped at TOOL_OUTPUT_MAX_CHARS, as
 * apply_memory does), and for `summarize` the rolling summary and summarizedThroughSeq
 * carried from request to request as the session stores them. A probe is one more
 * request after message `after_seq`, asking the probe's question; it is a what-if, so
 * whatever summary it makes is not carried on.
 *
 * Progress goes to stderr; tables go to stdout and the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { capToolOutput, type ContextMessage, type CountMessageTokens } from '../src/memory/context';
import { MEMORY_DEFAULTS, withDefaults, type MemoryStrategyInput } from '../src/memory/settings';
import {
  EMPTY_MEMORY_STATE,
  compactStrategy,
  noneStrategy,
  summarizeStrategy,
  trimStrategy,
  type MemoryState,
  type StrategyInput,
} from '../src/memory/strategies';
import { ExtractiveSummarizer } from '../src/memory/summarizer';
import { TokenCounter } from '../src/memory/tokens';
import type { MessageRole, ToolCall } from '../src/store/types';
import { writeMarkedSection } from './lib/benchmarks-file';
import {
  COUNTED_TURNS,
  CACHE_TURNS,
  makeCacheConversations,
  replayForCache,
  serviceWindow,
  type CacheRun,
  type PromptOrder,
} from './lib/prompt-cache-replay';

// ---------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------

const BENCHMARKS_FILE = path.resolve(__dirname, '../BENCHMARKS.md');
const EVAL_START = '<!-- eval-memory:start -->';
const EVAL_END = '<!-- eval-memory:end -->';

const CONVERSATIONS_ARG = process.argv[2];
const SHARED_EVAL_FILE = path.join(__dirname, '../../shared/eval/conversations.jsonl');
// The team's set beside the repository; the copy in tests/fixtures when it is not there (a clean clone).
const CONVERSATIONS_FILE = path.resolve(
  CONVERSATIONS_ARG ?? (fs.existsSync(SHARED_EVAL_FILE) ? SHARED_EVAL_FILE : path.join(__dirname, '../tests/fixtures/eval-conversations.jsonl')),
);
const COMMAND = `npm run eval:memory${CONVERSATIONS_ARG ? ` -- ${CONVERSATIONS_ARG}` : ''}`;

const CHAT_MODEL = 'gpt-4o-mini';
/** Strategies whose targets are checked; their lost facts are listed one by one. */
const TARGETED_MODES = new Set(['compact', 'summarize']);

/** The service's default cap on a tool result entering the model's context. */
const TOOL_OUTPUT_MAX_CHARS = 4000;
/** The fixed budget every bounded strategy works to: the whole prompt (question + history). */
const TOKEN_BUDGET = 1500;
/** The `window` mode's limits: the SQL history window, then the same rule on the capped messages. */
const WINDOW_LIMITS = { maxMessages: 1000, maxTokens: TOKEN_BUDGET };

/** Each strategy as a request would give it (`memory_strategy`), defaults filled by withDefaults. */
const STRATEGIES: Record<string, MemoryStrategyInput> = {
  none: { mode: 'none' },
  window: { mode: 'window' },
  trim: { mode: 'trim', max_turns: 6, keep_last_n_turns: 4, token_budget: TOKEN_BUDGET },
  compact: { mode: 'compact', compact_keep: 2, token_budget: TOKEN_BUDGET },
  'compact (soft trigger)': { mode: 'compact', compact_keep: 2, token_soft_budget: TOKEN_BUDGET },
  // Sensitivity only (not the issue's compact_keep 2): what the protected turns' whole tool results cost.
  'compact (soft trigger, keep 1, sensitivity)': { mode: 'compact', compact_keep: 1, token_soft_budget: TOKEN_BUDGET },
  summarize: { mode: 'summarize', token_budget: TOKEN_BUDGET, keep_last_n_turns: 2, summary_token_budget: 600 },
  // The strategies that shed history as they did before issue 13 (cut to just under the budget, no pinned
  // opening), and with the steps down to the default low-water mark but no pinned opening: the baseline and
  // what the steps alone cost in facts at the same budget.
  'window (before: low_water_pct 1, pin_opening_pct 0)': { mode: 'window', low_water_pct: 1, pin_opening_pct: 0 },
  'trim (before: low_water_pct 1, pin_opening_pct 0)': { mode: 'trim', max_turns: 6, keep_last_n_turns: 4, token_budget: TOKEN_BUDGET, low_water_pct: 1, pin_opening_pct: 0 },
  'compact (before: low_water_pct 1, pin_opening_pct 0)': { mode: 'compact', compact_keep: 2, token_budget: TOKEN_BUDGET, low_water_pct: 1, pin_opening_pct: 0 },
  'window (pin_opening_pct 0)': { mode: 'window', pin_opening_pct: 0 },
  'trim (pin_opening_pct 0)': { mode: 'trim', max_turns: 6, keep_last_n_turns: 4, token_budget: TOKEN_BUDGET, pin_opening_pct: 0 },
  'compact (pin_opening_pct 0)': { mode: 'compact', compact_keep: 2, token_budget: TOKEN_BUDGET, pin_opening_pct: 0 },
};

// ── the prompt-cache replay ──
/** Generated 30-turn conversations over the help center, the topic (and so the passages) changing every turn. */
const CACHE_CONVERSATIONS = 6;
const KNOWLEDGE_DIR = path.join(__dirname, '../knowledge/help-center');
/** The whole prompt's budget for the bounded strategies in the cache replay (system prompt and passages included). */
const CACHE_TOKEN_BUDGET = 4000;
/** The service's defaults: CONVERSATION_HISTORY_MAX_MESSAGES, CONVERSATION_HISTORY_MAX_TOKENS. */
const SERVICE_WINDOW_LIMITS = { maxMessages: 100, maxTokens: 4000 };
/** The discount a provider gives cached input (EVAL_CACHE_DISCOUNT, default 50%: OpenAI's older models); 90% is shown beside it. */
const CACHE_DISCOUNT = Number(process.env.EVAL_CACHE_DISCOUNT ?? 0.5);
const CACHE_STRATEGIES: Record<string, MemoryStrategyInput> = {
  'window (default)': { mode: 'window' },
  // The message cap the service had before this change (CONVERSATION_HISTORY_MAX_MESSAGES 20), for comparison.
  'window, 20 messages': { mode: 'window' },
  trim: { mode: 'trim', token_budget: CACHE_TOKEN_BUDGET },
  compact: { mode: 'compact', compact_keep: 2, token_budget: CACHE_TOKEN_BUDGET },
  summarize: { mode: 'summarize', token_budget: CACHE_TOKEN_BUDGET, keep_last_n_turns: 2, summary_token_budget: 600 },
  none: { mode: 'none' },
};
const CACHE_TARGETS: Record<string, number> = { 'window (default)': 0.7, compact: 0.7, summarize: 0.6 };

const TARGETS = {
  compactReduction: 0.8,
  compactRetained: 1,
  summarizeRetained: 0.9,
};

// ---------------------------------------------------------------------------
// The evaluation set
// ---------------------------------------------------------------------------

export interface EvalFact {
  id: string;
  text: string;
  kind: string;
  seq: number;
}

export interface EvalProbe {
  after_seq: number;
  question: string;
  needs: string[];
}

interface RawMessage {
  role: MessageRole;
  content?: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

interface RawConversation {
  id: string;
  tool_heavy: boolean;
  messages: RawMessage[];
  facts: EvalFact[];
  probes: EvalProbe[];
}

/** A conversation with its messages as the store holds them and as the model may see them. */
interface Conversation {
  id: string;
  toolHeavy: boolean;
  /** Durable messages, seq = index in the file, tokens = the stored count (whole tool results). */
  stored: ContextMessage[];
  /** The same messages with tool results capped at TOOL_OUTPUT_MAX_CHARS (what strategies get). */
  capped: ContextMessage[];
  facts: EvalFact[];
  probes: EvalProbe[];
}

function readConversations(file: string, countTokens: CountMessageTokens): Conversation[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RawConversation)
    .map((raw) => {
      const stored = raw.messages.map((m, seq) => toContextMessage(m, seq, countTokens));
      return {
        id: raw.id,
        toolHeavy: raw.tool_heavy,
        stored,
        capped: stored.map((m) => capToolOutput(m, TOOL_OUTPUT_MAX_CHARS, countTokens)),
        facts: raw.facts,
        probes: raw.probes,
      };
    });
}

function toContextMessage(raw: RawMessage, seq: number, countTokens: CountMessageTokens): ContextMessage {
  const message: ContextMessage = {
    role: raw.role,
    content: raw.content ?? '',
    tool_calls: raw.tool_calls?.length ? raw.tool_calls : null,
    tool_call_id: raw.tool_call_id ?? null,
    name: raw.name ?? null,
    tokens: 0,
    seq,
  };
  return { ...message, tokens: countTokens(message) };
}

// ---------------------------------------------------------------------------
// Scoring (pure)
// ---------------------------------------------------------------------------

/** Everything of a message the model reads: its text and any tool call's name and arguments. */
function messageText(message: ContextMessage): string {
  const calls = message.tool_calls?.length ? `\n${JSON.stringify(message.tool_calls)}` : '';
  return `${message.content}${calls}`;
}

/** A fact is retained when its exact text appears anywhere in the model's view (summary pair included). */
export function isRetained(fact: Pick<EvalFact, 'text'>, view: ContextMessage[]): boolean {
  return view.some((m) => messageText(m).includes(fact.text));
}

/** The parts of a view whose tokens the breakdown table shows. */
export const VIEW_PARTS = ['user + assistant text', 'tool calls', 'whole tool results', 'placeholders', 'summary pair'] as const;
export type ViewPart = (typeof VIEW_PARTS)[number];

export function viewPart(message: ContextMessage): ViewPart {
  if (message.synthetic) return 'summary pair';
  if (message.role === 'tool') return message.compacted ? 'placeholders' : 'whole tool results';
  if (message.tool_calls?.length) return 'tool calls';
  return 'user + assistant text';
}

/** Tokens of a view by part. */
export function tokenBreakdown(view: ContextMessage[]): Record<ViewPart, number> {
  const parts = Object.fromEntries(VIEW_PARTS.map((part) => [part, 0])) as Record<ViewPart, number>;
  for (const message of view) parts[viewPart(message)] += message.tokens;
  return parts;
}

export interface ProbeRecord {
  conversationId: string;
  toolHeavy: boolean;
  probeIndex: number;
  tokensSent: number;
  /** The view carried the summary pair. */
  withSummary: boolean;
  breakdown: Record<ViewPart, number>;
  needed: number;
  retained: number;
  lost: LostFact[];
}

/** What became of a history message that carried a lost fact. */
export type Fate = 'not sent' | 'compacted' | 'cut by the tool-output cap' | 'summarized';

export interface LostFact {
  fact: EvalFact;
  /** Each history message that carried the fact ("2u": seq 2, a user message) and its fate. */
  places: Array<{ label: string; fate: Fate }>;
  /** Whole turns the view left out. */
  droppedTurns: number;
  /** For summarize: whether and until when the rolling summary held the fact. */
  summaryNote: string | null;
}

export interface StrategyStats {
  probes: number;
  meanTokens: number;
  maxTokens: number;
  factsNeeded: number;
  factsRetained: number;
}

/** Means, maxima and retained shares over a set of probe records (empty set: zeros). */
export function aggregate(records: ProbeRecord[]): StrategyStats {
  const tokens = records.map((r) => r.tokensSent);
  return {
    probes: records.length,
    meanTokens: tokens.length > 0 ? tokens.reduce((a, b) => a + b, 0) / tokens.length : 0,
    maxTokens: tokens.length > 0 ? Math.max(...tokens) : 0,
    factsNeeded: records.reduce((sum, r) => sum + r.needed, 0),
    factsRetained: records.reduce((sum, r) => sum + r.retained, 0),
  };
}

export const retainedShare = (s: StrategyStats) => (s.factsNeeded > 0 ? s.factsRetained / s.factsNeeded : 1);

// ---------------------------------------------------------------------------
// Running a strategy as the service does
// ---------------------------------------------------------------------------

interface ProbeResponse {
  /** The model's view of the history. */
  view: ContextMessage[];
  /** fixedTokens (the question) + the view. */
  tokensSent: number;
  /** The state the session stores after this request (summarize), or null when unchanged. */
  newState: MemoryState | null;
  /** Whole turns the strategy left out (max_turns, a summary, or the token_budget hard cap). */
  droppedTurns: number;
}

interface StrategyRunner {
  name: string;
  settings: ReturnType<typeof withDefaults>;
  respond(conversation: Conversation, historyEnd: number, question: string, state: MemoryState): Promise<ProbeResponse>;
}

function makeRunner(name: string, strategy: MemoryStrategyInput, counter: TokenCounter): StrategyRunner {
  const countTokens: CountMessageTokens = (m) => counter.countMessage(m);
  const summarizer = new ExtractiveSummarizer(counter);
  const settings = withDefaults(strategy);

  const input = (messages: ContextMessage[], question: string, state: MemoryState): StrategyInput => ({
    messages,
    state,
    settings,
    // No system prompt or retrieved knowledge: only the question, counted as a user message.
    fixedTokens: countTokens({ content: question }),
    countTokens,
  });

  return {
    name,
    settings,
    async respond(conversation, historyEnd, question, state) {
      const history = conversation.capped.slice(0, historyEnd);
      let result;
      let newState: MemoryState | null = null;
      switch (settings.mode) {
        case 'none':
          result = noneStrategy(input(history, question, state));
          break;
        case 'window':
          // As the service loads it: the SQL window with limits stepped from the session's totals.
          result = serviceWindow(conversation.stored.slice(0, historyEnd), history, WINDOW_LIMITS, input(history, question, state));
          break;
        case 'trim':
          result = trimStrategy(input(history, question, state));
          break;
        case 'compact':
          result = compactStrategy(input(history, question, state));
          break;
        case 'summarize': {
          // The service loads only the messages after the stored summary.
          const after = history.filter((m) => state.summarizedThroughSeq === null || m.seq! > state.summarizedThroughSeq);
          const summarized = await summarizeStrategy(input(after, question, state), (request) => summarizer.summarize(request));
          if (summarized.summarizerError) throw summarized.summarizerError;
          newState = summarized.newState;
          result = summarized;
          break;
        }
      }
      return {
        view: result.messages,
        tokensSent: result.report.tokens_after,
        newState,
        droppedTurns: result.report.trimmed_turns,
      };
    },
  };
}

// ---------------------------------------------------------------------------
// The replay
// ---------------------------------------------------------------------------

/** Summaries the session held, by the history length of the request that made them (for diagnosis). */
type SummaryTrail = Array<{ historyEnd: number; state: MemoryState }>;

interface Replay {
  records: ProbeRecord[];
  /** Rolling summaries made (and stored) during the replay. */
  summariesMade: number;
}

async function replayConversation(conversation: Conversation, runner: StrategyRunner): Promise<Replay> {
  let state: MemoryState = EMPTY_MEMORY_STATE;
  const trail: SummaryTrail = [];
  const records: ProbeRecord[] = [];
  const total = conversation.stored.length;

  for (let historyEnd = 1; historyEnd <= total; historyEnd++) {
    // Probes first: they ask their question with the same stored state as the real next message.
    for (const [probeIndex, probe] of conversation.probes.entries()) {
      if (probe.after_seq + 1 !== historyEnd) continue;
      const response = await runner.respond(conversation, historyEnd, probe.question, state);
      records.push(scoreProbe(conversation, probeIndex, response, state, trail));
    }
    const next = conversation.stored[historyEnd];
    if (next?.role === 'user') {
      const response = await runner.respond(conversation, historyEnd, next.content, state);
      if (response.newState) {
        state = response.newState;
        trail.push({ historyEnd, state });
      }
    }
  }
  return { records, summariesMade: trail.length };
}

function scoreProbe(
  conversation: Conversation,
  probeIndex: number,
  response: ProbeResponse,
  stateBefore: MemoryState,
  trail: SummaryTrail,
): ProbeRecord {
  const probe = conversation.probes[probeIndex]!;
  const needs = probe.needs.map((id) => {
    const fact = conversation.facts.find((f) => f.id === id);
    if (!fact) throw new Error(`${conversation.id}: probe ${probeIndex} needs unknown fact "${id}"`);
    return fact;
  });
  const lost = needs
    .filter((fact) => !isRetained(fact, response.view))
    .map((fact) => traceLoss(fact, conversation, probe.after_seq, response, stateBefore, trail));
  return {
    conversationId: conversation.id,
    toolHeavy: conversation.toolHeavy,
    probeIndex,
    tokensSent: response.tokensSent,
    withSummary: response.view.some((m) => m.synthetic),
    breakdown: tokenBreakdown(response.view),
    needed: needs.length,
    retained: needs.length - lost.length,
    lost,
  };
}

/**
 * Each message of the history that carried the fact, and its fate in the view:
 * compacted (placeholder), cut by the tool-output cap, folded into the summary,
 * or not sent; for summarize, also when the rolling summary last held the fact.
 */
function traceLoss(
  fact: EvalFact,
  conversation: Conversation,
  afterSeq: number,
  response: ProbeResponse,
  stateBefore: MemoryState,
  trail: SummaryTrail,
): LostFact {
  const summarizedThrough = (response.newState ?? stateBefore).summarizedThroughSeq;
  const inView = new Map(response.view.filter((m) => m.seq !== undefined).map((m) => [m.seq!, m]));
  const fateOf = (seq: number): Fate => {
    const shown = inView.get(seq);
    if (shown?.compacted) return 'compacted';
    if (shown) return 'cut by the tool-output cap';
    if (summarizedThrough !== null && seq <= summarizedThrough) return 'summarized';
    return 'not sent';
  };
  const places = conversation.stored
    .slice(0, afterSeq + 1)
    .filter((m) => messageText(m).includes(fact.text))
    .map((m) => ({ label: `${m.seq}${m.role[0]}`, fate: fateOf(m.seq!) }));

  let summaryNote: string | null = null;
  if (summarizedThrough !== null) {
    const lastHolding = [...trail].reverse().find((t) => t.state.summary?.includes(fact.text));
    summaryNote = lastHolding
      ? `last in the summary made at history length ${lastHolding.historyEnd}, then dropped from it`
      : 'never in the rolling summary';
  }
  return { fact, places, droppedTurns: response.droppedTurns, summaryNote };
}

function describeLoss(lost: LostFact): string {
  const notes = [lost.places.map((p) => `${p.label} ${p.fate}`).join(', ') || 'nowhere in the history'];
  if (lost.droppedTurns > 0) notes.push(`the view left out the ${lost.droppedTurns} oldest turns`);
  if (lost.summaryNote) notes.push(lost.summaryNote);
  return notes.join('; ');
}

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

function progress(message: string): void {
  process.stderr.write(`[eval:memory] ${message}\n`);
}

/** A markdown table; `textColumns` (by index) are left-aligned, the others right-aligned. */
function markdownTable(header: string[], rows: (string | number)[][], textColumns: number[] = [0]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const align = header.map((_, i) => (textColumns.includes(i) ? '---' : '---:'));
  return [line(header), line(align), ...rows.map(line)].join('\n');
}

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtPct = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;
const fmtShare = (s: StrategyStats) => `${fmtPct(retainedShare(s))} (${s.factsRetained}/${s.factsNeeded})`;

/** The settings a strategy states: what was given, plus the defaults that matter for its mode. */
function describeSettings(runner: StrategyRunner): string {
  const s = runner.settings;
  const described = describeStrategySettings(runner);
  return s.mode === 'none' || s.mode === 'summarize'
    ? described
    : `${described}, low_water_pct ${s.low_water_pct}, pin_opening_pct ${s.pin_opening_pct}`;
}

function describeStrategySettings(runner: StrategyRunner): string {
  const s = runner.settings;
  switch (s.mode) {
    case 'none':
      return 'everything';
    case 'window':
      return `maxTokens ${WINDOW_LIMITS.maxTokens}, maxMessages ${WINDOW_LIMITS.maxMessages}`;
    case 'trim':
      return `max_turns ${s.max_turns}, keep_last_n_turns ${s.keep_last_n_turns}, token_budget ${s.token_budget} (hard cap)`;
    case 'compact':
      return s.token_budget !== undefined
        ? `compact_keep ${s.compact_keep}, token_budget ${s.token_budget} (trigger and hard cap)`
        : `compact_keep ${s.compact_keep}, token_soft_budget ${s.token_soft_budget} (trigger only, no hard cap)`;
    case 'summarize':
      return (
        `token_budget ${s.token_budget} (trigger and hard cap), keep_last_n_turns ${s.keep_last_n_turns}, ` +
        `summary_token_budget ${s.summary_token_budget}, offline ExtractiveSummarizer`
      );
  }
}

interface StrategyOutcome {
  runner: StrategyRunner;
  records: ProbeRecord[];
  all: StrategyStats;
  toolHeavy: StrategyStats;
  other: StrategyStats;
}

function summarizeRecords(runner: StrategyRunner, records: ProbeRecord[]): StrategyOutcome {
  return {
    runner,
    records,
    all: aggregate(records),
    toolHeavy: aggregate(records.filter((r) => r.toolHeavy)),
    other: aggregate(records.filter((r) => !r.toolHeavy)),
  };
}

function resultsTable(results: StrategyOutcome[]): string {
  const none = results.find((r) => r.runner.settings.mode === 'none')!;
  const reduction = (r: StrategyOutcome) => 1 - r.toolHeavy.meanTokens / none.toolHeavy.meanTokens;
  return markdownTable(
    [
      'Strategy',
      'Settings',
      'Tokens/probe mean',
      'max',
      'Tool-heavy mean',
      'Tool-heavy max',
      'Tool-heavy reduction vs none',
      'Facts retained',
      'Tool-heavy',
      'Not tool-heavy',
    ],
    results.map((r) => [
      `\`${r.runner.name}\``,
      describeSettings(r.runner),
      fmtInt(r.all.meanTokens),
      fmtInt(r.all.maxTokens),
      fmtInt(r.toolHeavy.meanTokens),
      fmtInt(r.toolHeavy.maxTokens),
      r === none ? '–' : fmtPct(reduction(r)),
      fmtShare(r.all),
      fmtShare(r.toolHeavy),
      fmtShare(r.other),
    ]),
    [0, 1],
  );
}

/** Mean tokens per tool-heavy probe by part of the view: what each strategy spends its prompt on. */
function breakdownTable(results: StrategyOutcome[]): string {
  const rows = results.map((r) => {
    const probes = r.records.filter((record) => record.toolHeavy);
    const mean = (part: ViewPart) => probes.reduce((sum, record) => sum + record.breakdown[part], 0) / Math.max(1, probes.length);
    return [`\`${r.runner.name}\``, ...VIEW_PARTS.map((part) => fmtInt(mean(part)))];
  });
  return markdownTable(['Strategy', ...VIEW_PARTS], rows);
}

function lostFactsTable(results: StrategyOutcome[]): string {
  const rows = results.filter((r) => TARGETED_MODES.has(r.runner.settings.mode)).flatMap((r) =>
    r.records.flatMap((record) =>
      record.lost.map((lost) => [
        `\`${r.runner.name}\``,
        record.conversationId,
        record.probeIndex,
        `${lost.fact.id} "${lost.fact.text}" (${lost.fact.kind}, seq ${lost.fact.seq})`,
        describeLoss(lost),
      ]),
    ),
  );
  if (rows.length === 0) return 'No probed fact was lost by a strategy with a target.';
  const header = ['Strategy', 'Conversation', 'Probe', 'Fact lost', 'Where it was (seq + role) and what became of it'];
  return markdownTable(header, rows, [0, 1, 3, 4]);
}

/** For the strategies without a target: how many of each fact they lost. */
function lostFactCounts(results: StrategyOutcome[]): string[] {
  return results
    .filter((r) => !TARGETED_MODES.has(r.runner.settings.mode) && r.all.factsRetained < r.all.factsNeeded)
    .map((r) => {
      const byFact = new Map<string, number>();
      for (const lost of r.records.flatMap((record) => record.lost)) byFact.set(lost.fact.id, (byFact.get(lost.fact.id) ?? 0) + 1);
      const counts = [...byFact].map(([id, n]) => `${id} ×${n}`).join(', ');
      const fates = new Set(r.records.flatMap((record) => record.lost.flatMap((lost) => lost.places.map((p) => p.fate))));
      return (
        `- \`${r.runner.name}\` (no target) lost ${r.all.factsNeeded - r.all.factsRetained} of ${r.all.factsNeeded}: ${counts}; ` +
        `fates of the messages that carried them: ${[...fates].join(', ')}.`
      );
    });
}

/** How much the summary did in the summarize replay. */
function summaryLine(result: StrategyOutcome, summariesMade: number): string {
  const withSummary = result.records.filter((r) => r.withSummary).length;
  return (
    `\`${result.runner.name}\` made and stored ${summariesMade} rolling summaries over the replay; ` +
    `${withSummary} of ${result.records.length} probe views carried the summary pair.`
  );
}

function targetLines(results: StrategyOutcome[]): string[] {
  const byName = (name: string) => results.find((r) => r.runner.name === name)!;
  const none = byName('none');
  const verdict = (ok: boolean) => (ok ? '**PASS**' : '**MISS**');
  const lines: string[] = [];
  for (const compact of results.filter((r) => r.runner.settings.mode === 'compact')) {
    const reduction = 1 - compact.toolHeavy.meanTokens / none.toolHeavy.meanTokens;
    lines.push(
      `- ${verdict(reduction >= TARGETS.compactReduction)} \`${compact.runner.name}\` sends ≥ ${fmtPct(TARGETS.compactReduction)} fewer tokens ` +
        `than \`none\` on tool-heavy conversations: ${fmtPct(reduction)} (mean ${fmtInt(compact.toolHeavy.meanTokens)} vs ${fmtInt(none.toolHeavy.meanTokens)} tokens per probe).`,
      `- ${verdict(retainedShare(compact.all) >= TARGETS.compactRetained)} \`${compact.runner.name}\` keeps 100% of the probed facts: ` +
        `${fmtShare(compact.all)} overall, ${fmtShare(compact.toolHeavy)} on tool-heavy conversations.`,
    );
  }
  const summarize = byName('summarize');
  const withinBudget = summarize.all.maxTokens <= TOKEN_BUDGET;
  lines.push(
    `- ${verdict(retainedShare(summarize.all) >= TARGETS.summarizeRetained && withinBudget)} \`summarize\` (offline, extractive) keeps ≥ ` +
      `${fmtPct(TARGETS.summarizeRetained)} of the probed facts within a ${fmtInt(TOKEN_BUDGET)}-token budget: ${fmtShare(summarize.all)}, ` +
      `largest prompt ${fmtInt(summarize.all.maxTokens)} tokens (question + history) ${withinBudget ? '≤' : '>'} ${fmtInt(TOKEN_BUDGET)}.`,
  );
  return lines;
}

function render(results: StrategyOutcome[], conversations: Conversation[], summariesMade: Map<StrategyRunner, number>): string {
  const toolHeavy = conversations.filter((c) => c.toolHeavy).length;
  const probes = conversations.reduce((sum, c) => sum + c.probes.length, 0);
  return [
    `Evaluation set: \`${path.relative(process.cwd(), CONVERSATIONS_FILE)}\`, ${conversations.length} conversations ` +
      `(${toolHeavy} tool-heavy), ${probes} probes. Each conversation is replayed request by request (one per user ` +
      `message, history = every earlier message); a probe is a request after message \`after_seq\` asking its question.`,
    '',
    `Tokens sent per probe = the probe question (counted as a user message) + the model's view of the history, with ` +
      `\`TokenCounter('${CHAT_MODEL}')\` (o200k_base, 3 tokens of framing per message). **No system prompt and no retrieved ` +
      `knowledge are included**: the service adds both on top of every figure here, for every strategy alike. Tool ` +
      `results are capped at ${TOOL_OUTPUT_MAX_CHARS} characters before the strategy, as the service does. \`window\` is ` +
      `the SQL history window (stored, uncapped token counts) followed by \`windowStrategy\`, as in the service. A fact is ` +
      `retained when its exact text appears in the view (message text, tool-call arguments, the summary pair); the ` +
      `probe question itself is not searched.`,
    '',
    resultsTable(results),
    '',
    'Targets (issue 3, "Evaluation"):',
    '',
    ...targetLines(results),
    '',
    'Where the history tokens go on tool-heavy conversations (mean per probe; the question is not included; ' +
      '"whole tool results" are capped results the strategy left as they were, e.g. in the last `compact_keep` turns):',
    '',
    breakdownTable(results),
    '',
    ...results.filter((r) => r.runner.settings.mode === 'summarize').map((r) => summaryLine(r, summariesMade.get(r.runner) ?? 0)),
    '',
    'Probed facts lost by the strategies with a target, per probe (`2u` = message 2, a user message; `a` assistant, `t` tool):',
    '',
    lostFactsTable(results),
    '',
    ...lostFactCounts(results),
  ].join('\n');
}

// ---------------------------------------------------------------------------
// The prompt-cache replay
// ---------------------------------------------------------------------------

interface CacheRow {
  name: string;
  order: PromptOrder;
  lowWater: number;
  settings: ReturnType<typeof withDefaults>;
  run: CacheRun;
  budget: number | undefined;
}

/** Input billed as if uncached, with cached tokens at (1 − discount) of the price. */
const billedEquivalent = (run: CacheRun, discount: number) => run.promptTokens - run.cachedTokens * discount;

async function cacheReplay(counter: TokenCounter): Promise<{ rows: CacheRow[]; conversations: number }> {
  const countTokens: CountMessageTokens = (m) => counter.countMessage(m);
  const conversations = await makeCacheConversations(KNOWLEDGE_DIR, CACHE_CONVERSATIONS, countTokens);
  const summarizer = new ExtractiveSummarizer(counter);
  const rows: CacheRow[] = [];
  // The defaults; the same layout with the history cut as before (no steps, no pinned opening); and before issue 13.
  const variants: Array<{ order: PromptOrder; lowWater?: number; pin?: number }> = [
    { order: 'stable-prefix' },
    { order: 'stable-prefix', lowWater: 1, pin: 0 },
    { order: 'passages-in-system-prompt', lowWater: 1, pin: 0 },
  ];
  for (const [name, strategy] of Object.entries(CACHE_STRATEGIES)) {
    for (const variant of variants) {
      if (strategy.mode === 'none' && variant.lowWater !== undefined) continue;
      const settings = withDefaults({
        ...strategy,
        ...(variant.lowWater !== undefined && { low_water_pct: variant.lowWater }),
        ...(variant.pin !== undefined && { pin_opening_pct: variant.pin }),
      });
      const run: CacheRun = { promptTokens: 0, cachedTokens: 0, maxStrategyTokens: 0, requests: 0 };
      for (const conversation of conversations) {
        const one = await replayForCache(conversation, {
          settings,
          windowLimits: name === 'window, 20 messages' ? { ...SERVICE_WINDOW_LIMITS, maxMessages: 20 } : SERVICE_WINDOW_LIMITS,
          toolOutputMaxChars: TOOL_OUTPUT_MAX_CHARS,
          countTokens,
          countText: (text) => counter.countText(text),
          summarizer,
          order: variant.order,
        });
        run.promptTokens += one.promptTokens;
        run.cachedTokens += one.cachedTokens;
        run.requests += one.requests;
        run.maxStrategyTokens = Math.max(run.maxStrategyTokens, one.maxStrategyTokens);
      }
      const budget = settings.mode === 'window' ? undefined : settings.token_budget;
      rows.push({ name, order: variant.order, lowWater: settings.low_water_pct, settings, run, budget });
      progress(
        `  cache replay ${name} (${variant.order}, low water ${settings.low_water_pct}, pin ${settings.pin_opening_pct}): ` +
          `${fmtPct(run.cachedTokens / run.promptTokens)} cached`,
      );
    }
  }
  return { rows, conversations: conversations.length };
}

function renderCacheSection(rows: CacheRow[], conversations: number): string {
  const share = (r: CacheRow) => r.run.cachedTokens / r.run.promptTokens;
  const discounts = [...new Set([CACHE_DISCOUNT, 0.9])];
  const table = markdownTable(
    [
      'Strategy',
      'Prompt layout',
      'low_water_pct',
      'pin_opening_pct',
      'Prompt tokens / request',
      'Served from cache',
      ...discounts.map((d) => `Billed-equivalent input / request at ${fmtPct(d)} off`),
      'Largest prompt (strategy\'s count) / budget',
    ],
    rows.map((r) => [
      `\`${r.name}\``,
      r.order === 'stable-prefix' ? 'stable prefix' : 'passages in the system prompt (before)',
      String(r.lowWater),
      String(r.settings.pin_opening_pct),
      fmtInt(r.run.promptTokens / r.run.requests),
      `**${fmtPct(share(r))}**`,
      ...discounts.map((d) => `${fmtInt(billedEquivalent(r.run, d) / r.run.requests)} (${fmtPct(billedEquivalent(r.run, d) / r.run.promptTokens)})`),
      r.settings.mode === 'window'
        ? `history ${fmtInt(SERVICE_WINDOW_LIMITS.maxTokens)} tokens / ${r.name === 'window, 20 messages' ? 20 : SERVICE_WINDOW_LIMITS.maxMessages} messages`
        : r.budget !== undefined
          ? `${fmtInt(r.run.maxStrategyTokens)} / ${fmtInt(r.budget)}${r.run.maxStrategyTokens <= r.budget ? '' : ' **over**'}`
          : `${fmtInt(r.run.maxStrategyTokens)} / none`,
    ]),
    [0, 1],
  );
  const verdict = (ok: boolean) => (ok ? '**PASS**' : '**MISS**');
  const targets = Object.entries(CACHE_TARGETS).map(([name, target]) => {
    const row = rows.find(
      (r) => r.name === name && r.order === 'stable-prefix' && r.lowWater === MEMORY_DEFAULTS.low_water_pct && r.settings.pin_opening_pct === MEMORY_DEFAULTS.pin_opening_pct,
    )!;
    const withinBudget = row.budget === undefined || row.run.maxStrategyTokens <= row.budget;
    return `- ${verdict(share(row) >= target && withinBudget)} \`${name}\` serves ≥ ${fmtPct(target)} of prompt tokens from the cache over turns ${COUNTED_TURNS.from}–${COUNTED_TURNS.to}: ${fmtPct(share(row))}${row.budget !== undefined ? `, largest prompt ${fmtInt(row.run.maxStrategyTokens)} ≤ ${fmtInt(row.budget)}` : ''}.`;
  });
  return [
    '### Prompt cache: what a provider\'s prefix cache serves',
    '',
    `${conversations} generated conversations of ${CACHE_TURNS} turns over the help center (\`knowledge/help-center\`, fixed seed): every turn asks ` +
      `about another article, so the ${3} retrieved passages change every turn; every fourth turn also looks up an order (a ` +
      `\`lookup_order\` call and its JSON result). Each request is rendered as the service sends it (the support agent's tool ` +
      `definitions and instructions, the history as the strategy left it, this turn's passages, the question) and served by the ` +
      `simulated OpenAI prompt cache the loopback stub uses (\`tests/support/prefix-cache.ts\`: prompts of 1,024 tokens or more, ` +
      `the longest prefix shared with a recent request in 128-token steps), counted with o200k_base. Figures are sums over turns ` +
      `${COUNTED_TURNS.from}–${COUNTED_TURNS.to} of every conversation. "Before" is the layout this change replaced (passages in the ` +
      `system prompt) with history cut to just under the budget (\`low_water_pct\` 1) and no pinned opening (\`pin_opening_pct\` 0). Budgets: \`window\` the service's defaults ` +
      `(${SERVICE_WINDOW_LIMITS.maxMessages} messages, ${fmtInt(SERVICE_WINDOW_LIMITS.maxTokens)} tokens of history); the others a ` +
      `${fmtInt(CACHE_TOKEN_BUDGET)}-token prompt (\`token_budget\`; tool definitions not counted, as in the service); \`trim\` ` +
      `max_turns 20, keep_last_n_turns 4; \`compact\` compact_keep 2; \`summarize\` keep_last_n_turns 2, summary_token_budget 600, ` +
      `offline ExtractiveSummarizer. Billed-equivalent input = uncached prompt tokens + cached tokens at the discounted price ` +
      `(\`EVAL_CACHE_DISCOUNT\`, default 50%; 90% shown beside it), per request and as a share of the prompt tokens.`,
    '',
    table,
    '',
    'Targets (issue 13):',
    '',
    ...targets,
  ].join('\n');
}

// ---------------------------------------------------------------------------
// BENCHMARKS.md
// ---------------------------------------------------------------------------

function renderSection(body: string): string {
  return [
    EVAL_START,
    `## \`npm run eval:memory\` (scripts/eval-memory.ts)`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Command: \`${COMMAND}\``,
    '',
    body,
    EVAL_END,
  ].join('\n');
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  const counter = new TokenCounter(CHAT_MODEL);
  const conversations = readConversations(CONVERSATIONS_FILE, (m) => counter.countMessage(m));
  progress(`${conversations.length} conversations from ${CONVERSATIONS_FILE}`);

  const runners = Object.entries(STRATEGIES).map(([name, strategy]) => makeRunner(name, strategy, counter));
  const records = new Map<StrategyRunner, ProbeRecord[]>(runners.map((r) => [r, []]));
  const summariesMade = new Map<StrategyRunner, number>(runners.map((r) => [r, 0]));
  for (const conversation of conversations) {
    const summary: string[] = [];
    for (const runner of runners) {
      const replay = await replayConversation(conversation, runner);
      records.get(runner)!.push(...replay.records);
      summariesMade.set(runner, summariesMade.get(runner)! + replay.summariesMade);
      const stats = aggregate(replay.records);
      summary.push(`${runner.name} ${fmtInt(stats.meanTokens)} tok ${stats.factsRetained}/${stats.factsNeeded}`);
    }
    const kind = conversation.toolHeavy ? 'tool-heavy' : 'plain';
    progress(`  ${conversation.id} (${kind}, ${conversation.stored.length} messages): ${summary.join(' | ')}`);
  }

  const results = runners.map((runner) => summarizeRecords(runner, records.get(runner)!));
  progress('prompt-cache replay');
  const cache = await cacheReplay(counter);
  const body = `${render(results, conversations, summariesMade)}\n\n${renderCacheSection(cache.rows, cache.conversations)}`;
  process.stdout.write(`${body}\n`);
  writeMarkedSection(BENCHMARKS_FILE, { start: EVAL_START, end: EVAL_END }, renderSection(body));
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s; wrote ${BENCHMARKS_FILE}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
