/**
 * Answer-quality evaluation (not a test): does a customer's turn reach the article
 * that answers it, is it escalated when it should be (and only then), and does the
 * answer state the fact? Replays labelled dialogues through the real service and
 * records the tables in BENCHMARKS.md (its own section).
 *
 *   npm run eval:answers                       offline (no key: the embedded default)
 *   npm run eval:answers -- --with-model       with OPENAI_API_KEY (and OPENAI_BASE_URL, …) from the environment
 *   npm run eval:answers -- --set <dir> …      sets to run instead of ../shared/eval/mtrag-* and eval/dev-shop/*
 *   npm run eval:answers -- --no-write         print the tables without touching BENCHMARKS.md
 *   npm run eval:answers -- --as-site          the published sets only, ingested clean and by crawling
 *                                              them as a website with chrome (its own section)
 *   npm run eval:answers -- --acts --acts-dir eval/acts-held-out   the same for a held-out acts set (printed only)
 *   npm run eval:answers -- --acts             the conversation-acts set only (eval/acts/<language>.jsonl): every line
 *                                              the first turn of its own session over knowledge/help-center; a table
 *                                              per language (its own section)
 *   npm run eval:answers -- --dump <file>      also write every turn's retrieval (query, confidence, the passages
 *                                              and their scores; the help center's dialogues too, with their turn
 *                                              type) as JSON lines, to study confidence (scripts/replay-confidence.ts)
 *
 * Sets:
 * - eval/help-center-dialogues.jsonl: this repository's dialogues over knowledge/help-center
 *   (first questions, follow-ups, topic changes, paraphrases, order questions, off-topic);
 * - every folder ../shared/eval/mtrag-* (found, not named here), or those given with --set:
 *   a folder of the same shape (docs/ and cases.jsonl, as ../shared/eval/mtrag-cloud/README.md
 *   describes) is a set. Each is scored at document level, R@1, R@3 and R@5 on first and
 *   later turns, beside plain BM25 over whole documents computed here on the same documents
 *   and turns (scripts/lib/plain-bm25.ts), with the paired difference and its 95% interval
 *   (bootstrap over conversations). A set may also have unanswerable.jsonl (questions about
 *   articles its docs/ lack, `{id, user}` a line): each is asked in a fresh session after the
 *   dialogues. Escalation is reported per answerability label (mtrag's ANSWERABLE, PARTIAL,
 *   UNANSWERABLE, CONVERSATIONAL; its unjudged turns count here too), and, over all sets, one
 *   row a set: R@1, R@3, answerable and unanswerable escalated (each language beside English);
 * - every folder eval/dev-shop/* (or given with --set) that holds docs/ and dialogues.jsonl (as
 *   eval/help-center-dialogues.jsonl, with `small_talk` and `ask_person` turns besides): a shop of
 *   another domain, its customers writing as customers do (eval/dev-shop/README.md). These and the
 *   help center get one row each in "Answer or hand over": R@3 on answerable turns, the first
 *   quote holding the answer, answerable and unanswerable turns escalated, small talk escalated
 *   or quoted, and requests for a person escalated as `customer_asked`.
 *
 * --as-site: each set's documents are also served as help-center pages wrapped in site
 * chrome (navigation, header, footer, cookie banner, related links; scripts/lib/site-chrome.ts)
 * from a loopback server with a sitemap, crawled into the same service (syncSite, which
 * reuses the clean chunks' vectors where the text came through identical), the clean
 * files removed, and the dialogues run again: R@3 crawled beside R@3 clean, with how many
 * stored chunks hold chrome text.
 *
 * Progress goes to stderr; tables go to stdout and the file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  actHandled,
  escalationByAnswerability,
  escalationScores,
  firstQuotedSentence,
  firstQuoteHolds,
  isShopSet,
  judgementScores,
  loadDialogues,
  loadShopSet,
  loadUnanswerable,
  loadMtragDialogues,
  runDialogues,
  scoreTurns,
  startEvaluatedService,
  TURN_TYPES,
  type TurnResult,
} from './lib/answer-eval';
import { EXPECTED_ACTS, loadActsSet } from './lib/acts-set';
import { writeMarkedSection } from './lib/benchmarks-file';
import { CHROME_MARKERS, serveChromedSite } from './lib/site-chrome';
import { bindSiteSync } from '../src/knowledge/site-sync-binding';
import { SiteSyncStore } from '../src/store/site-sync-store';
import { plainBm25 } from './lib/plain-bm25';
import { pairedInterval, rankedTurn, recallAt, type RankedTurn } from './lib/retrieval-scores';
import { REWRITE_INSTRUCTIONS, rewriteRequest } from '../src/knowledge/query-rewriter';
import { standsAlone } from '../src/knowledge/search-query';
import { TokenCounter } from '../src/memory/tokens';

const REPO = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO, 'BENCHMARKS.md');
const SECTION = { start: '<!-- eval-answers:start -->', end: '<!-- eval-answers:end -->' };
const SITE_SECTION = { start: '<!-- eval-answers-as-site:start -->', end: '<!-- eval-answers-as-site:end -->' };
const ACTS_SECTION = { start: '<!-- eval-answers-acts:start -->', end: '<!-- eval-answers-acts:end -->' };
const DIALOGUES_FILE = path.join(REPO, 'eval/help-center-dialogues.jsonl');
const HELP_CENTER_DIR = path.join(REPO, 'knowledge/help-center');
const SHARED_EVAL_DIR = path.join(REPO, '../shared/eval');
const DEV_SHOP_DIR = path.join(REPO, 'eval/dev-shop');
const actsDirIndex = process.argv.indexOf('--acts-dir');
/** The acts set: eval/acts, or a held-out one (`--acts-dir eval/acts-held-out`, which is never tuned on). */
const ACTS_DIR = actsDirIndex >= 0 ? path.resolve(process.argv[actsDirIndex + 1] ?? '') : path.join(REPO, 'eval/acts');
/** Only eval/acts's run is the acts section of BENCHMARKS.md: another set's table is printed, never written over it. */
const writesActsSection = ACTS_DIR === path.join(REPO, 'eval/acts');

