/**
 * Benchmarks (not tests): prints markdown tables and records them in BENCHMARKS.md,
 * replacing only the section between BENCH_START and BENCH_END.
 *
 *   npm run bench [-- conversations.jsonl]   (default: ../shared/eval/conversations.jsonl)
 *
 * 1. history_window load time as a session grows (in-memory PGlite).
 * 2. Token counting: js-tiktoken (o200k_base) vs the chars/4 estimate, accuracy and speed.
 *
 * Progress goes to stderr; tables go to stdout and the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPgliteDatabase } from '../src/store/pglite';
import { applyMigrations } from '../src/store/migrations';
import { SqlStore } from '../src/store/sql-store';
import type { SqlDatabase } from '../src/store/database';
import { writeMarkedSection } from './lib/benchmarks-file';

// ---------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------

const BENCHMARKS_FILE = path.resolve(__dirname, '../BENCHMARKS.md');
const BENCH_START = '<!-- bench:start -->';
const BENCH_END = '<!-- bench:end -->';
const COMMAND = 'npm run bench';

const SESSION_LENGTHS = [100, 10_000, 100_000] as const;
const WINDOW_LIMITS = { maxMessages: 20, maxTokens: 4000 };
const WARMUP_RUNS = 50;
const TIMED_RUNS = 200;
// The unique (session_id, seq) index, which the window walks backwards.
const INDEX_NAME = 'chat_messages_session_id_seq_key';
// A single EXPLAIN ANALYZE timing is noisy at this scale; report the fastest of a few.
const EXPLAIN_RUNS = 5;

// The team's evaluation set lives beside the repository (../shared/eval); another
// file of the same format can be given as the first argument.
const SHARED_EVAL_FILE = path.join(__dirname, '../../shared/eval/conversations.jsonl');
// The copy in tests/fixtures when the shared set is not there (a clean clone).
const CONVERSATIONS_FILE = path.resolve(
  process.argv[2] ?? (fs.existsSync(SHARED_EVAL_FILE) ? SHARED_EVAL_FILE : path.join(__dirname, '../tests/fixtures/eval-conversations.jsonl')),
);
const CHAT_MODEL = 'gpt-4o-mini';
// Repeat the corpus until a timing has run at least this long, so the rate is stable.
const MIN_THROUGHPUT_MS = 1000;
const ROLES = ['user', 'assistant', 'tool'] as const;

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function markdownTable(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [line(header), line(align), ...rows.map(line)].join('\n');
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: number[], p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const fmtMs = (ms: number) => ms.toFixed(3);
const fmtInt = (n: number) => n.toLocaleString('en-US');
const fmtPct = (fraction: number, signed = false) =>
  `${signed && fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;

// ---------------------------------------------------------------------------
// Part 1: history window load time vs session length
// ---------------------------------------------------------------------------

interface WindowTiming {
  sessionLength: number;
  rowsReturned: number;
  minMs: number;
  medianMs: number;
  p95Ms: number;
}

interface PlanSummary {
  sessionLength: number;
  query: string;
  usesIndex: boolean;
  scanNode: string;
  rowsRead: number;
  rowsRemovedByFilter: number;
  executionMs: number;
  text: string;
}

const sessionIdFor = (length: number) => `bench-${length}`;

/** Creates a session of `length` alternating user/assistant messages in two statements. */
async function seedSession(db: SqlDatabase, length: number): Promise<void> {
  const sessionId = sessionIdFor(length);
  await db.query(`insert into chat_sessions (session_id, user_id, title) values ($1, 'bench', 'bench session')`, [
    sessionId,
  ]);
  await db.query(
    `insert into chat_messages (session_id, seq, role, content, token_count)
     select $1, g, case when g % 2 = 1 then 'user' else 'assistant' end, 'message ' || g, 20 + (g % 30)
     from generate_series(1, $2::int) g`,
    [sessionId, length],
  );
  await db.query(
    `update chat_sessions set message_count = $2::int, last_message = 'message ' || $2::int where session_id = $1`,
    [sessionId, length],
  );
}

/**
 * Times every session in interleaved rounds (one call each per round), so GC pauses
 * and machine noise land on all session lengths alike instead of on whichever ran first.
 */
