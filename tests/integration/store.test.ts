import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations, readMigrations } from '../../src/store/migrations';
import type { SqlStore } from '../../src/store/sql-store';
import { openTestStore } from '../support/database';

let db: SqlDatabase;
let store: SqlStore;

beforeAll(async () => {
  ({ db, store } = await openTestStore());
});
afterAll(async () => {
  await db.close();
});

describe('migrations', () => {
  it('records every file once, so applying again changes nothing', async () => {
    const files = await readMigrations();
    const recorded = await db.query<{ version: string }>('select version from schema_migrations order by version');
    expect(recorded.map((r) => r.version)).toEqual(files.map((f) => f.version));
    expect(await applyMigrations(db)).toEqual([]);
  });

  it('enables row-level security on every table', async () => {
    const tables = await db.query<{ relname: string; relrowsecurity: boolean }>(
      `select relname, relrowsecurity from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace order by relname`,
    );
    expect(tables.map((t) => t.relname)).toEqual([
      'answer_feedback',
      'chat_messages',
      'chat_sessions',
      'conversation_summaries',
      'customer_profiles',
      'documents',
      'erased_sessions',
      'erasure_audit',
      'idempotency_keys',
      'knowledge_chunk_languages',
      'knowledge_corpus_stats',
      'knowledge_embedding_models',
      'knowledge_postings',
      'knowledge_site_pages',
      'knowledge_source_stats',
      'knowledge_sync_lease',
      'knowledge_sync_runs',
      'knowledge_terms',
      'orders',
      'rate_limit_counters',
      'redaction_backfill',
      'schema_migrations',
      'service_secrets',
      'session_customers',
      'session_order_proofs',
      'tool_trials',
    ]);
    expect(tables.every((t) => t.relrowsecurity)).toBe(true);
  });

  it('indexes embeddings with HNSW under the cosine operator class that match_documents orders by', async () => {
    const [index] = await db.query<{ indexdef: string }>(
      `select indexdef from pg_indexes where indexname = 'documents_embedding_hnsw_idx'`,
    );
    expect(index!.indexdef).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
  });
});

describe('storing turns', () => {
  it('numbers messages per session without gaps and keeps the session metadata in step', async () => {
    const longQuestion = `Where is my parcel? ${'x'.repeat(300)}`;
    await store.appendTurn({
      sessionId: 'store-1',
      userId: 'lukas@example.com',
      agentType: 'support',
      messages: [
        { role: 'user', content: longQuestion, tokenCount: 90 },
        { role: 'assistant', content: 'It is on its way.', tokenCount: 9, confidence: 0.8, escalated: false, metadata: { model: 'm' } },
      ],
    });
    const second = await store.appendTurn({
      sessionId: 'store-1',
      userId: null,
      agentType: 'support',
      messages: [
        { role: 'user', content: 'Thanks!', tokenCount: 5 },
        { role: 'assistant', content: 'You are welcome.', tokenCount: 7, confidence: 0.1, escalated: true },
      ],
    });
    expect(second.map((m) => m.seq)).toEqual([3, 4]);

    const session = await store.getSession('store-1');
    expect(session).toMatchObject({
      userId: 'lukas@example.com',
      title: longQuestion.slice(0, 100),
      lastMessage: 'You are welcome.',
      messageCount: 4,
      escalated: true,
    });
    expect(session!.updatedAt.getTime()).toBeGreaterThanOrEqual(session!.createdAt.getTime());

    const all = await store.listRecentMessages('store-1', 100);
    expect(all.map((m) => [m.seq, m.role])).toEqual([[1, 'user'], [2, 'assistant'], [3, 'user'], [4, 'assistant']]);
    expect(all[1]).toMatchObject({ confidence: 0.8, escalated: false, metadata: { model: 'm' }, tokenCount: 9 });
    // Both rows of one turn share the transaction's timestamp: seq is what orders them.
    expect(all[0]!.createdAt.getTime()).toBe(all[1]!.createdAt.getTime());
  });

  it('lists the newest messages oldest first when limited', async () => {
    const recent = await store.listRecentMessages('store-1', 3);
    expect(recent.map((m) => m.seq)).toEqual([2, 3, 4]);
  });

  it('stores a turn entirely or not at all', async () => {
    await expect(
      store.appendTurn({
        sessionId: 'store-atomic',
        userId: null,
        agentType: 'support',
        messages: [
          { role: 'user', content: 'Hello', tokenCount: 4 },
          // An invalid role fails the check constraint on the second row.
          { role: 'robot' as 'assistant', content: 'Beep', tokenCount: 4 },
        ],
      }),
    ).rejects.toThrow();
    expect(await store.getSession('store-atomic')).toBeNull();
    const [row] = await db.query<{ n: number }>(`select count(*)::int as n from chat_messages where session_id = 'store-atomic'`);
    expect(row!.n).toBe(0);
  });

  it('returns null for a session that was never stored', async () => {
    expect(await store.getSession('never')).toBeNull();
    expect(await store.listRecentMessages('never', 10)).toEqual([]);
  });
});