const withModel = process.argv.includes('--with-model');
const writeFile = !process.argv.includes('--no-write');
const asSite = process.argv.includes('--as-site');
const actsOnly = process.argv.includes('--acts');
const dumpIndex = process.argv.indexOf('--dump');
const dumpFile = dumpIndex >= 0 ? process.argv[dumpIndex + 1] : undefined;
const COMMAND = `npm run eval:answers${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;

/**
 * The sets: each `--set <dir>`, else every ../shared/eval/mtrag-* folder and every eval/dev-shop/* folder.
 * A folder with docs/ and dialogues.jsonl is a shop set; one with docs/ and cases.jsonl a conversation set.
 */
function chosenSets(): { conversations: string[]; shops: string[] } {
  const given = process.argv.flatMap((arg, i) => (arg === '--set' && process.argv[i + 1] ? [path.resolve(process.argv[i + 1]!)] : []));
  const subfolders = (dir: string, prefix = '') =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((name) => name.startsWith(prefix) && fs.statSync(path.join(dir, name)).isDirectory())
          .map((name) => path.join(dir, name))
          .sort()
      : [];
  const sets = given.length > 0 ? given : [...subfolders(SHARED_EVAL_DIR, 'mtrag-'), ...subfolders(DEV_SHOP_DIR)];
  const shops = sets.filter(isShopSet);
  const conversations = sets.filter((dir) => !isShopSet(dir));
  for (const dir of conversations) {
    if (!fs.existsSync(path.join(dir, 'cases.jsonl')) || !fs.existsSync(path.join(dir, 'docs'))) {
      throw new Error(`${dir} is not a set: it needs docs/ and cases.jsonl (a conversation set) or dialogues.jsonl (a shop set)`);
    }
  }
  return { conversations, shops };
}

function progress(message: string): void {
  process.stderr.write(`[eval:answers] ${message}\n`);
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(0)}%`);

/** The environment of the evaluated service: offline unless --with-model, settings otherwise as given. */
function serviceEnv(): Record<string, string | undefined> {
  const env = { ...process.env };
  if (!withModel) delete env['OPENAI_API_KEY'];
  else if (!env['OPENAI_API_KEY']) throw new Error('--with-model needs OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)');
  for (const key of ['DATABASE_URL', 'SUPABASE_URL', 'SUPABASE_SERVICE_ROLE_KEY', 'LANGFUSE_PUBLIC_KEY', 'LANGFUSE_SECRET_KEY']) delete env[key];
  return env;
}

