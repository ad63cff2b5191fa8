/**
 * Idempotency keys on a real PostgreSQL server (TEST_DATABASE_URL): the SQL
 * functions (claim_idempotency_key, append_turn_idempotent,
 * release_idempotency_key) through the store, and the service's IdempotentRequests
 * on top, with two pools standing for two instances. A full chat request cannot
 * run here (retrieval needs pgvector, which this server lacks); the HTTP level
 * runs over PGlite's wire protocol in idempotency-api.test.ts.
 */
import { IdempotentRequests } from '../../src/chat/idempotency';
import type { ChatOutcome, ChatRequest } from '../../src/chat/answer-types';
import { IdempotencyInProgressError, IdempotencyKeyLostError, IdempotencyKeyReusedError } from '../../src/errors';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { SqlStore } from '../../src/store/sql-store';
import type { NewMessage } from '../../src/store/types';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';

const hasPgvector = testServerHasPgvector();
const TTL = { ttlSeconds: 3600, leaseSeconds: 300 };

describeOnTestServer('idempotency keys on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let instances: Array<{ db: SqlDatabase; store: SqlStore }>;
  const db = () => instances[0]!.db;
  const store = (i = 0) => instances[i % 2]!.store;

  beforeAll(async () => {
    database = await createTestDatabase();
    instances = [0, 1].map(() => {
      const pool = openPostgresDatabase({ connectionString: database.url, poolMax: 12 });
      return { db: pool, store: new SqlStore(pool) };
    });
    await migrateTestDatabase(instances[0]!.db, hasPgvector);
  });
  afterAll(async () => {
    for (const { db: pool } of instances ?? []) await pool.close();
    await database?.drop();
  });

  const turn = (content: string): NewMessage[] => [
    { role: 'user', content, tokenCount: 5 },
    { role: 'assistant', content: `answer to ${content}`, tokenCount: 5 },
  ];
  const count = async (sql: string, params: unknown[] = []) => (await db().query<{ n: number }>(sql, params))[0]!.n;
  const messagesOf = (sessionId: string) => count('select count(*)::int as n from chat_messages where session_id = $1', [sessionId]);

  it('claims a new key once; the same request then waits, another body is refused', async () => {
    const first = await store().claimIdempotencyKey('key-a', 'hash-1', 'idem-a', TTL);
    expect(first.outcome).toBe('claimed');
    expect(await store(1).claimIdempotencyKey('key-a', 'hash-1', 'idem-a', TTL)).toEqual({ outcome: 'in_progress' });
    expect(await store(1).claimIdempotencyKey('key-a', 'hash-2', 'idem-a', TTL)).toEqual({ outcome: 'mismatch' });
  });

  it('stores the turn with its key in one statement and hands the answer, with the stored message id, to every later claim', async () => {
    const claimed = await store().claimIdempotencyKey('key-b', 'hash-b', 'idem-b', TTL);
    if (claimed.outcome !== 'claimed') throw new Error(claimed.outcome);
    const rows = await store().appendTurn({
      sessionId: 'idem-b',
      userId: null,
      agentType: 'support',
      messages: turn('q'),
      idempotency: { ...claimed.claim, response: { session_id: 'idem-b', message_id: '', response: 'answer to q' } },
    });
    const again = await store(1).claimIdempotencyKey('key-b', 'hash-b', 'idem-b', TTL);
    expect(again).toEqual({
      outcome: 'completed',
      response: { session_id: 'idem-b', message_id: rows.at(-1)!.id, response: 'answer to q' },
      sessionCreated: true,
    });
    expect(await store(1).claimIdempotencyKey('key-b', 'another-body', 'idem-b', TTL)).toEqual({ outcome: 'mismatch' });
    expect(await messagesOf('idem-b')).toBe(2);
  });

  it('gives a released key to the next request, and no longer to the one that released it', async () => {
    const claimed = await store().claimIdempotencyKey('key-c', 'hash-c', 'idem-c', TTL);
    if (claimed.outcome !== 'claimed') throw new Error(claimed.outcome);
    expect(await store().releaseIdempotencyKey(claimed.claim)).toBe(true);
    expect(await store().releaseIdempotencyKey(claimed.claim)).toBe(false);
    const retry = await store(1).claimIdempotencyKey('key-c', 'hash-c', 'idem-c', TTL);
    expect(retry.outcome).toBe('claimed');
    await expect(
      store().appendTurn({ sessionId: 'idem-c', userId: null, agentType: 'support', messages: turn('late'), idempotency: { ...claimed.claim, response: {} } }),
    ).rejects.toBeInstanceOf(IdempotencyKeyLostError);
    expect(await messagesOf('idem-c')).toBe(0);
  });

  it('lets a retry take over a lapsed claim; the lapsed request then stores nothing', async () => {
    const lapsed = await store().claimIdempotencyKey('key-d', 'hash-d', 'idem-d', { ttlSeconds: 3600, leaseSeconds: 0 });
    const retry = await store(1).claimIdempotencyKey('key-d', 'hash-d', 'idem-d', TTL);
    if (lapsed.outcome !== 'claimed' || retry.outcome !== 'claimed') throw new Error('both should claim');
    expect(retry.claim.claimToken).not.toBe(lapsed.claim.claimToken);
    await expect(
      store().appendTurn({ sessionId: 'idem-d', userId: null, agentType: 'support', messages: turn('first'), idempotency: { ...lapsed.claim, response: {} } }),
    ).rejects.toBeInstanceOf(IdempotencyKeyLostError);
    await store(1).appendTurn({ sessionId: 'idem-d', userId: null, agentType: 'support', messages: turn('retry'), idempotency: { ...retry.claim, response: {} } });
    expect(await messagesOf('idem-d')).toBe(2);
  });

  it('forgets a key after its time to live, and deletes expired keys as it goes', async () => {
    const old = await store().claimIdempotencyKey('key-e', 'hash-e', 'idem-e', { ttlSeconds: 0, leaseSeconds: 300 });
    expect(old.outcome).toBe('claimed');
    for (let i = 0; i < 5; i++) await store().claimIdempotencyKey(`expired-${i}`, 'h', 'idem-expired', { ttlSeconds: 0, leaseSeconds: 300 });
    // Expired: the key is free again, even for another body.
    expect((await store(1).claimIdempotencyKey('key-e', 'another-body', 'idem-e', TTL)).outcome).toBe('claimed');
    expect(await count(`select count(*)::int as n from idempotency_keys where key like 'expired-%'`)).toBe(0);
  });

  it('claims a key exactly once when 20 requests ask for it at the same moment, from two pools', async () => {
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store(i).claimIdempotencyKey('key-hot', 'hash-hot', 'idem-hot', TTL)));
    expect(outcomes.filter((o) => o.outcome === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === 'in_progress')).toHaveLength(19);
  });

  describe('IdempotentRequests on two instances', () => {
    const logger = createLogger('silent');
    const requests = (i: number, waitMs: number) => new IdempotentRequests({ store: store(i), ttlHours: 1, waitMs, logger });
    const request: ChatRequest = { message: 'Where is my order?', sessionId: 'idem-flow' };

    /** One chat request as the route runs it, with a stand-in for the model that takes `modelMs`. */
    async function post(i: number, key: string, body: ChatRequest, waitMs: number, calls: { n: number }, modelMs = 150) {
      const idempotency = requests(i, waitMs);
      const start = await idempotency.begin(key, body, 'public');
      if ('replay' in start) return { replayed: true, outcome: start.replay };
      if ('replayQueued' in start) throw new Error('no message is queued here');
      const outcome = await idempotency.run(start, async (): Promise<ChatOutcome> => {
        calls.n++;
        await new Promise((r) => setTimeout(r, modelMs));
        const answer = { session_id: body.sessionId!, message_id: '', response: `answer ${calls.n}` } as unknown as ChatOutcome['answer'];
        const rows = await store(i).appendTurn({
          sessionId: body.sessionId!,
          userId: null,
          agentType: 'support',
          messages: turn(body.message),
          idempotency: { ...start.claim, response: { ...answer } },
        });
        return { answer: { ...answer, message_id: rows.at(-1)!.id }, sessionCreated: rows[0]!.seq === 1 };
      });
      return { replayed: false, outcome };
    }

    it('20 concurrent requests with one key: one model call, one stored turn, the same answer for all', async () => {
      const calls = { n: 0 };
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i, 'flow-1', request, 10_000, calls)));
      expect(calls.n).toBe(1);
      expect(await messagesOf('idem-flow')).toBe(2);
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      const first = results.find((r) => !r.replayed)!.outcome;
      for (const r of results) expect(r.outcome).toEqual(first);
    });

    it('without waiting, the duplicates are told 409 idempotency_in_progress, and still one turn is stored', async () => {
      const calls = { n: 0 };
      const body = { ...request, sessionId: 'idem-nowait' };
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => post(i, 'flow-2', body, 0, calls, 300)));
      const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
      expect(refused).toHaveLength(9);
      for (const error of refused) expect(error).toBeInstanceOf(IdempotencyInProgressError);
      expect(calls.n).toBe(1);
      expect(await messagesOf('idem-nowait')).toBe(2);
      // Once the first has finished, a retry gets its answer.
      expect((await post(1, 'flow-2', body, 0, calls)).replayed).toBe(true);
      expect(calls.n).toBe(1);
    });

    it('a failed request releases its key: the retry runs and stores the one turn', async () => {
      const body = { ...request, sessionId: 'idem-fails' };
      const idempotency = requests(0, 0);
      const start = await idempotency.begin('flow-3', body, 'public');
      if (!('claim' in start)) throw new Error('nothing to replay yet');
      await expect(idempotency.run(start, () => Promise.reject(new Error('model down')))).rejects.toThrow('model down');
      const calls = { n: 0 };
      expect((await post(1, 'flow-3', body, 0, calls)).replayed).toBe(false);
      expect(calls.n).toBe(1);
      expect(await messagesOf('idem-fails')).toBe(2);
    });

    it('the same key with another message is refused with idempotency_key_reused', async () => {
      const calls = { n: 0 };
      await post(0, 'flow-4', { ...request, sessionId: 'idem-reuse' }, 0, calls);
      await expect(post(1, 'flow-4', { ...request, sessionId: 'idem-reuse', message: 'Something else' }, 0, calls)).rejects.toBeInstanceOf(
        IdempotencyKeyReusedError,
      );
      expect(await messagesOf('idem-reuse')).toBe(2);
    });
  });
});
