/**
 * The knowledge base knows each document's language (issue 35): articles are ingested with
 * their language detected (no language named), indexed with its analysis, and found by
 * questions in that language through the real hybrid_search, on PGlite and on the PostgreSQL
 * server. And the migration that brought languages re-indexes a knowledge base stored by the
 * code before it (migrations up to 20261126000800, chunks without a language) without losing
 * a chunk.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL, type Embedder } from '../../src/knowledge/embeddings';
import { chunkContentHash, chunkEmbeddingInput, ingestDocument, type KnowledgeWriter } from '../../src/knowledge/ingest';
import { analyseStoredKnowledge } from '../../src/knowledge/language/reindex';
import type { SqlDatabase } from '../../src/store/database';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { applyMigrations, readMigrations } from '../../src/store/migrations';
import { openPgliteDatabase } from '../../src/store/pglite';
import { openPostgresDatabase } from '../../src/store/postgres';
import { SqlStore } from '../../src/store/sql-store';
import type { DocumentChunk } from '../../src/store/types';
import { createTestDatabase, describeOnTestServer, testServerHasPgvector } from '../support/postgres';

const embedder: Embedder = { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL };
const LANGUAGES_MIGRATION = '20261126000800';

/** One article per language, and a neighbour in the same language about something else. */
const ARTICLES: { source: string; text: string }[] = [
  {
    source: 'de/bestellungen.md',
    text: '# Stornierung\n\nEine Bestellung kann innerhalb von zwei Stunden nach dem Kauf storniert werden. Danach wird die Bestellung bereits verpackt.',
  },
  {
    source: 'de/versand.md',
    text: '# Versand\n\nWir liefern innerhalb von drei Werktagen. Die Lieferung ins Ausland dauert länger und kostet einen Aufschlag.',
  },
  {
    source: 'zh/returns.md',
    text: '# 退货政策\n\n您可以在收到商品后三十天内申请退货。请保留原包装和发票，我们会在收到退货后五个工作日内退款。',
  },
  {
    source: 'zh/shipping.md',
    text: '# 配送时间\n\n我们通常在下单后两到三天内发货，偏远地区的配送可能需要更长时间。',
  },
  {
    source: 'ja/returns.md',
    text: '# 返品について\n\n商品到着後三十日以内であれば返品を受け付けます。返金は返品の受領後五営業日以内に行います。',
  },
  {
    source: 'ja/shipping.md',
    text: '# 配送について\n\n通常、ご注文から二、三日で発送いたします。離島への配送には追加の日数がかかります。',
  },
  {
    source: 'th/returns.md',
    text: '# การคืนสินค้า\n\nคุณสามารถคืนสินค้าได้ภายในสามสิบวันหลังจากได้รับสินค้า เราจะคืนเงินภายในห้าวันทำการหลังจากได้รับสินค้าที่ส่งคืน',
  },
  {
    source: 'th/shipping.md',
    text: '# การจัดส่ง\n\nเราจัดส่งพัสดุภายในสองถึงสามวันหลังจากการสั่งซื้อ พื้นที่ห่างไกลอาจใช้เวลานานกว่านั้น',
  },
  {
    source: 'en/warranty.md',
    text: '# Warranty\n\nEvery kettle carries a two-year warranty. Send us a photo of the damaged kettle and we replace it.',
  },
];

/** Searches by words alone (no vector weight), so what is found is what the full text finds. */
async function searchWords(store: SqlStore, text: string) {
  const embedding = await embedder.embeddings.embedQuery(text);
  return store.hybridSearch({ text, history: [], embedding, embeddingModel: embedder.model, count: 3, minSimilarity: 0, fullTextWeight: 1, semanticWeight: 0 });
}

function writerOf(store: SqlStore, admin: KnowledgeAdminStore): KnowledgeWriter {
  return {
    listSourceChunks: (source) => store.listSourceChunks(source),
    findEmbeddingsByHash: (hashes, model) => store.findEmbeddingsByHash(hashes, model),
    replaceSourceChunks: (source, chunks) => admin.replaceSourceChunks(source, chunks),
  };
}