async function evaluateHelpCenter(): Promise<{ table: string[]; results: TurnResult[] }> {
  const dialogues = loadDialogues(DIALOGUES_FILE);
  const turns = dialogues.reduce((sum, d) => sum + d.turns.length, 0);
  progress(`help center: ${dialogues.length} dialogues, ${turns} turns`);
  const service = await startEvaluatedService(HELP_CENTER_DIR, serviceEnv());
  const searches = dumpFile ? recordSearches(service.deps) : null;
  let results: TurnResult[];
  try {
    results = await runDialogues(service.deps, dialogues, (done, total, rs) => {
      if (searches) dumpTurns('help-center', rs, searches.take());
      const misses = rs.filter((r) => r.turn.article && (r.rank === null || r.rank > 3)).length;
      progress(`  ${done}/${total} ${dialogues[done - 1]!.id}: ${rs.length} turns, ${misses} missed top 3, ${rs.filter((r) => r.escalated).length} escalated`);
    });
  } finally {
    await service.close();
  }

  const table = [
    '| turn type | turns | hit@1 | hit@3 | MRR | escalated | fact stated |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const type of TURN_TYPES) {
    const s = scoreTurns(results.filter((r) => r.turn.type === type));
    if (s.turns === 0) continue;
    table.push(
      `| ${type} | ${s.turns} | ${pct(s.hitAt1, s.labelled)} | ${pct(s.hitAt3, s.labelled)} | ${s.labelled ? (s.mrr / s.labelled).toFixed(2) : '–'} | ${pct(s.escalated, s.turns)} (${s.escalated}) | ${pct(s.factStated, s.withFact)} |`,
    );
  }
  const all = scoreTurns(results);
  table.push(`| **all** | ${all.turns} | ${pct(all.hitAt1, all.labelled)} | ${pct(all.hitAt3, all.labelled)} | ${(all.mrr / all.labelled).toFixed(2)} | ${pct(all.escalated, all.turns)} (${all.escalated}) | ${pct(all.factStated, all.withFact)} |`);
  const e = escalationScores(results);
  table.push(
    '',
    `Escalation (positives: the ${e.offTopic} off-topic turns): precision ${pct(e.truePositives, e.escalated)} (${e.truePositives}/${e.escalated}), recall ${pct(e.truePositives, e.offTopic)} (${e.truePositives}/${e.offTopic}).`,
  );
  const missed = results.filter((r) => r.turn.article && (r.rank === null || r.rank > 3));
  if (missed.length > 0) {
    table.push('', 'Turns whose article was not in the top 3:', '', '| dialogue | turn | type | said | labelled | cited | searched with |', '| --- | ---: | --- | --- | --- | --- | --- |');
    for (const r of missed) {
      table.push(`| ${r.dialogue} | ${r.index + 1} | ${r.turn.type} | ${r.turn.user} | ${r.turn.article} | ${r.cited.join(', ') || '(none)'} | ${r.retrievalQuery ?? '–'} |`);
    }
  }
  table.push('', rewriteCost(dialogues, results));
  const wronglyEscalated = results.filter((r) => r.escalated && r.turn.type !== 'off_topic');
  const wronglyAnswered = results.filter((r) => !r.escalated && r.turn.type === 'off_topic');
  for (const [title, rows] of [['Covered turns escalated', wronglyEscalated], ['Off-topic turns not escalated', wronglyAnswered]] as const) {
    if (rows.length === 0) continue;
    table.push('', `${title}:`, '', '| dialogue | turn | type | said | confidence |', '| --- | ---: | --- | --- | ---: |');
    for (const r of rows) table.push(`| ${r.dialogue} | ${r.index + 1} | ${r.turn.type} | ${r.turn.user} | ${r.confidence} |`);
  }
  return { table, results };
}

/**
 * The rewrite's hidden cost on a set, without a model: which turns would call it
 * (QUERY_REWRITE=model calls it for a later turn that does not stand alone) and the
 * tokens of its prompt, counted as gpt-4o-mini counts them; the answers are taken as
 * the responder gave them offline.
 */
function rewriteCost(dialogues: ReturnType<typeof loadDialogues>, results: TurnResult[]): string {
  const answers = new Map(results.map((r) => [`${r.dialogue}#${r.index}`, r.response]));
  const counter = new TokenCounter('gpt-4o-mini');
  let turns = 0;
  const promptTokens: number[] = [];
  for (const d of dialogues) {
    const earlier: { role: string; content: string }[] = [];
    for (const [index, turn] of d.turns.entries()) {
      turns += 1;
      if (earlier.length > 0 && !standsAlone(turn.user)) {
        promptTokens.push(counter.countText(REWRITE_INSTRUCTIONS) + counter.countText(rewriteRequest(turn.user, earlier)) + 6);
      }
      earlier.push({ role: 'user', content: turn.user }, { role: 'assistant', content: answers.get(`${d.id}#${index}`) ?? '' });
    }
  }
  const mean = promptTokens.reduce((a, b) => a + b, 0) / Math.max(1, promptTokens.length);
  return `The rewrite's hidden cost (QUERY_REWRITE=model, the default with a key): one extra model call on ${promptTokens.length} of ${turns} turns (${pct(promptTokens.length, turns)}: the later turns that do not stand alone), each with a prompt of ${mean.toFixed(0)} tokens on average (max ${Math.max(0, ...promptTokens)}; gpt-4o-mini's tokenizer, the offline answers as the agent's turns) and an answer of a search query (about 10–20 tokens). Its latency is the \`rewrite\` stage of Server-Timing.`;
}

