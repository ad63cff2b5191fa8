/**
 * The Supabase backend (supabase-js .rpc()) against a LOOPBACK STAND-IN for
 * PostgREST, not a real Supabase project: no PostgREST server can run here. The
 * stand-in (tests/support/postgrest-stand-in.ts) executes the migrations' SQL
 * functions on PGlite, so the store contract below runs the backend's real
 * requests against the real functions. `npm run test:supabase` runs the same
 * contract against a real project.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { EmbeddingModelMismatchError } from '../../src/errors';
import { loadLanguageDetector } from '../../src/knowledge/language/detect';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations } from '../../src/store/migrations';
import { seedSampleData } from '../../src/shop/sample-shop';
import { openPgliteDatabase } from '../../src/store/pglite';
import { SqlCommerceStore } from '../../src/store/commerce-store';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { HandoffStore } from '../../src/store/handoff-store';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { SqlStore } from '../../src/store/sql-store';
import { createSupabaseClient, supabaseFunctionCaller } from '../../src/store/supabase';
import { startPostgrestStandIn, type PostgrestStandIn } from '../support/postgrest-stand-in';
import { truncateAllTables } from '../support/postgres';
import { HELP_CENTER_DIR, TEST_AGENT_KEY } from '../support/test-service';
import { describeStoreContract } from './store.contract';

const SERVICE_ROLE_KEY = 'stand-in-service-role-key';

describeStoreContract('supabase-js against a loopback PostgREST stand-in (PGlite underneath)', async () => {
  const db = await openPgliteDatabase();
  await applyMigrations(db);
  const standIn = await startPostgrestStandIn(db, SERVICE_ROLE_KEY);
  const functions = supabaseFunctionCaller(createSupabaseClient({ url: standIn.url, serviceRoleKey: SERVICE_ROLE_KEY }));
  const store = new SqlStore(functions);
  return {
    chat: store,
    knowledge: store,
    knowledgeAdmin: new KnowledgeAdminStore(functions),
    rateLimits: new RateLimitCounters(functions),
    handoff: new HandoffStore(functions),
    customerData: new CustomerDataStore(functions),
    reset: () => truncateAllTables(db),
    close: async () => {
      await standIn.close();
      await db.close();
    },
  };
});

describe('what the Supabase backend sends (to the PostgREST stand-in)', () => {
  let db: SqlDatabase;
  let standIn: PostgrestStandIn;
  let store: SqlStore;

  beforeAll(async () => {
    // The service's start loads the language detector (a second or more of blocking work); this
    // process also runs the stand-in, whose idle keep-alive connections it would stall into
    // resets, so it is loaded before any connection is open (a real Supabase runs elsewhere).
    await loadLanguageDetector();
    db = await openPgliteDatabase();
    await applyMigrations(db);
    await seedSampleData(db);
    standIn = await startPostgrestStandIn(db, SERVICE_ROLE_KEY);
    store = new SqlStore(supabaseFunctionCaller(createSupabaseClient({ url: standIn.url, serviceRoleKey: SERVICE_ROLE_KEY })));
  });
  afterAll(async () => {
    await standIn?.close();
    await db?.close();
  });
  beforeEach(() => {
    standIn.requests.length = 0;
  });

  it('one POST /rest/v1/rpc/<function> per call, with the service key and the arguments by name as JSON', async () => {
    await store.appendTurn({
      sessionId: 'rpc-1',
      userId: 'lukas@example.com',
      agentType: 'support',
      messages: [
        { role: 'user', content: 'Hi', tokenCount: 3 },
        { role: 'assistant', content: 'Hello', tokenCount: 4, metadata: { sources: [] } },
      ],
    });
    expect(standIn.requests).toHaveLength(1);
    const [request] = standIn.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/rest/v1/rpc/append_turn', status: 200 });
    expect(request!.headers).toMatchObject({
      apikey: SERVICE_ROLE_KEY,
      authorization: `Bearer ${SERVICE_ROLE_KEY}`,
      'content-type': expect.stringContaining('application/json'),
    });
    // jsonb arguments travel as JSON, not as strings of JSON.
    expect(request!.body).toEqual({
      p_session_id: 'rpc-1',
      p_user_id: 'lukas@example.com',
      p_agent_type: 'support',
      p_messages: [
        expect.objectContaining({ role: 'user', content: 'Hi', token_count: 3, metadata: {} }),
        expect.objectContaining({ role: 'assistant', content: 'Hello', token_count: 4, metadata: { sources: [] } }),
      ],
    });
  });

  it('sends vectors in pgvector text form and text[] as JSON arrays', async () => {
    const embedding = Array.from({ length: 1536 }, (_, i) => (i === 0 ? 1 : 0));
    await store.replaceSourceChunks('docs/a.md', [
      { source: 'docs/a.md', title: 'A', chunkIndex: 0, content: 'a', contentHash: 'h-a', metadata: {}, embedding, embeddingModel: 'm' },
    ]);
    expect(await store.findEmbeddingsByHash(['h-a'], 'm')).toEqual(new Map([['h-a', embedding]]));
    const bodies = standIn.requests.map((r) => [r.path, r.body]);
    expect(bodies[0]).toEqual(['/rest/v1/rpc/replace_source_chunks', { p_source: 'docs/a.md', p_chunks: [expect.objectContaining({ embedding: `[${embedding.join(',')}]` })] }]);
    expect(bodies[1]).toEqual(['/rest/v1/rpc/embeddings_by_hash', { p_content_hashes: ['h-a'], p_embedding_model: 'm' }]);
  });

  it('turns PostgREST errors into errors with the SQLSTATE, so the store maps them as on the SQL backends', async () => {
    await expect(store.matchDocuments({ embedding: new Array(1536).fill(0.01), embeddingModel: 'other', count: 1, minSimilarity: 0 })).rejects.toBeInstanceOf(
      EmbeddingModelMismatchError,
    );
    expect(standIn.requests.at(-1)).toMatchObject({ status: 400, path: '/rest/v1/rpc/match_documents' });
  });

  it('says to apply the migrations when a function is missing, and refuses a wrong key', async () => {
    await db.exec('alter function storage_ping() rename to storage_ping_renamed');
    try {
      await expect(store.ping()).rejects.toThrow(/storage_ping\(\).*apply the migrations/);
    } finally {
      await db.exec('alter function storage_ping_renamed() rename to storage_ping');
    }
    const wrongKey = new SqlStore(supabaseFunctionCaller(createSupabaseClient({ url: standIn.url, serviceRoleKey: 'anon-key' })));
    await expect(wrongKey.getSession('rpc-1')).rejects.toThrow(/service role key/);
  });

  it('reads the tools\' orders and customers through their functions', async () => {
    const commerce = new SqlCommerceStore(supabaseFunctionCaller(createSupabaseClient({ url: standIn.url, serviceRoleKey: SERVICE_ROLE_KEY })));
    expect(await commerce.findOrder('ZX-14440')).toMatchObject({ orderId: 'ZX-14440', userId: 'lukas@example.com' });
    expect(await commerce.findCustomer('lukas@example.com')).toMatchObject({ name: 'Lukas Brandt', memberSince: '2021-03-14' });
    expect(await commerce.findOrder('ZX-00000')).toBeNull();
    expect(standIn.requests.map((r) => r.path)).toEqual(['/rest/v1/rpc/find_order', '/rest/v1/rpc/find_customer', '/rest/v1/rpc/find_order']);
  });

  it('serves the whole service with SUPABASE_URL: seeds the knowledge base, answers, keeps idempotency keys and rate-limit counts, reports on /health', async () => {
    await truncateAllTables(db);
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      SUPABASE_URL: standIn.url,
      SUPABASE_SERVICE_ROLE_KEY: SERVICE_ROLE_KEY,
      AGENT_API_KEY: TEST_AGENT_KEY,
      KNOWLEDGE_SEED_DIR: HELP_CENTER_DIR,
      OFFLINE_STREAM_DELAY_MS: '0',
      // The instant embedder, as the other services of the suite (the sentence encoder takes seconds to seed).
      OFFLINE_EMBEDDER: 'hashing',
    });
    const deps = await createDependencies(config, createLogger('silent'));
    // The redaction backfill runs through the API too: on an empty database, one batch call finds nothing.
    expect(await deps.redactionBackfill.finished()).toMatchObject({ finished: true, rowsRead: 0 });
    const server: Server = await new Promise((resolve) => {
      const s = createApp(deps.appParts).listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const post = () =>
        fetch(`${base}/api/v1/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'supabase-1' },
          body: JSON.stringify({ message: 'How long does a refund take?', session_id: 'supabase-session' }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const first = await post();
      const again = await post();
      expect(first.status).toBe(200);
      expect(first.body.sources.length).toBeGreaterThan(0);
      expect(again.body).toEqual(first.body);
      const [row] = await db.query<{ n: number }>(`select count(*)::int as n from chat_messages where session_id = 'supabase-session'`);
      expect(row!.n).toBe(2);
      expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: 'ok', storage: 'supabase' });
      // Everything went through the API (start-up check, seeding, the stored titles search_knowledge_base's
      // description names, the redaction backfill, rate limits, one answer, one replay, the session token's nonce).
      const called = standIn.requests.map((r) => r.path.split('/').at(-1));
      expect(new Set(called)).toEqual(
        new Set([
          'storage_ping', 'embedding_models', 'source_chunks', 'embeddings_by_hash', 'replace_source_chunks', 'rate_limit_hit',
          'get_session', 'claim_idempotency_key', 'hybrid_search', 'append_answer_turn', 'keep_service_secret', 'knowledge_sources',
          'session_token_nonce', 'redaction_backfill_batch',
          // The languages: stored chunks analysed at start, the conversation's language. No query_coverage:
          // an English question's confidence is its meaning (the store contract calls it over this API).
          'unanalysed_knowledge_sources', 'set_session_language',
          // /health: the last sync run of each configured site.
          'knowledge_sync_runs_recent',
        ]),
      );
      expect(called.filter((fn) => fn === 'append_answer_turn')).toHaveLength(1);
      expect(called.filter((fn) => fn === 'claim_idempotency_key')).toHaveLength(2);
      // Both requests counted per client address in the database (RATE_LIMIT_STORE defaults to it here); neither
      // against the session, since neither proved it (the first started it, the replay sent no token).
      const counts = await db.query<{ key: string; hits: number }>('select key, hits from rate_limit_counters order by key');
      expect(counts).toEqual([{ key: expect.stringMatching(/^chat-client:/), hits: 2 }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await deps.close();
    }
  });
});