async function timeHistoryWindows(store: SqlStore, lengths: readonly number[]): Promise<WindowTiming[]> {
  const load = (length: number) => store.loadHistoryWindow(sessionIdFor(length), WINDOW_LIMITS);
  // Warm-up: the first calls pay for planning the function body, JIT and cache filling.
  for (let i = 0; i < WARMUP_RUNS; i++) for (const length of lengths) await load(length);

  const samples = lengths.map(() => [] as number[]);
  const rowsReturned = lengths.map(() => 0);
  for (let round = 0; round < TIMED_RUNS; round++) {
    for (const [i, length] of lengths.entries()) {
      const start = performance.now();
      const rows = await load(length);
      samples[i]!.push(performance.now() - start);
      rowsReturned[i] = rows.length;
    }
  }
  return lengths.map((length, i) => {
    const sorted = samples[i]!.sort((x, y) => x - y);
    return {
      sessionLength: length,
      rowsReturned: rowsReturned[i]!,
      minMs: sorted[0]!,
      medianMs: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
    };
  });
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

interface ExplainJson {
  'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }];
}

function flattenPlan(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flattenPlan)];
}

// What the store runs. Postgres inlines this stable SQL function into the caller's
// plan, so EXPLAIN shows its real scan of chat_messages.
const FUNCTION_QUERY = 'select * from history_window($1, $2, $3)';
// The function's first step (its `newest` CTE), explained instead if the function
// ever stops being inlined and shows up only as an opaque Function Scan.
const INNER_QUERY = `select * from chat_messages where session_id = $1 and role <> 'system' order by seq desc limit $2`;

async function explainJson(db: SqlDatabase, query: string, params: unknown[]) {
  let executionMs = Infinity;
  let root: PlanNode | undefined;
  for (let i = 0; i < EXPLAIN_RUNS; i++) {
    const [row] = await db.query<ExplainJson>(`explain (analyze, format json) ${query}`, params);
    const [result] = row!['QUERY PLAN'];
    executionMs = Math.min(executionMs, result['Execution Time']);
    root = result.Plan;
  }
  const tableScans = flattenPlan(root!).filter((n) => n['Relation Name'] === 'chat_messages');
  return { executionMs, tableScans };
}

async function explainWindow(db: SqlDatabase, length: number): Promise<PlanSummary> {
  const sessionId = sessionIdFor(length);
  let query = FUNCTION_QUERY;
  let params: unknown[] = [sessionId, WINDOW_LIMITS.maxMessages, WINDOW_LIMITS.maxTokens];
  let explained = await explainJson(db, query, params);
  if (explained.tableScans.length === 0) {
    query = INNER_QUERY;
    params = [sessionId, WINDOW_LIMITS.maxMessages];
    explained = await explainJson(db, query, params);
  }
  const { tableScans, executionMs } = explained;
  const loops = (n: PlanNode) => n['Actual Loops'] ?? 1;
  const describe = (n: PlanNode) =>
    [n['Node Type'], n['Scan Direction'] === 'Backward' ? 'Backward' : '', n['Index Name'] ? `using ${n['Index Name']}` : '']
      .filter(Boolean)
      .join(' ');

  const textRows = await db.query<{ 'QUERY PLAN': string }>(`explain (analyze, costs off) ${query}`, params);
  return {
    sessionLength: length,
    query,
    usesIndex: tableScans.some((n) => n['Index Name'] === INDEX_NAME),
    scanNode: tableScans.map(describe).join(', '),
    rowsRead: tableScans.reduce((sum, n) => sum + ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * loops(n), 0),
    rowsRemovedByFilter: tableScans.reduce((sum, n) => sum + (n['Rows Removed by Filter'] ?? 0) * loops(n), 0),
    executionMs,
    text: textRows.map((r) => r['QUERY PLAN']).join('\n'),
  };
}