/** Runs one shop set (docs/ and dialogues.jsonl) through the service. */
async function evaluateShopSet(dir: string): Promise<TurnResult[]> {
  const name = path.relative(REPO, dir);
  const dialogues = loadShopSet(dir);
  progress(`${name}: ${dialogues.length} dialogues, ${dialogues.reduce((sum, d) => sum + d.turns.length, 0)} turns`);
  const service = await startEvaluatedService(path.join(dir, 'docs'), serviceEnv());
  const searches = dumpFile ? recordSearches(service.deps) : null;
  try {
    return await runDialogues(service.deps, dialogues, (done, total, rs) => {
      if (searches) dumpTurns(name, rs, searches.take());
      if (done % 20 === 0 || done === total) progress(`  ${name} ${done}/${total}`);
    });
  } finally {
    await service.close();
  }
}

/**
 * One row a help center: does it answer what it covers and hand over what it does not
 * (judgementScores). "a person, please" counts as marked only with `escalation_reason` customer_asked.
 */
function judgementTable(rows: { name: string; results: TurnResult[] }[]): string[] {
  const share = (n: number, d: number) => (d === 0 ? '–' : `${p(n / d)} (${n}/${d})`);
  return [
    '| help center | R@3 (answerable) | first quote holds the answer | answerable escalated | unanswerable escalated | small talk escalated or quoted | "a person, please" marked customer_asked |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(({ name, results }) => {
      const j = judgementScores(results);
      return `| ${name} | ${share(j.hitAt3, j.answerable)} | ${share(j.firstQuoteHolds, j.withFact)} | ${share(j.answerableEscalated, j.answerable)} | ${share(j.unanswerableEscalated, j.unanswerable)} | ${j.smallTalk === 0 ? '–' : `${j.smallTalkEscalatedOrQuoted} of ${j.smallTalk}`} | ${j.askPerson === 0 ? '–' : `${j.askPersonMarked} of ${j.askPerson}`} |`;
    }),
  ];
}

interface SetResult {
  name: string;
  documents: number;
  conversations: number;
  turns: RankedTurn[];
  /** Every turn asked with a label (judged, unjudged with an answerability, unanswerable.jsonl's). */
  results: TurnResult[];
}

/**
 * Wraps the store's hybridSearch to keep each search's passages, the weight the vector side was
 * given and each document's coverage of the question, for --dump. The retriever asks coverage
 * only where the embedder does not know the question's language; the dump has it for every
 * search, so scripts/replay-confidence.ts can try rules that use it in English too.
 */
function recordSearches(deps: Awaited<ReturnType<typeof startEvaluatedService>>['deps']): { take(): unknown[] } {
  const store = deps.store as unknown as {
    hybridSearch(q: { text: string; semanticWeight: number }): Promise<{ source: string; evidence?: object }[]>;
    queryCoverage(text: string, sources: string[]): Promise<Map<string, number>>;
  };
  const search = store.hybridSearch.bind(store);
  let last: { text: string; semanticWeight: number; documents: { source: string; evidence?: object }[] }[] = [];
  store.hybridSearch = async (q) => {
    const documents = await search(q);
    const found = await store.queryCoverage(q.text, [...new Set(documents.map((d) => d.source))]);
    // As the retriever attaches them (semanticInLanguage false where the vectors were given no weight).
    const dumped = documents.map((d) =>
      d.evidence ? { ...d, evidence: { ...d.evidence, ...(found.has(d.source) && { queryCoverage: found.get(d.source) }), ...(q.semanticWeight === 0 && { semanticInLanguage: false }) } } : d,
    );
    last.push({ text: q.text, semanticWeight: q.semanticWeight, documents: dumped });
    return documents;
  };
  return {
    take: () => {
      const taken = last;
      last = [];
      return taken;
    },
  };
}


/** Writes a dialogue's turns to the --dump file, each with the dialogue's searches (one a turn sent, unscored turns too: a turn's is searches[index]). */
function dumpTurns(set: string, results: TurnResult[], searches: unknown[]): void {
  for (const r of results) {
    const line = { set, dialogue: r.dialogue, index: r.index, user: r.turn.user, type: r.turn.type, answerability: r.turn.answerability ?? null, judged: !r.unscored && r.turn.article !== null, rank: r.rank, escalated: r.escalated, reason: r.escalationReason, confidence: r.confidence, fact: r.turn.fact ?? null, firstQuote: firstQuotedSentence(r.response), firstQuoteHolds: r.turn.fact ? firstQuoteHolds(r.response, [r.turn.fact]) : null, response: r.response, searches };
    fs.appendFileSync(dumpFile!, `${JSON.stringify(line)}\n`);
  }
}