function languageSuite(open: () => Promise<{ db: SqlDatabase; close(): Promise<void> }>) {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let store: SqlStore;

  beforeAll(async () => {
    ({ db, close } = await open());
    await applyMigrations(db);
    store = new SqlStore(db);
    const admin = new KnowledgeAdminStore(db);
    for (const article of ARTICLES) await ingestDocument({ source: article.source, text: article.text, format: 'markdown' }, writerOf(store, admin), embedder);
  }, 120_000);
  afterAll(() => close());

  it('detects each document’s language with no language named, and indexes it with its configuration', async () => {
    const rows = await db.query<{ source: string; language: string; config: string }>(
      `select distinct source, language, text_config::text as config from documents order by source`,
    );
    expect(rows).toEqual([
      { source: 'de/bestellungen.md', language: 'de', config: 'german' },
      { source: 'de/versand.md', language: 'de', config: 'german' },
      { source: 'en/warranty.md', language: 'en', config: 'english' },
      { source: 'ja/returns.md', language: 'ja', config: 'simple' },
      { source: 'ja/shipping.md', language: 'ja', config: 'simple' },
      { source: 'th/returns.md', language: 'th', config: 'simple' },
      { source: 'th/shipping.md', language: 'th', config: 'simple' },
      { source: 'zh/returns.md', language: 'zh', config: 'simple' },
      { source: 'zh/shipping.md', language: 'zh', config: 'simple' },
    ]);
    const languages = await store.knowledgeLanguages();
    expect([...languages].sort()).toEqual(['de', 'en', 'ja', 'th', 'zh']);
    // Most chunks first: each language has two articles of one chunk, English one.
    expect(languages.at(-1)).toBe('en');
  });

  it('finds "Bestellung" from "Bestellungen" by German stemming', async () => {
    const found = await searchWords(store, 'Wie storniere ich meine Bestellungen?');
    expect(found[0]?.source).toBe('de/bestellungen.md');
    expect(found[0]?.fullTextRank).toBe(1);
  });

  it('reads a German compound the help center does not write as one word as its two parts', async () => {
    // versand.md has "Ausland" and "Aufschlag", never "Auslandsaufschlag" (a linking "s" between).
    const question = 'Wie hoch ist der Auslandsaufschlag?';
    const found = await searchWords(store, question);
    expect(found[0]?.source).toBe('de/versand.md');
    expect(found[0]?.fullTextRank).toBe(1);
    const parts = await db.query<{ lexeme: string }>(`select lexeme from query_lexemes($1)`, [question]);
    expect(parts.map((l) => l.lexeme)).toEqual(expect.arrayContaining(['ausland', 'aufschlag']));
    expect(parts.map((l) => l.lexeme)).not.toContain('auslandsaufschlag');
    // Confidence reads the same words: the parts count as covered.
    const coverage = await store.queryCoverage(question, ['de/versand.md', 'de/bestellungen.md']);
    expect(coverage.get('de/versand.md')).toBeGreaterThan(coverage.get('de/bestellungen.md')! + 0.2);
  });

  it.each([
    ['Chinese', '我想退货，怎么申请退款？', 'zh/returns.md'],
    ['Japanese', '返品したいのですが、返金はいつになりますか？', 'ja/returns.md'],
    ['Thai', 'ฉันจะขอคืนเงินได้อย่างไร', 'th/returns.md'],
  ])('finds the %s article for a question in its language (%s)', async (_language, question, source) => {
    const found = await searchWords(store, question);
    expect(found[0]?.source).toBe(source);
    expect(found[0]?.fullTextRank).toBe(1);
  });

  it('keeps finding English by English stemming beside the other languages', async () => {
    const found = await searchWords(store, 'My kettles arrived damaged');
    expect(found[0]?.source).toBe('en/warranty.md');
  });
}

/** Chunks as the code before 20261126000800 stored them: no language, indexed as English. */
function chunksBeforeLanguages(source: string, title: string, contents: string[]): DocumentChunk[] {
  return contents.map((content, chunkIndex) => {
    const embeddingInput = chunkEmbeddingInput(title, content);
    return {
      source,
      title,
      chunkIndex,
      content,
      contentHash: chunkContentHash(embeddingInput, undefined, undefined),
      metadata: { format: 'markdown' },
      // Any vector of the right width: the migration must keep the vectors of unchanged text.
      embedding: Array.from({ length: 1536 }, (_, i) => (i === chunkIndex ? 1 : 0)),
      embeddingModel: embedder.model,
    };
  });
}