async function benchHistoryWindow(): Promise<string> {
  progress('part 1: opening in-memory PGlite and applying migrations');
  const db = await openPgliteDatabase();
  try {
    await applyMigrations(db);
    const store = new SqlStore(db);

    // Every session lives in the same table, so each is measured against the largest table.
    for (const length of SESSION_LENGTHS) {
      const start = performance.now();
      await seedSession(db, length);
      progress(`  seeded session of ${fmtInt(length)} messages in ${(performance.now() - start).toFixed(0)} ms`);
    }
    await db.exec('analyze chat_sessions; analyze chat_messages;');
    const [countRow] = await db.query<{ total: number }>('select count(*)::int as total from chat_messages');
    const total = countRow!.total;
    progress(`  analyzed; chat_messages holds ${fmtInt(total)} rows`);

    progress(`  timing loadHistoryWindow: ${WARMUP_RUNS} warm-up + ${TIMED_RUNS} timed rounds over all sessions`);
    const timings = await timeHistoryWindows(store, SESSION_LENGTHS);
    progress('  explaining the window query');
    const plans: PlanSummary[] = [];
    for (const length of SESSION_LENGTHS) plans.push(await explainWindow(db, length));
    return renderHistoryWindow(timings, plans, total);
  } finally {
    await db.close();
  }
}

function renderHistoryWindow(timings: WindowTiming[], plans: PlanSummary[], totalRows: number): string {
  const timingTable = markdownTable(
    ['Session length (messages)', 'Rows returned', 'min ms', 'median ms', 'p95 ms'],
    timings.map((t) => [fmtInt(t.sessionLength), t.rowsReturned, fmtMs(t.minMs), fmtMs(t.medianMs), fmtMs(t.p95Ms)]),
  );
  const planTable = markdownTable(
    ['Session length (messages)', `Uses ${INDEX_NAME}`, 'Scan of chat_messages', 'Rows read', 'Removed by filter', `Execution ms (min of ${EXPLAIN_RUNS})`],
    plans.map((p) => [
      fmtInt(p.sessionLength),
      p.usesIndex ? 'yes' : '**no**',
      p.scanNode,
      p.rowsRead,
      p.rowsRemovedByFilter,
      fmtMs(p.executionMs),
    ]),
  );
  const largest = plans[plans.length - 1]!;
  const query = largest.query === FUNCTION_QUERY ? `\`${FUNCTION_QUERY}\` (inlined by the planner)` : `the function's inner scan \`${INNER_QUERY}\``;
  const indexNote = plans.every((p) => p.usesIndex) ? '' : `\n\nNote: the planner did not use \`${INDEX_NAME}\` for every session.`;
  return [
    '### 1. History window load time vs session length',
    '',
    `\`SqlStore.loadHistoryWindow(sessionId, ${JSON.stringify(WINDOW_LIMITS)})\` on in-memory PGlite. ` +
      `All sessions share one \`chat_messages\` table of ${fmtInt(totalRows)} rows (analyzed). ` +
      `${WARMUP_RUNS} warm-up calls, then ${TIMED_RUNS} timed calls per session (sessions interleaved), ` +
      'measured end to end in Node (query, result transfer out of the wasm Postgres, row mapping).',
    '',
    timingTable,
    '',
    `EXPLAIN ANALYZE of ${query}, with the same limits:`,
    '',
    planTable + indexNote,
    '',
    `Plan for the ${fmtInt(largest.sessionLength)}-message session:`,
    '',
    '```',
    largest.text,
    '```',
  ].join('\n');
}

// ---------------------------------------------------------------------------
// Part 2: token counting, js-tiktoken vs chars/4
// ---------------------------------------------------------------------------

type Role = (typeof ROLES)[number];

interface CorpusMessage {
  role: Role;
  content: string;
  /** The tool's name, on tool results. */
  name?: string;
}

function readCorpus(file: string): CorpusMessage[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  return lines.flatMap((line) => {
    type RawMessage = { role: string; content?: string | null; name?: string };
    const conversation = JSON.parse(line) as { messages: RawMessage[] };
    return conversation.messages
      .filter((m): m is RawMessage & { role: Role } => (ROLES as readonly string[]).includes(m.role))
      .map((m) => ({ role: m.role, content: m.content ?? '', name: m.name }));
  });
}

interface AccuracyRow {
  group: string;
  messages: number;
  referenceTokens: number;
  estimatedTokens: number;
  totalRelativeError: number;
  meanAbsError: number;
  emptyMessages: number;
}