/** Runs one conversation set through the service, and plain BM25 over the same documents and turns. */
async function evaluateSet(dir: string): Promise<SetResult> {
  const name = path.basename(dir);
  const docsDir = path.join(dir, 'docs');
  const dialogues = loadMtragDialogues(dir);
  const documents = fs.readdirSync(docsDir).length;
  progress(`${name}: ingesting ${documents} documents (minutes with the sentence encoder, about 75 ms a chunk)`);
  const unanswerable = loadUnanswerable(dir);
  const service = await startEvaluatedService(docsDir, serviceEnv());
  const searches = dumpFile ? recordSearches(service.deps) : null;
  const results: TurnResult[] = [];
  try {
    const every = [...dialogues, ...unanswerable];
    await runDialogues(service.deps, every, (done, total, rs) => {
      results.push(...rs);
      if (searches) {
        dumpTurns(name, rs, searches.take());
      }
      if (done % 20 === 0 || done === total) {
        const judged = results.filter((r) => !r.unscored && r.turn.article !== null);
        const hits = judged.filter((r) => r.rank !== null && r.rank <= 3).length;
        progress(`  ${name} ${done}/${total}: ${hits}/${judged.length} in top 3, ${results.filter((r) => r.escalated).length}/${results.length} escalated`);
      }
    });
  } finally {
    await service.close();
  }
  const bm25 = plainBm25(docsDir);
  const judged = results.filter((r) => !r.unscored && r.turn.article !== null);
  return { name, documents, conversations: dialogues.length, turns: judged.map((r) => rankedTurn(r, bm25.rank(r.turn.user))), results };
}

const LABELS = ['ANSWERABLE', 'PARTIAL', 'UNANSWERABLE', 'CONVERSATIONAL'];

/** Escalation per answerability label of one set. */
function escalationTable(results: TurnResult[]): string[] {
  const byLabel = escalationByAnswerability(results);
  const labels = [...LABELS.filter((l) => byLabel.has(l)), ...[...byLabel.keys()].filter((l) => !LABELS.includes(l))];
  return [
    '| answerability | turns | escalated |',
    '| --- | ---: | ---: |',
    ...labels.map((l) => {
      const e = byLabel.get(l)!;
      return `| ${l} | ${e.turns} | ${p(e.escalated / e.turns)} (${e.escalated}) |`;
    }),
  ];
}

/**
 * One row a set: R@1 and R@3 of its judged turns, and the escalated share of its answerable
 * (judged, not PARTIAL) and unanswerable turns; sets of one help center in several languages compare row by row.
 */
function languagesTable(sets: SetResult[]): string[] {
  const rows = sets.map((s) => {
    const r = recallAt(s.turns);
    const answerable = s.results.filter((t) => !t.unscored && t.turn.article !== null && (t.turn.answerability ?? 'ANSWERABLE') === 'ANSWERABLE');
    const unanswerable = s.results.filter((t) => t.turn.answerability === 'UNANSWERABLE');
    const share = (rs: TurnResult[]) => (rs.length === 0 ? '–' : `${p(rs.filter((t) => t.escalated).length / rs.length)} (${rs.filter((t) => t.escalated).length}/${rs.length})`);
    return `| ${s.name} | ${p(r.service[1]!)} | ${p(r.service[3]!)} | ${share(answerable)} | ${share(unanswerable)} |`;
  });
  return ['| set | R@1 | R@3 | answerable escalated | unanswerable escalated |', '| --- | ---: | ---: | ---: | ---: |', ...rows];
}

function setTable(turns: RankedTurn[]): string[] {
  const table = [
    '| turns | n | R@1 | R@3 | R@5 | BM25 R@1 | BM25 R@3 | BM25 R@5 | R@3 difference (95% interval) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const [label, rows] of [
    ['first turns', turns.filter((t) => t.first)],
    ['later turns', turns.filter((t) => !t.first)],
    ['all', turns],
  ] as const) {
    const r = recallAt(rows);
    const [low, high] = pairedInterval(rows, 3);
    const diff = r.service[3]! - r.bm25[3]!;
    table.push(
      `| ${label} | ${rows.length} | ${p(r.service[1]!)} | **${p(r.service[3]!)}** | ${p(r.service[5]!)} | ${p(r.bm25[1]!)} | ${p(r.bm25[3]!)} | ${p(r.bm25[5]!)} | ${signed(diff)} (${signed(low)} to ${signed(high)}) |`,
    );
  }
  return table;
}

