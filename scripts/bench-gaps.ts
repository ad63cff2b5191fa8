/**
 * npm run bench:gaps: how well knowledge gaps group unanswered questions, and what grouping
 * costs. On the labelled paraphrase set (tests/fixtures/gap-paraphrases.ts: English and
 * German paraphrase groups plus unrelated questions), purity, pairwise recall and wrong merges
 * for each word-overlap threshold, with words alone (the hashing embedder's similarity is word overlap
 * again, so the service uses words alone with it) and with the sentence encoder's vectors (English
 * only, as the service uses it); then the time to group
 * 300 (the insights' limit) and 1,000 unanswered askings, and GET /api/v1/knowledge/insights on the
 * real service (PGlite, offline) with 1,000 unanswered askings stored.
 *
 * Writes its tables into BENCHMARKS.md (section bench-gaps).
 */
import path from 'node:path';
import { SentenceEncoderEmbeddings, USE_LITE_EMBEDDING_MODEL, USE_LITE_LANGUAGES, type Embedder } from '../src/knowledge/embeddings';
import { GAP_THRESHOLDS, groupGaps, linkAsks, QuestionVectors } from '../src/knowledge/gaps';
import type { UnansweredAsk } from '../src/store/knowledge-admin-store';
import { GAP_PARAPHRASES, scoreGrouping } from '../tests/fixtures/gap-paraphrases';
import { startTestService } from '../tests/support/test-service';
import { writeMarkedSection } from './lib/benchmarks-file';

const BENCHMARKS_FILE = path.resolve(__dirname, '../BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-gaps:start -->', end: '<!-- bench-gaps:end -->' };
const WORD_THRESHOLDS = [0.4, 0.45, 0.5, 0.55, 0.6, 1.01];
const SIMILARITY_THRESHOLDS = [0.6, 0.7, 0.8, 0.9];

function asksOf(questions: ReadonlyArray<{ question: string; language: string }>): UnansweredAsk[] {
  return questions.map((q, i) => ({
    question: q.question,
    sessionId: `s${i}`,
    askedAt: new Date(Date.UTC(2026, 10, 1) + i * 1000),
    confidence: 0.1,
    escalated: true,
    escalationReason: 'not_in_help_center',
    language: q.language,
  }));
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const asks = asksOf(GAP_PARAPHRASES);
  const labels = GAP_PARAPHRASES.map((q) => q.label);
  const embedders: Array<[string, Embedder | null]> = [
    ['words only', null],
    [USE_LITE_EMBEDDING_MODEL, { embeddings: new SentenceEncoderEmbeddings(), model: USE_LITE_EMBEDDING_MODEL, languages: USE_LITE_LANGUAGES }],
  ];
  const lines = [
    `Grouping ${asks.length} labelled questions (${new Set(labels).size} labels: paraphrase groups in en and de, and unrelated questions). ` +
      `Purity / pairwise recall / wrong merges. The service uses word overlap ${GAP_THRESHOLDS.wordOverlap} and similarity ${GAP_THRESHOLDS.similarity}.`,
    '',
    '| vectors | similarity ≥ | ' + WORD_THRESHOLDS.map((w) => (w > 1 ? 'no word rule' : `words ≥ ${w}`)).join(' | ') + ' |',
    '| --- | --- | ' + WORD_THRESHOLDS.map(() => '---').join(' | ') + ' |',
  ];
  for (const [name, embedder] of embedders) {
    const vectors = embedder ? new QuestionVectors(embedder) : undefined;
    for (const similarity of embedder ? SIMILARITY_THRESHOLDS : [Infinity]) {
      const cells: string[] = [];
      for (const wordOverlap of WORD_THRESHOLDS) {
        const { group } = await linkAsks(asks, vectors, { wordOverlap, similarity });
        const s = scoreGrouping(group, labels);
        cells.push(`${pct(s.purity)} / ${pct(s.recall)} / ${s.merges}`);
      }
      lines.push(`| ${name} | ${embedder ? similarity : '–'} | ${cells.join(' | ')} |`);
    }
  }

  lines.push('', '| askings grouped | vectors | time (ms, vectors cached as the service keeps them) |', '| --- | --- | --- |');
  for (const n of [300, 1000]) {
    const many = asksOf(Array.from({ length: n }, (_, i) => GAP_PARAPHRASES[i % GAP_PARAPHRASES.length]!).map((q, i) => ({ ...q, question: `${q.question} ${i % 7 === 0 ? '' : `(${i})`}` })));
    for (const [name, embedder] of embedders) {
      const vectors = embedder ? new QuestionVectors(embedder) : undefined;
      await groupGaps(many, vectors);
      const started = performance.now();
      await groupGaps(many, vectors);
      lines.push(`| ${n} | ${name} | ${(performance.now() - started).toFixed(0)} |`);
    }
  }
  lines.push('', await insightsLatency(1000));
  const table = lines.join('\n');
  console.log(table);
  writeMarkedSection(BENCHMARKS_FILE, MARKERS, `${MARKERS.start}\n### Knowledge gaps (npm run bench:gaps)\n\n${table}\n${MARKERS.end}`);
}

/** The endpoint on the embedded default with `n` unanswered askings stored: the median of five calls after one. */
async function insightsLatency(n: number): Promise<string> {
  const service = await startTestService();
  try {
    for (let i = 0; i < n; i++) {
      const q = GAP_PARAPHRASES[i % GAP_PARAPHRASES.length]!;
      await service.deps.store.appendTurn({
        sessionId: `bench-gap-${i}`,
        userId: null,
        agentType: 'support',
        messages: [
          { role: 'user', content: `${q.question} (${i})`, tokenCount: 10 },
          { role: 'assistant', content: 'a', tokenCount: 1, confidence: 0.05, escalated: true, escalationReason: 'not_in_help_center' },
        ],
      });
    }
    await service.request('GET', '/api/v1/knowledge/insights?limit=100');
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const response = await service.request('GET', '/api/v1/knowledge/insights?limit=100');
      if (response.status !== 200) throw new Error(`insights answered ${response.status}`);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return `GET /api/v1/knowledge/insights?limit=100 with ${n} unanswered askings stored (PGlite, offline; the newest 300 grouped): median ${times[2]!.toFixed(0)} ms of 5.`;
  } finally {
    await service.close();
  }
}

void main();