function accuracyFor(
  group: string,
  messages: CorpusMessage[],
  countText: (text: string) => number,
  estimate: (text: string) => number,
): AccuracyRow {
  let referenceTokens = 0;
  let estimatedTokens = 0;
  let absErrorSum = 0;
  let emptyMessages = 0;
  for (const { content } of messages) {
    const reference = countText(content);
    const estimated = estimate(content);
    referenceTokens += reference;
    estimatedTokens += estimated;
    // Per-message % error is undefined at 0 reference tokens (empty tool-call turns: both sides say 0).
    if (reference === 0) emptyMessages++;
    else absErrorSum += Math.abs(estimated - reference) / reference;
  }
  const nonEmpty = messages.length - emptyMessages;
  return {
    group,
    messages: messages.length,
    referenceTokens,
    estimatedTokens,
    totalRelativeError: (estimatedTokens - referenceTokens) / referenceTokens,
    meanAbsError: nonEmpty > 0 ? absErrorSum / nonEmpty : 0,
    emptyMessages,
  };
}

interface Throughput {
  method: string;
  messagesPerSecond: number;
  megabytesPerSecond: number;
  passes: number;
}

/** Runs `fn` over the whole corpus repeatedly until MIN_THROUGHPUT_MS has elapsed. */
function measureThroughput(method: string, texts: string[], fn: (text: string) => number): Throughput {
  const corpusBytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8'), 0);
  let passes = 0;
  let sink = 0; // consumed below so the calls cannot be optimised away
  const start = performance.now();
  let elapsed = 0;
  do {
    for (const text of texts) sink += fn(text);
    passes++;
    elapsed = performance.now() - start;
  } while (elapsed < MIN_THROUGHPUT_MS);
  if (sink < 0) progress('impossible');
  const seconds = elapsed / 1000;
  return {
    method,
    messagesPerSecond: (passes * texts.length) / seconds,
    megabytesPerSecond: (passes * corpusBytes) / 1e6 / seconds,
    passes,
  };
}

async function benchTokenCounting(): Promise<string> {
  progress('part 2: loading js-tiktoken');
  // Imported here, not at the top, so the module's own load time is measurable
  // separately from the encoder construction. The `.js` is TypeScript's Node16 rule for
  // import(); tsx resolves it to tokens.ts.
  let start = performance.now();
  const { TokenCounter, estimateTokensByChars } = await import('../src/memory/tokens.js');
  const importMs = performance.now() - start;

  start = performance.now();
  const counter = new TokenCounter(CHAT_MODEL);
  const encoderLoadMs = performance.now() - start;
  progress(`  import ${importMs.toFixed(0)} ms, first TokenCounter (${counter.encodingName}) ${encoderLoadMs.toFixed(0)} ms`);

  const corpus = readCorpus(CONVERSATIONS_FILE);
  const countText = (text: string) => counter.countText(text);
  progress(`  corpus: ${fmtInt(corpus.length)} messages; measuring accuracy`);
  const accuracy = [
    ...ROLES.map((role) => accuracyFor(role, corpus.filter((m) => m.role === role), countText, estimateTokensByChars)),
    accuracyFor('all', corpus, countText, estimateTokensByChars),
  ];
  // Tool results mix prose (knowledge-base articles) and indented JSON, which chars/4
  // misjudges in opposite directions: break them down by tool.
  const tools = corpus.filter((m) => m.role === 'tool');
  const toolNames = [...new Set(tools.map((m) => m.name ?? '(unnamed)'))].sort();
  const byTool = toolNames.map((name) =>
    accuracyFor(name, tools.filter((m) => (m.name ?? '(unnamed)') === name), countText, estimateTokensByChars),
  );

  const texts = corpus.map((m) => m.content);
  progress(`  measuring countText throughput (~${MIN_THROUGHPUT_MS} ms)`);
  const tiktoken = measureThroughput(`js-tiktoken countText (${counter.encodingName})`, texts, countText);
  progress(`  measuring chars/4 throughput (~${MIN_THROUGHPUT_MS} ms)`);
  const chars = measureThroughput('estimateTokensByChars (chars/4)', texts, estimateTokensByChars);

  const corpusBytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8'), 0);
  return renderTokenCounting(accuracy, byTool, [tiktoken, chars], {
    model: CHAT_MODEL,
    encoding: counter.encodingName,
    importMs,
    encoderLoadMs,
    corpusMessages: corpus.length,
    corpusBytes,
  });
}