const p = (x: number) => `${(100 * x).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/** One set ingested two ways: its files (clean) and its pages crawled from a site with chrome. */
interface SiteComparison {
  name: string;
  documents: number;
  conversations: number;
  clean: TurnResult[];
  site: TurnResult[];
  /** Pages the crawl stored, and those that map to no document of the set. */
  pages: number;
  strayPages: number;
  cleanChunks: number;
  siteChunks: number;
  /** Crawled chunks whose text is identical to a clean chunk's. */
  identicalChunks: number;
  /** Crawled chunks holding a phrase only the chrome has (CHROME_MARKERS), with an example. */
  chromeChunks: number;
  chromeExample: string | null;
  syncReport: unknown;
}

/** Every stored source name with its chunks' contents. */
async function storedChunks(deps: Awaited<ReturnType<typeof startEvaluatedService>>['deps']): Promise<Map<string, { content: string }[]>> {
  const { admin } = deps.appParts.knowledge;
  const all = new Map<string, { content: string }[]>();
  let after: string | undefined;
  for (;;) {
    const page = await admin.listSources({ after, limit: 200 });
    for (const s of page.sources) all.set(s.source, (await admin.sourceChunks(s.source)).map((c) => ({ content: c.content })));
    if (!page.nextAfter) return all;
    after = page.nextAfter;
  }
}

/** Runs one set clean, then crawled from its chrome-wrapped site into the same service (clean files removed), and compares. */
async function compareAsSite(dir: string): Promise<SiteComparison> {
  const name = path.basename(dir);
  const docsDir = path.join(dir, 'docs');
  const dialogues = loadMtragDialogues(dir);
  const documents = fs.readdirSync(docsDir).length;
  progress(`${name}: ingesting ${documents} documents clean (minutes with the sentence encoder, about 75 ms a chunk)`);
  const service = await startEvaluatedService(docsDir, serviceEnv());
  const site = await serveChromedSite(docsDir);
  try {
    const clean = await runDialogues(service.deps, dialogues, (done, total) => progress(`  ${name} clean ${done}/${total}`));
    const cleanStored = await storedChunks(service.deps);
    const cleanTexts = new Set([...cleanStored.values()].flat().map((c) => c.content));
    progress(`${name}: crawling ${site.sitemapUrl} (${documents} pages with chrome)`);
    const { admin, embedder } = service.deps.appParts.knowledge;
    const syncSite = bindSiteSync({ store: service.deps.store, admin, embedder, syncRuns: new SiteSyncStore(service.db), maxRemovalPercent: 100 });
    // The chromed site runs on loopback: crawling it is this run's explicit choice.
    const syncReport = await syncSite(site.sitemapUrl, new AbortController().signal, { trigger: 'eval', allowPrivateNetwork: true });
    for (const source of cleanStored.keys()) await admin.deleteSource(source);
    const siteStored = await storedChunks(service.deps);
    const siteChunks = [...siteStored.values()].flat();
    const withChrome = siteChunks.filter((c) => CHROME_MARKERS.some((m) => c.content.includes(m)));
    progress(`${name}: ${siteStored.size} pages stored, ${withChrome.length} chunks with chrome; asking again`);
    const site_ = await runDialogues(
      service.deps,
      dialogues,
      (done, total) => progress(`  ${name} as a site ${done}/${total}`),
      (source) => site.documentOf(source) ?? source,
    );
    return {
      name,
      documents,
      conversations: dialogues.length,
      clean,
      site: site_,
      pages: siteStored.size,
      strayPages: [...siteStored.keys()].filter((s) => site.documentOf(s) === null).length,
      cleanChunks: [...cleanStored.values()].flat().length,
      siteChunks: siteChunks.length,
      identicalChunks: siteChunks.filter((c) => cleanTexts.has(c.content)).length,
      chromeChunks: withChrome.length,
      chromeExample: withChrome[0]?.content.slice(0, 160) ?? null,
      syncReport,
    };
  } finally {
    await site.close();
    await service.close();
  }
}

const recallAt3 = (results: TurnResult[]) => {
  const judged = results.filter((r) => r.turn.article !== null);
  return judged.length === 0 ? 0 : judged.filter((r) => r.rank !== null && r.rank <= 3).length / judged.length;
};

async function mainAsSite(): Promise<void> {
  const started = performance.now();
  const sets = chosenSets().conversations;
  const comparisons: SiteComparison[] = [];
  for (const dir of sets) comparisons.push(await compareAsSite(dir));
  const rows = comparisons.map((c) => {
    const clean = recallAt3(c.clean);
    const crawled = recallAt3(c.site);
    const diff = crawled - clean;
    const lost = c.clean.filter((r, i) => r.rank !== null && r.rank <= 3 && !(c.site[i]!.rank !== null && c.site[i]!.rank! <= 3)).length;
    const gained = c.clean.filter((r, i) => !(r.rank !== null && r.rank <= 3) && c.site[i]!.rank !== null && c.site[i]!.rank! <= 3).length;
    return `| ${c.name} | ${c.documents} | ${c.clean.length} | ${p(clean)} | ${p(crawled)} | ${signed(diff)} | ${Math.abs(diff) <= 0.01 ? 'yes' : '**no**'} | ${lost} / ${gained} | ${c.pages}${c.strayPages > 0 ? ` (${c.strayPages} stray)` : ''} | ${c.cleanChunks} → ${c.siteChunks} | ${c.identicalChunks} | ${c.chromeChunks} |`;
  });
  const examples = comparisons.filter((c) => c.chromeExample).map((c) => `- ${c.name}: \`${c.chromeExample!.replaceAll('`', "'").replaceAll('\n', ' ')}\``);
  const body = [
    '## `npm run eval:answers -- --as-site` (scripts/eval-answers.ts)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, Node ${process.version}`,
    `- Command: \`${COMMAND}\` (${withModel ? 'with the configured model' : `offline, no key; OFFLINE_EMBEDDER=${process.env['OFFLINE_EMBEDDER'] ?? 'use-lite'}`}); ${((performance.now() - started) / 60_000).toFixed(1)} minutes`,
    '',
    "Each published set twice in one service: its markdown files ingested (clean), the dialogues run; then the same documents served from a loopback server as help-center pages wrapped in site chrome (a cookie banner, a header with navigation and search, breadcrumbs, a sidebar of the section's other articles, a \"was this helpful\" footer, related and recently viewed articles naming other documents, a site footer with a newsletter form, scripts; scripts/lib/site-chrome.ts) and listed by a sitemap, crawled by the service's own site sync, the clean files removed, and the dialogues run again. A cited page is scored as the document it shows. R@3: judged turns whose judged document is among the first three cited. Lost / gained: turns in the top 3 clean but not crawled, and the reverse. Identical chunks: crawled chunks whose text equals a clean chunk's (the converter's Markdown differs from the files' in small ways, such as runs of spaces collapsed as a page shows them). Chunks with chrome: stored chunks holding a phrase only the chrome has.",
    '',
    '| set | documents | judged turns | R@3 clean | R@3 crawled | difference | within 1 point | lost / gained | pages stored | chunks clean → crawled | identical chunks | chunks with chrome |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    ...(examples.length > 0 ? ['A chunk with chrome, per set:', '', ...examples, ''] : []),
  ];
  const section = [SITE_SECTION.start, ...body, SITE_SECTION.end].join('\n');
  process.stdout.write(`${body.join('\n')}\n`);
  for (const c of comparisons) process.stderr.write(`[eval:answers] ${c.name} sync report: ${JSON.stringify(c.syncReport)}\n`);
  if (writeFile) writeMarkedSection(BENCHMARKS_FILE, SITE_SECTION, section);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s${writeFile ? `; wrote ${BENCHMARKS_FILE}` : ''}`);
}

/**
 * The conversation-acts set through the real service: every line is the first message of
 * its own session over the repository's help center, and is scored as actHandled says.
 */
async function mainActs(): Promise<void> {
  const started = performance.now();
  const languages = loadActsSet(ACTS_DIR);
  const service = await startEvaluatedService(HELP_CENTER_DIR, serviceEnv());
  const rows: string[] = [];
  const misses: string[] = [];
  try {
    for (const { language, lines } of languages) {
      const dialogues = lines.map((line, i) => ({
        id: `${language}-${i + 1}`,
        turns: [{ user: line.text, type: line.expect === 'question' ? ('first' as const) : line.expect, article: null }],
      }));
      const results = await runDialogues(service.deps, dialogues, (done, total) => {
        if (done % 20 === 0) progress(`  acts ${language} ${done}/${total}`);
      });
      const cells = EXPECTED_ACTS.map((expect) => {
        const of = results.filter((_, i) => lines[i]!.expect === expect);
        const handled = of.filter((r) => actHandled(expect, r));
        for (const r of of.filter((r) => !actHandled(expect, r))) misses.push(`| ${language} | ${expect} | ${r.turn.user} | ${r.escalated ? `escalated (${r.escalationReason ?? 'no reason'})` : 'answered'} |`);
        return `${pct(handled.length, of.length)} (${handled.length}/${of.length})`;
      });
      rows.push(`| ${language} | ${cells.join(' | ')} |`);
      progress(`acts ${language}: ${lines.length} messages, ${cells.join(', ')}`);
    }
  } finally {
    await service.close();
  }
  const body = [
    '#### Through the service: `npm run eval:answers -- --acts` (scripts/eval-answers.ts)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Command: \`${COMMAND}\` (${withModel ? 'with the configured model' : 'offline: the embedded default, no key'}); ${((performance.now() - started) / 1000).toFixed(1)} s`,
    '',
    `Every line of ${path.relative(REPO, ACTS_DIR)}/<language>.jsonl` + ' is the first message of its own session, sent to the real ChatService over knowledge/help-center. Small talk: neither escalated nor quoted. A request for a person: escalated with `escalation_reason` `customer_asked`. A look-alike question: searched (not `customer_asked`, and quoted or escalated as `not_in_help_center`).',
    '',
    '| language | small talk neither escalated nor quoted | requests escalated as customer_asked | look-alikes searched |',
    '| --- | ---: | ---: | ---: |',
    ...rows,
    '',
    ...(misses.length > 0 ? ['Not handled as labelled:', '', '| language | label | message | what the service did |', '| --- | --- | --- | --- |', ...misses, ''] : []),
  ];
  process.stdout.write(`${body.join('\n')}\n`);
  const writes = writeFile && writesActsSection;
  if (writes) writeMarkedSection(BENCHMARKS_FILE, ACTS_SECTION, [ACTS_SECTION.start, ...body, ACTS_SECTION.end].join('\n'));
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s${writes ? `; wrote ${BENCHMARKS_FILE}` : ''}`);
}

async function main(): Promise<void> {
  if (asSite) return mainAsSite();
  if (actsOnly) return mainActs();
  const started = performance.now();
  const sets = chosenSets();
  const helpCenter = await evaluateHelpCenter();
  const shopResults: { name: string; results: TurnResult[] }[] = [{ name: 'knowledge/help-center', results: helpCenter.results }];
  for (const dir of sets.shops) shopResults.push({ name: path.relative(REPO, dir), results: await evaluateShopSet(dir) });
  const setResults: SetResult[] = [];
  for (const dir of sets.conversations) setResults.push(await evaluateSet(dir));
  const latencies = helpCenter.results.map((r) => r.latencyMs).sort((a, b) => a - b);
  const median = latencies[Math.floor(latencies.length / 2)] ?? 0;

  const setSections = setResults.flatMap((r) => [
    `### ${r.name} (${r.documents} documents, ${r.conversations} conversations, ${r.turns.length} judged turns)`,
    '',
    ...setTable(r.turns),
    '',
    'Escalated, by answerability label:',
    '',
    ...escalationTable(r.results),
    '',
  ]);
  const pooled = setResults.flatMap((r) => r.turns.map((t) => ({ ...t, conversation: `${r.name}/${t.conversation}` })));
  const body = [
    '## `npm run eval:answers` (scripts/eval-answers.ts)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, Node ${process.version}`,
    `- Command: \`${COMMAND}\` (${withModel ? 'with the configured model' : 'offline: the embedded default, no key'})`,
    '',
    'Each dialogue is one session; every turn is a request to the real ChatService (PGlite in memory, the set\'s documents ingested as KNOWLEDGE_SEED_DIR). A turn hits at k when its labelled article is among the first k documents the answer cites. Escalated: the answer offered a person. Fact stated: the answer contains the labelled phrase (offline, the extractive responder quotes passages).',
    '',
    '### Our dialogues (eval/help-center-dialogues.jsonl over knowledge/help-center)',
    '',
    ...helpCenter.table,
    '',
    `Median time per turn: ${median.toFixed(1)} ms.`,
    '',
    '### Answer or hand over (issue 41)',
    '',
    'R@3 over the turns labelled with an article; the first quote holds the answer when the first sentence the answer quotes contains the labelled fact (order turns are answered from a tool and not counted); unanswerable: the off-topic turns, which the help center does not cover. Small talk should be neither escalated nor quoted, and a request for a person escalated with `escalation_reason` `customer_asked` (not marked when the answer has no reason).',
    '',
    ...judgementTable(shopResults),
    '',
    '### Published conversation sets',
    '',
    "Each set's conversations are sent turn by turn, judged and unjudged turns alike (for the history); judged turns are scored: a hit at k when any of the turn's judged documents is among the first k distinct documents cited. BM25: plain BM25 (k1 1.2, b 0.75) over whole documents with the turn's own words, computed by the script on the same files and turns (scripts/lib/plain-bm25.ts). The difference is the service's R@3 minus BM25's on the same turns, with a 95% interval from 2,000 bootstrap draws of conversations.",
    '',
    ...(setResults.length === 0 ? ['No conversation set was found under `../shared/eval/mtrag-*` (or given with --set): skipped.', ''] : setSections),
    ...(setResults.length > 1 ? [`### Pooled over the ${setResults.length} sets (${pooled.length} judged turns)`, '', ...setTable(pooled), ''] : []),
    ...(setResults.length > 0 ? ['### Sets side by side (retrieval and escalation)', '', ...languagesTable(setResults), ''] : []),
  ];
  const section = [SECTION.start, ...body, SECTION.end].join('\n');
  process.stdout.write(`${body.join('\n')}\n`);
  if (writeFile) writeMarkedSection(BENCHMARKS_FILE, SECTION, section);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s${writeFile ? `; wrote ${BENCHMARKS_FILE}` : ''}`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