function migrationSuite(open: () => Promise<{ db: SqlDatabase; close(): Promise<void> }>) {
  let db: SqlDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await open());
    // The schema as it was before languages, and a knowledge base stored by that code.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'migrations-before-languages-'));
    try {
      for (const m of await readMigrations()) {
        if (m.version < LANGUAGES_MIGRATION) await fs.writeFile(path.join(dir, `${m.version}_${m.name}.sql`), m.sql);
      }
      await applyMigrations(db, dir);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    const old = new SqlStore(db);
    await old.replaceSourceChunks(
      'help/refunds.md',
      chunksBeforeLanguages('Refunds', 'Refunds', ['Refunds are issued within five business days.', 'Returned  items must be   unused.']),
    );
    await old.replaceSourceChunks(
      'hilfe/bestellungen.md',
      chunksBeforeLanguages('Bestellungen', 'Bestellungen', ['Eine Bestellung kann innerhalb von zwei Stunden storniert werden, danach wird sie verpackt.']),
    );
    await old.replaceSourceChunks('zh/returns.md', chunksBeforeLanguages('退货政策', '退货政策', ['您可以在收到商品后三十天内申请退货，我们会在五个工作日内退款。']));
  }, 120_000);
  afterAll(() => close());

  it('re-indexes every chunk with its language, losing none', async () => {
    const before = await db.query<{ source: string; chunk_index: number; content: string }>(
      `select source, chunk_index, content from documents order by source, chunk_index`,
    );
    expect(before).toHaveLength(4);

    await applyMigrations(db);
    const store = new SqlStore(db);
    // Until the service analyses them, the chunks are searched exactly as before (English).
    expect((await searchWords(store, 'refund'))[0]?.source).toBe('help/refunds.md');

    const analysed = await analyseStoredKnowledge({ store, admin: new KnowledgeAdminStore(db), embedder });
    expect(analysed).toMatchObject({ sources: 3, chunks: 4, embedded: 1, skipped: 0, languages: { en: 1, de: 1, zh: 1 } });

    const after = await db.query<{ source: string; chunk_index: number; content: string; language: string; config: string }>(
      `select source, chunk_index, content, language, text_config::text as config from documents order by source, chunk_index`,
    );
    expect(after.map((r) => [r.source, r.chunk_index])).toEqual(before.map((r) => [r.source, r.chunk_index]));
    expect(after.map((r) => [r.source, r.language, r.config])).toEqual([
      ['help/refunds.md', 'en', 'english'],
      ['help/refunds.md', 'en', 'english'],
      ['hilfe/bestellungen.md', 'de', 'german'],
      ['zh/returns.md', 'zh', 'simple'],
    ]);
    // Runs of spaces collapsed, as chunking now does; every other text unchanged.
    expect(after[1]!.content).toBe('Returned items must be unused.');
    expect(after.filter((_, k) => k !== 1).map((r) => r.content)).toEqual(before.filter((_, k) => k !== 1).map((r) => r.content));

    // The statistics follow the new lexemes: German stemming and cut Chinese words are found.
    expect((await searchWords(store, 'Bestellungen stornieren'))[0]?.source).toBe('hilfe/bestellungen.md');
    expect((await searchWords(store, '怎么申请退款'))[0]?.source).toBe('zh/returns.md');
    expect((await searchWords(store, 'refund'))[0]?.source).toBe('help/refunds.md');
    const [{ stale }] = (await db.query<{ stale: number }>(`
      select count(*)::int as stale from (
        select u.lexeme, d.source from documents d cross join unnest(d.fts) as u
        except select lexeme, source from knowledge_postings
      ) x`)) as [{ stale: number }];
    expect(stale).toBe(0);

    // Done once: a second start finds nothing left to analyse.
    expect(await analyseStoredKnowledge({ store, admin: new KnowledgeAdminStore(db), embedder })).toMatchObject({ sources: 0, skipped: 0 });
  });
}

async function openPglite() {
  const db = await openPgliteDatabase();
  return { db, close: () => db.close() };
}

async function openServer() {
  const database = await createTestDatabase();
  const db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
  return {
    db,
    close: async () => {
      await db.close();
      await database.drop();
    },
  };
}

describe('document languages on PGlite', () => languageSuite(openPglite));
describe('the languages migration on PGlite', () => migrationSuite(openPglite));

if (testServerHasPgvector()) {
  describeOnTestServer('document languages on the PostgreSQL server', () => languageSuite(openServer));
  describeOnTestServer('the languages migration on the PostgreSQL server', () => migrationSuite(openServer));
} else {
  describeOnTestServer('document languages on the PostgreSQL server', () => {
    it.skip('needs pgvector on the test server', () => {});
  });
}
