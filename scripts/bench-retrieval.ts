/**
 * npm run bench:retrieval [-- --sizes 1000,10000,100000] [--embedded-max 10000] [--misspell] [--no-write]
 *
 * What one retrieval costs as the knowledge base grows. For each size, a synthetic
 * knowledge base (articles of ten chunks of 150 words drawn from a Zipf-distributed
 * vocabulary of 20,000 words, vectors of 1,536 dimensions from the offline hashing
 * embedder) is loaded through the service's own store (replace_source_chunks, one
 * article a call, the full-text statistics maintained as in production; the HNSW index
 * is built after the load, as for any bulk import, then 20 articles are re-ingested
 * with the index in place, one at a time, as an edit would be), then 15
 * questions of 4–8 words, each with two earlier messages as a later turn has, are
 * searched for 5 times each:
 * - whole: the service's retriever (embedding the query included);
 * - SQL: hybrid_search alone.
 * With --misspell, each question's longest word has its second and third letters swapped, as a
 * typo would: every search then looks the knowledge base's vocabulary up for a word it lacks.
 * Also load throughput (chunks/s), the index build, the time to re-ingest one article,
 * the database's size, and EXPLAIN (ANALYZE) of the
 * vector side and of one word's postings at the largest size.
 *
 * Databases: the PostgreSQL server at TEST_DATABASE_URL or DATABASE_URL (it needs
 * pgvector; a new database per size, dropped afterwards), and the embedded default
 * (PGlite in memory) up to --embedded-max chunks (PGlite builds HNSW graphs slowly and
 * holds everything in memory). Progress goes to stderr; the table to stdout and BENCHMARKS.md.
 */
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL, type Embedder } from '../src/knowledge/embeddings';
import { createRetriever } from '../src/knowledge/retriever';
import type { SearchQuery } from '../src/knowledge/search-query';
import type { SqlDatabase } from '../src/store/database';
import { applyMigrations } from '../src/store/migrations';
import { openPgliteDatabase } from '../src/store/pglite';
import { openPostgresDatabase } from '../src/store/postgres';
import { SqlStore } from '../src/store/sql-store';
import { writeMarkedSection } from './lib/benchmarks-file';
import { CHUNKS_PER_ARTICLE, loadSyntheticKnowledge, syntheticKnowledge, VOCABULARY, WORDS_PER_CHUNK } from './lib/synthetic-knowledge';
import { seededRandom } from '../tests/support/seeded-random';

const REPO_ROOT = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO_ROOT, 'BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-retrieval:start -->', end: '<!-- bench-retrieval:end -->' };
const QUESTIONS = 15;
const REPEATS = 5;

const progress = (message: string) => process.stderr.write(`[bench:retrieval] ${message}\n`);
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The text with its longest word's second and third letters swapped (--misspell), else as it is. */
function misspelled(text: string): string {
  if (!process.argv.includes('--misspell')) return text;
  const words = text.split(' ');
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
  return words.map((w) => (w === longest ? w[0]! + w[2]! + w[1]! + w.slice(3) : w)).join(' ');
}

interface SizeResult {
  database: string;
  chunks: number;
  ingestPerSecond: number;
  indexSeconds: number;
  reingest: number[];
  sizeMb: number;
  whole: number[];
  sql: number[];
  plans?: { vector: string; postings: string };
}