function accuracyTable(firstHeader: string, rows: AccuracyRow[]): string {
  return markdownTable(
    [firstHeader, 'Count', 'Reference tokens (tiktoken)', 'Estimated tokens (chars/4)', 'Total error', 'Mean abs. per-message error'],
    rows.map((a) => [
      a.group === 'all' ? '**all**' : a.group,
      fmtInt(a.messages),
      fmtInt(a.referenceTokens),
      fmtInt(a.estimatedTokens),
      fmtPct(a.totalRelativeError, true),
      `${fmtPct(a.meanAbsError)}${a.emptyMessages ? ` (${a.emptyMessages} empty excluded)` : ''}`,
    ]),
  );
}

function renderTokenCounting(
  accuracy: AccuracyRow[],
  byTool: AccuracyRow[],
  speed: Throughput[],
  info: { model: string; encoding: string; importMs: number; encoderLoadMs: number; corpusMessages: number; corpusBytes: number },
): string {
  const speedTable = markdownTable(
    ['Method', 'Messages/s', 'MB/s', 'Corpus passes'],
    speed.map((s) => [s.method, fmtInt(Math.round(s.messagesPerSecond)), s.megabytesPerSecond.toFixed(2), s.passes]),
  );
  const loadTable = markdownTable(
    ['One-off cost', 'ms'],
    [
      ['import src/memory/tokens (js-tiktoken + bundled ranks)', info.importMs.toFixed(0)],
      [`first \`new TokenCounter('${info.model}')\` (builds ${info.encoding})`, info.encoderLoadMs.toFixed(0)],
    ],
  );
  return [
    '### 2. Token counting: js-tiktoken vs chars/4',
    '',
    `Corpus: \`${path.relative(process.cwd(), CONVERSATIONS_FILE)}\`, ${fmtInt(info.corpusMessages)} messages, ` +
      `${(info.corpusBytes / 1e6).toFixed(2)} MB of content. Per message, reference = ` +
      `\`counter.countText(content)\` with \`new TokenCounter('${info.model}')\` (${info.encoding}); ` +
      'estimate = `estimateTokensByChars(content)` = ceil(length / 4). Content only: tool-call arguments, ' +
      'names and per-message framing are not counted by either side. Errors are (estimate - reference) / reference.',
    '',
    accuracyTable('Role', accuracy),
    '',
    'Tool results by tool:',
    '',
    accuracyTable('Tool', byTool),
    '',
    `Speed (single thread, corpus repeated until ≥ ${MIN_THROUGHPUT_MS} ms; MB = 10^6 bytes of UTF-8):`,
    '',
    speedTable,
    '',
    'chars/4 reads only `string.length` (constant time), so its MB/s is nominal: it is the cost of a call, not of reading text.',
    '',
    loadTable,
  ].join('\n');
}

// ---------------------------------------------------------------------------
// BENCHMARKS.md
// ---------------------------------------------------------------------------

const FILE_INTRO = `# Benchmarks

Measured numbers for design decisions in this repository. Each section is written
by the script named in it; re-run that script to refresh its section (other sections
are left as they are).
`;

function machineDescription(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, Node ${process.version}, ${os.platform()} ${os.arch()}`;
}

function renderSection(parts: string[]): string {
  return [
    BENCH_START,
    `## \`${COMMAND}\` (scripts/bench.ts)`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machineDescription()}`,
    `- Command: \`${COMMAND}\``,
    '',
    parts.join('\n\n'),
    BENCH_END,
  ].join('\n');
}

async function main(): Promise<void> {
  const started = performance.now();
  const parts = [await benchHistoryWindow(), await benchTokenCounting()];
  for (const part of parts) process.stdout.write(`${part}\n\n`);
  writeMarkedSection(BENCHMARKS_FILE, { start: BENCH_START, end: BENCH_END }, renderSection(parts), FILE_INTRO);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s; wrote ${BENCHMARKS_FILE}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
