/**
 * The full-text statistics hybrid_search reads (knowledge_postings, knowledge_source_stats,
 * knowledge_corpus_stats, knowledge_embedding_models) stay exactly what a recount of the
 * chunks gives: after adds, replacements and deletes on PGlite, and under concurrent
 * writers of one source on a real PostgreSQL server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openPgliteDatabase } from '../../src/store/pglite';
import { openPostgresDatabase } from '../../src/store/postgres';
import type { SqlDatabase, SqlQueryable } from '../../src/store/database';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { applyMigrations, MIGRATIONS_DIR } from '../../src/store/migrations';
import { SqlStore } from '../../src/store/sql-store';
import type { DocumentChunk } from '../../src/store/types';
import { createTestDatabase, describeOnTestServer, testServerHasPgvector } from '../support/postgres';
import { seededRandom } from '../support/seeded-random';

/** The statistics as stored, and as a recount of documents gives them, in the same order. */
async function statistics(db: SqlQueryable) {
  const stored = {
    postings: await db.query(`select lexeme, source, tf, doc_length from knowledge_postings order by lexeme, source`),
    sources: await db.query(`select source, doc_length, chunks from knowledge_source_stats order by source`),
    corpus: await db.query(`select sources::int as sources, total_length from knowledge_corpus_stats`),
    models: await db.query(`select embedding_model, chunks::int as chunks from knowledge_embedding_models order by embedding_model`),
    terms: await db.query(`select lexeme, df from knowledge_terms order by lexeme`),
  };
  const recounted = {
    postings: await db.query(`
      select u.lexeme, d.source, sum(coalesce(array_length(u.positions, 1), 1))::int as tf, l.doc_length
      from documents d cross join unnest(d.fts) as u
      join (select source, sum(length(fts))::double precision as doc_length from documents group by source) l on l.source = d.source
      group by u.lexeme, d.source, l.doc_length order by u.lexeme, d.source`),
    sources: await db.query(`select source, sum(length(fts))::double precision as doc_length, count(*)::int as chunks from documents group by source order by source`),
    corpus: await db.query(`select count(distinct source)::int as sources, coalesce(sum(length(fts)), 0)::double precision as total_length from documents`),
    models: await db.query(`select embedding_model, count(*)::int as chunks from documents group by embedding_model order by embedding_model`),
    terms: await db.query(`select u.lexeme, count(distinct d.source)::int as df from documents d cross join unnest(d.fts) as u group by u.lexeme order by u.lexeme`),
  };
  return { stored, recounted };
}

const WORDS = 'refund parcel courier invoice warranty kettle oak table delivery express klarna voucher address password account return label damaged'.split(' ');

function chunkText(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
}

const MODEL = 'statistics-test-model';
const unit = (i: number) => Array.from({ length: 1536 }, (_, j) => (j === i % 1536 ? 1 : 0));

function chunks(source: string, random: () => number, count: number, model = MODEL): DocumentChunk[] {
  return Array.from({ length: count }, (_, i) => ({
    source,
    title: `Title of ${source}`,
    chunkIndex: i,
    content: chunkText(random, 5 + Math.floor(random() * 30)),
    contentHash: `${source}-${i}-${random()}`,
    metadata: {},
    embedding: unit(i),
    embeddingModel: model,
  }));
}