async function measure(database: string, db: SqlDatabase, chunks: number, explain: boolean): Promise<SizeResult> {
  await applyMigrations(db);
  const store = new SqlStore(db);
  const embedder: Embedder = { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL };
  const random = seededRandom(chunks);
  const knowledge = syntheticKnowledge(store, embedder, random);
  const { text, article } = knowledge;
  const { articles, ingestPerSecond, indexSeconds } = await loadSyntheticKnowledge(db, knowledge, chunks, {
    progress: (message) => progress(`  ${database} ${chunks}: ${message}`),
    server: database === 'PostgreSQL',
  });
  const reingest: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await article(Math.floor(random() * articles));
    reingest.push(performance.now() - t);
  }

  const retriever = createRetriever(store, embedder, { topK: 4, minSimilarity: 0.1 });
  const questions: SearchQuery[] = Array.from({ length: QUESTIONS }, () => ({
    text: misspelled(text(4 + Math.floor(random() * 5))),
    method: 'message',
    history: [
      { text: text(4 + Math.floor(random() * 5)), weight: 0.2 },
      { text: text(4 + Math.floor(random() * 5)), weight: 0.1 },
    ],
  }));
  const whole: number[] = [];
  const sql: number[] = [];
  for (const q of questions) await retriever.retrieve(q); // warm-up
  for (let r = 0; r < REPEATS; r++) {
    for (const q of questions) {
      let t = performance.now();
      await retriever.retrieve(q);
      whole.push(performance.now() - t);
      const embedding = await embedder.embeddings.embedQuery(q.text);
      t = performance.now();
      await store.hybridSearch({ text: q.text, history: q.history!, embedding, embeddingModel: embedder.model, count: 4, minSimilarity: 0.1, fullTextWeight: 1, semanticWeight: 1 });
      sql.push(performance.now() - t);
    }
  }
  const [size] = await db.query<{ bytes: string }>('select pg_database_size(current_database())::text as bytes');
  let plans: SizeResult['plans'];
  if (explain) {
    const vector = `[${(await embedder.embeddings.embedQuery(questions[0]!.text)).join(',')}]`;
    // Under hybrid_search's own settings (enable_seqscan off, jit off).
    const vectorPlan = await db.transaction(async (tx) => {
      await tx.query('set local enable_seqscan = off');
      await tx.query('set local jit = off');
      return tx.query<Record<string, string>>(`explain (analyze, costs off) select d.source from documents d order by d.embedding <=> $1::vector limit 40`, [vector]);
    });
    const [lexeme] = await db.query<{ lexeme: string }>(`select lexeme from knowledge_terms order by df desc limit 1`);
    const postingsPlan = await db.query<Record<string, string>>(
      `explain (analyze, costs off) select p.source, p.tf, p.doc_length from knowledge_postings p where p.lexeme = $1 order by p.impact desc limit 1000`,
      [lexeme!.lexeme],
    );
    const text = (rows: Record<string, string>[]) => rows.map((r) => Object.values(r)[0]).join('\n');
    plans = { vector: text(vectorPlan), postings: `most common word "${lexeme!.lexeme}":\n${text(postingsPlan)}` };
  }
  return { database, chunks, ingestPerSecond, indexSeconds, reingest, sizeMb: Number(size!.bytes) / 1e6, whole, sql, plans };
}

