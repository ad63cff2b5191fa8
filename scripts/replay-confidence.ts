/**
 * Replays the confidence rule on the passages an `npm run eval:answers -- --dump <file>` run
 * recorded, with and without its word evidence, to put escalation before and after side by side
 * on the very same retrievals (not a test; prints a table):
 *
 *   npx tsx scripts/replay-confidence.ts <dump.jsonl> [coverage floor] [--words-below <similarity>]
 *
 * --words-below S adds a column: the rule with coverage also asked of the encoder's languages
 * (English) when the best similarity is below S (a passage closer in meaning stands alone):
 * the weaker of the two. The variant measured, and not adopted, for issue 35 (BENCHMARKS.md).
 *
 * "Current rule" is retrievalConfidence as it is now; "meaning only" is retrievalConfidence with each document's queryCoverage and
 * semanticInLanguage removed: the rule as it was before coverage (the best similarity, a
 * passage found by its vector alone at half). For a question whose retrieval did not change
 * (English with the sentence encoder: the same ranking) it is what the service escalated
 * before. "Recorded" is what the run itself escalated, which the replay of the current rule
 * must equal (checked: a turn grounded by a tool is not escalated whatever its confidence).
 */
import fs from 'node:fs';
import { retrievalConfidence, WORD_COVERAGE_FLOOR } from '../src/agent/nodes/retrieve';
import { loadConfig } from '../src/config';
import type { RetrievedDocument } from '../src/store/types';

interface DumpedTurn {
  set: string;
  /** 1-based rank of the turn's judged document among those the answer cited; null: not cited. */
  rank: number | null;
  /** The turn's place in its dialogue: its search is searches[index] (one search a turn sent). */
  index: number;
  answerability: string | null;
  /** The help center dialogues' turn type (first, follow_up, …, off_topic); absent in older dumps. */
  type?: string;
  judged: boolean;
  escalated: boolean;
  confidence: number;
  searches: { text: string; documents: RetrievedDocument[] }[];
}

const wordsBelowAt = process.argv.indexOf('--words-below');
const wordsBelow = wordsBelowAt >= 0 ? Number(process.argv[wordsBelowAt + 1]) : null;
if (wordsBelow !== null && !Number.isFinite(wordsBelow)) throw new Error('--words-below takes a similarity, like 0.5');
const [file, floor] = process.argv.slice(2).filter((_, i, all) => all[i] !== '--words-below' && all[i - 1] !== '--words-below');
if (!file) throw new Error('usage: replay-confidence.ts <dump.jsonl> [coverage floor]');
const threshold = loadConfig({ LOG_LEVEL: 'silent', AGENT_API_KEY: 'replay' }).retrieval.escalationThreshold;
// Another floor than WORD_COVERAGE_FLOOR: the threshold the rule is given scales coverage by threshold / floor.
const ruleThreshold = floor ? (threshold * WORD_COVERAGE_FLOOR) / Number(floor) : threshold;
const turns = fs
  .readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as DumpedTurn);

const meaningOnly = (documents: RetrievedDocument[]) =>
  retrievalConfidence(documents.map((d) => (d.evidence ? { ...d, evidence: { ...d.evidence, queryCoverage: undefined, semanticInLanguage: undefined } } : d)));
const turnSearch = (t: DumpedTurn) => (t.searches.length > 1 ? t.searches[t.index] : t.searches[0])?.documents ?? [];

/** The --words-below variant: below that similarity, the encoder's languages also need the question's words. */
function wordsBelowConfidence(documents: RetrievedDocument[], below: number): number {
  const current = retrievalConfidence(documents, ruleThreshold);
  if (documents.some((d) => d.evidence?.semanticInLanguage === false) || current >= below) return current;
  const wordsOnly = documents.map((d) => (d.evidence ? { ...d, evidence: { ...d.evidence, semanticInLanguage: false } } : d));
  return documents.some((d) => d.evidence?.queryCoverage !== undefined) ? Math.min(current, retrievalConfidence(wordsOnly, ruleThreshold)) : current;
}

let mismatches = 0;
const rows = new Map<string, { n: number; recorded: number; before: number; after: number; variant: number }>();
for (const t of turns) {
  const label = t.answerability ?? (t.type === 'off_topic' ? 'OFF_TOPIC' : t.judged ? 'ANSWERABLE' : 'UNLABELLED');
  const key = `${t.set}\t${label}`;
  const row = rows.get(key) ?? { n: 0, recorded: 0, before: 0, after: 0, variant: 0 };
  const documents = turnSearch(t);
  const after = retrievalConfidence(documents, ruleThreshold);
  if (!floor && Math.abs(after - t.confidence) > 0.001) mismatches += 1;
  row.n += 1;
  row.recorded += t.escalated ? 1 : 0;
  row.before += meaningOnly(documents) < threshold ? 1 : 0;
  row.after += after < threshold ? 1 : 0;
  // What the run would have escalated: its own escalations (the responder's too) and the variant's.
  row.variant += wordsBelow !== null && (t.escalated || wordsBelowConfidence(documents, wordsBelow) < threshold) ? 1 : 0;
  rows.set(key, row);
}
const pct = (k: number, n: number) => `${((100 * k) / n).toFixed(1)}% (${k})`;
console.log(`threshold ${threshold}, coverage floor ${floor ?? WORD_COVERAGE_FLOOR}; ${turns.length} turns; ${mismatches} whose recorded confidence differs from the replayed rule's`);
const variantColumn = wordsBelow === null ? '' : ` recorded or words needed below ${wordsBelow} |`;
console.log(`| set | answerability | turns | escalated, meaning only (before) | escalated, current rule (after) | recorded by the run |${variantColumn}`);
console.log(`| --- | --- | ---: | ---: | ---: | ---: |${wordsBelow === null ? '' : ' ---: |'}`);
for (const [key, r] of [...rows].sort()) {
  const [set, label] = key.split('\t');
  console.log(`| ${set} | ${label} | ${r.n} | ${pct(r.before, r.n)} | ${pct(r.after, r.n)} | ${pct(r.recorded, r.n)} |${wordsBelow === null ? '' : ` ${pct(r.variant, r.n)} |`}`);
}

console.log('');
console.log('| set | judged turns | R@1 | R@3 |');
console.log('| --- | ---: | ---: | ---: |');
for (const set of [...new Set(turns.map((t) => t.set))].sort()) {
  const judged = turns.filter((t) => t.set === set && t.judged);
  const at = (k: number) => `${((100 * judged.filter((t) => t.rank !== null && t.rank <= k).length) / Math.max(1, judged.length)).toFixed(1)}%`;
  console.log(`| ${set} | ${judged.length} | ${at(1)} | ${at(3)} |`);
}