describe('knowledge statistics on PGlite', () => {
  let db: SqlDatabase;
  let store: SqlStore;
  let admin: KnowledgeAdminStore;

  beforeAll(async () => {
    db = await openPgliteDatabase();
    await applyMigrations(db);
    store = new SqlStore(db);
    admin = new KnowledgeAdminStore(db);
  });
  afterAll(() => db.close());

  it('match a recount after every add, replacement, deletion and model change', async () => {
    const random = seededRandom(7);
    const check = async () => {
      const { stored, recounted } = await statistics(db);
      expect(stored).toEqual(recounted);
    };
    await check();
    await store.replaceSourceChunks('docs/a.md', chunks('docs/a.md', random, 3));
    await store.replaceSourceChunks('docs/b.md', chunks('docs/b.md', random, 5));
    await check();
    expect((await statistics(db)).stored.corpus).toEqual([{ sources: 2, total_length: expect.any(Number) }]);
    // Re-ingesting one article with other text and fewer chunks.
    await store.replaceSourceChunks('docs/a.md', chunks('docs/a.md', random, 1));
    await check();
    // Another model's chunks are counted apart, so a search can refuse them without a scan.
    await store.replaceSourceChunks('docs/c.md', chunks('docs/c.md', random, 2, 'older-model'));
    await check();
    await admin.deleteSource('docs/c.md');
    await admin.deleteSource('docs/a.md');
    await check();
    expect((await statistics(db)).stored.models).toEqual([{ embedding_model: MODEL, chunks: 5 }]);
    // A chunk changed in place (no ingest path does this today) is recounted too.
    await db.query(`update documents set content = 'courier courier courier' where source = 'docs/b.md' and chunk_index = 0`);
    await check();
    await admin.deleteSource('docs/b.md');
    await check();
    expect((await statistics(db)).stored.corpus).toEqual([{ sources: 0, total_length: 0 }]);
  });
});

/**
 * The documents table as the migrations make it, with the vector column as real[]:
 * for a server without pgvector (CI builds it, but may fail to), and the statistics never read the vectors.
 */
function documentsWithoutPgvector(): string {
  const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, '20261122000400_documents.sql'), 'utf8');
  return sql.replace('embedding vector(1536) not null', 'embedding real[] not null').replace(/^create index documents_embedding_hnsw_idx.*$/m, '');
}

describeOnTestServer('knowledge statistics under concurrent writers on a PostgreSQL server', () => {
  const hasPgvector = testServerHasPgvector();
  let drop: () => Promise<void>;
  let db: SqlDatabase;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 12 });
    if (hasPgvector) {
      await applyMigrations(db);
    } else {
      await db.exec(documentsWithoutPgvector());
      await db.exec(fs.readFileSync(path.join(MIGRATIONS_DIR, '20261125000400_knowledge_statistics.sql'), 'utf8'));
    }
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('keep them exact while eight writers replace and delete the same sources at once', async () => {
    const random = seededRandom(11);
    // What ingest does (replace_source_chunks: delete then insert, no lock) and what the
    // knowledge API does (the same under a per-source advisory lock), interleaved.
    const write = async (writer: number, round: number) => {
      const source = ['docs/shared.md', 'docs/other.md'][round % 2]!;
      const rows = chunks(source, random, 1 + ((writer + round) % 6));
      const locked = writer % 2 === 0;
      try {
        await db.transaction(async (tx) => {
          if (locked) await tx.query(`select pg_advisory_xact_lock(hashtextextended('documents:' || $1, 0))`, [source]);
          await tx.query('delete from documents where source = $1', [source]);
          if (writer === 7 && round % 3 === 0) return; // an article deleted outright
          for (const c of rows) {
            await tx.query(
              `insert into documents (source, title, chunk_index, content, content_hash, embedding, embedding_model)
               values ($1, $2, $3, $4, $5, $6, $7)`,
              [c.source, c.title, c.chunkIndex, c.content, c.contentHash, hasPgvector ? `[${c.embedding.join(',')}]` : c.embedding, c.embeddingModel],
            );
          }
        });
        return 'committed';
      } catch (error) {
        // Two unlocked writers of one source can collide on unique (source, chunk_index): one of them rolls back.
        if ((error as { code?: string }).code === '23505') return 'rolled back';
        throw error;
      }
    };
    const outcomes = await Promise.all(Array.from({ length: 8 }, async (_, writer) => {
      const done: string[] = [];
      for (let round = 0; round < 12; round++) done.push(await write(writer, round));
      return done;
    }));
    expect(outcomes.flat().filter((o) => o === 'committed').length).toBeGreaterThan(48);

    const { stored, recounted } = await statistics(db);
    expect(stored).toEqual(recounted);
    expect(stored.postings.length).toBeGreaterThan(0);
  });
});