async function onServer(url: string, chunks: number, explain: boolean): Promise<SizeResult> {
  const admin = new Pool({ connectionString: url, max: 1 });
  const name = `bench_retrieval_${chunks}_${process.pid}`;
  await admin.query(`create database ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = openPostgresDatabase({ connectionString: target.toString(), poolMax: 2 });
  try {
    return await measure('PostgreSQL', db, chunks, explain);
  } finally {
    await db.close();
    // --keep leaves the database for a closer look (psql, auto_explain).
    if (process.argv.includes('--keep')) progress(`kept database ${name}`);
    else await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const sizes = (arg('--sizes') ?? '1000,10000,100000').split(',').map(Number);
  const embeddedMax = Number(arg('--embedded-max') ?? 10_000);
  const url = process.env['TEST_DATABASE_URL'] || process.env['DATABASE_URL'];
  const results: SizeResult[] = [];
  if (url) {
    const pool = new Pool({ connectionString: url, max: 1 });
    const { rows } = await pool.query<{ version: string }>('select version()');
    await pool.end();
    progress(`PostgreSQL server: ${rows[0]!.version.split(',')[0]}`);
    for (const size of sizes) {
      progress(`PostgreSQL, ${size} chunks`);
      results.push(await onServer(url, size, size === Math.max(...sizes)));
    }
  } else {
    progress('no TEST_DATABASE_URL or DATABASE_URL: the PostgreSQL server part is skipped');
  }
  for (const size of sizes.filter((s) => s <= embeddedMax)) {
    progress(`PGlite, ${size} chunks`);
    const db = await openPgliteDatabase();
    try {
      results.push(await measure('PGlite (embedded)', db, size, false));
    } finally {
      await db.close();
    }
  }

  const median = (v: number[]) => percentile(v, 50);
  const table = [
    '| database | chunks | whole retrieval median ms | p95 ms | SQL alone median ms | p95 ms | load chunks/s | HNSW build s | re-ingest one article median ms | database MB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.database} | ${r.chunks.toLocaleString('en-US')} | ${median(r.whole).toFixed(1)} | ${percentile(r.whole, 95).toFixed(1)} | ${median(r.sql).toFixed(1)} | ${percentile(r.sql, 95).toFixed(1)} | ${r.ingestPerSecond.toFixed(0)} | ${r.indexSeconds.toFixed(1)} | ${median(r.reingest).toFixed(0)} | ${r.sizeMb.toFixed(0)} |`,
    ),
  ];
  const ratios = [...new Set(results.map((r) => r.database))].flatMap((database) => {
    const rows = results.filter((r) => r.database === database).sort((a, b) => a.chunks - b.chunks);
    if (rows.length < 2) return [];
    const [small, large] = [rows[0]!, rows[rows.length - 1]!];
    return [`- ${database}: whole retrieval median at ${large.chunks.toLocaleString('en-US')} chunks is ${(median(large.whole) / median(small.whole)).toFixed(2)}× the ${small.chunks.toLocaleString('en-US')}-chunk figure (SQL alone ${(median(large.sql) / median(small.sql)).toFixed(2)}×).`];
  });
  const planned = results.find((r) => r.plans);
  const body = [
    '## `npm run bench:retrieval` (scripts/bench-retrieval.ts)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}`,
    `- Command: \`npm run bench:retrieval${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\`${url ? ' with TEST_DATABASE_URL set to a PostgreSQL server with pgvector on loopback' : ''}`,
    '',
    `Synthetic knowledge bases: articles of ${CHUNKS_PER_ARTICLE} chunks of ${WORDS_PER_CHUNK} words drawn from a Zipf-distributed vocabulary of ${VOCABULARY.toLocaleString('en-US')} words, 1,536-dimension vectors from the hashing embedder, loaded one article a call through replace_source_chunks (full-text statistics maintained by their triggers as in production; the HNSW index built after the load, as for a bulk import), then 20 articles re-ingested one at a time with every index in place (an edit's cost). ${QUESTIONS} questions of 4–8 words, each with two earlier messages at weights 0.2 and 0.1, ${REPEATS} times each after a warm-up. Whole: the service's retriever, query embedding included; SQL alone: hybrid_search.`,
    '',
    ...table,
    '',
    ...ratios,
    ...(planned?.plans
      ? [
          '',
          `EXPLAIN (ANALYZE) at ${planned.chunks.toLocaleString('en-US')} chunks on ${planned.database}, under hybrid_search's settings: the vector side uses the HNSW index,`,
          '',
          '```',
          planned.plans.vector,
          '```',
          '',
          "and the full-text side reads a word's postings by the (lexeme, impact) index, at most 1,000 of them:",
          '',
          '```',
          planned.plans.postings,
          '```',
        ]
      : []),
  ];
  process.stdout.write(`${body.join('\n')}\n`);
  if (!process.argv.includes('--no-write')) writeMarkedSection(BENCHMARKS_FILE, MARKERS, [MARKERS.start, ...body, MARKERS.end].join('\n'));
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
