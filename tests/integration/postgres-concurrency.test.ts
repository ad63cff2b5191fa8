/**
 * Concurrent turns on a real PostgreSQL server (PGlite is one connection and
 * cannot show these bugs). Two stores over two pools stand for two instances of
 * the service; every turn is sent at once, then the rows are counted.
 */
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { SqlStore } from '../../src/store/sql-store';
import type { NewMessage } from '../../src/store/types';
import { seededRandom } from '../support/seeded-random';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';

const hasPgvector = testServerHasPgvector();

describeOnTestServer('concurrent turns on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let instances: Array<{ db: SqlDatabase; store: SqlStore }>;

  beforeAll(async () => {
    database = await createTestDatabase();
    instances = [0, 1].map(() => {
      const db = openPostgresDatabase({ connectionString: database.url, poolMax: 10 });
      return { db, store: new SqlStore(db) };
    });
    await migrateTestDatabase(instances[0]!.db, hasPgvector);
  });
  afterAll(async () => {
    for (const { db } of instances ?? []) await db.close();
    await database?.drop();
  });

  /** Turn k of a session: the question, k % 3 tool results, the answer; each names its turn. */
  function turnMessages(k: number): NewMessage[] {
    const tools = Array.from({ length: k % 3 }, (_, j): NewMessage => ({ role: 'tool', content: `tool ${k}.${j}`, tokenCount: 5, toolCallId: `c${k}.${j}`, name: 't' }));
    return [{ role: 'user', content: `question ${k}`, tokenCount: 5 }, ...tools, { role: 'assistant', content: `answer ${k}`, tokenCount: 5 }];
  }

  /** Sends every turn at once, alternating the two instances, in a shuffled order. */
  async function appendAllAtOnce(turns: Array<{ sessionId: string; k: number }>, seed: number): Promise<void> {
    const random = seededRandom(seed);
    const order = turns.map((t) => ({ t, r: random() })).sort((a, b) => a.r - b.r).map((x) => x.t);
    const results = await Promise.allSettled(
      order.map(({ sessionId, k }, i) =>
        instances[i % 2]!.store.appendTurn({ sessionId, userId: `user-${sessionId}`, agentType: 'support', messages: turnMessages(k) }),
      ),
    );
    const failures = results.filter((r) => r.status === 'rejected');
    expect(failures).toEqual([]);
  }

  /** What is stored for a session, read straight from the tables. */
  async function stored(sessionId: string) {
    const db = instances[0]!.db;
    const rows = await db.query<{ seq: number; role: string; content: string }>(
      'select seq, role, content from chat_messages where session_id = $1 order by seq',
      [sessionId],
    );
    const [session] = await db.query<{ message_count: number }>('select message_count from chat_sessions where session_id = $1', [sessionId]);
    return { rows, messageCount: session?.message_count };
  }

  /**
   * seq is 1..n without gaps or repeats, message_count is n, and the rows fall
   * into whole turns: each question directly followed by its own tool results and
   * answer, every turn exactly once.
   */
  async function expectWholeTurns(sessionId: string, ks: number[]): Promise<void> {
    const { rows, messageCount } = await stored(sessionId);
    const expectedRows = ks.reduce((n, k) => n + turnMessages(k).length, 0);
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: expectedRows }, (_, i) => i + 1));
    expect(messageCount).toBe(expectedRows);

    const seen: number[] = [];
    let i = 0;
    while (i < rows.length) {
      const k = Number(/^question (\d+)$/.exec(rows[i]!.content)?.[1]);
      expect({ seq: rows[i]!.seq, role: rows[i]!.role, opensTurn: Number.isInteger(k) }).toEqual({ seq: rows[i]!.seq, role: 'user', opensTurn: true });
      const expected = turnMessages(k).map((m) => [m.role, m.content]);
      expect(rows.slice(i, i + expected.length).map((r) => [r.role, r.content])).toEqual(expected);
      seen.push(k);
      i += expected.length;
    }
    expect(seen.sort((a, b) => a - b)).toEqual([...ks].sort((a, b) => a - b));
  }

  it('keeps 50 concurrent turns on one session whole, numbered without gaps, counted exactly', async () => {
    const ks = Array.from({ length: 50 }, (_, k) => k);
    await appendAllAtOnce(ks.map((k) => ({ sessionId: 'hot-session', k })), 1);
    await expectWholeTurns('hot-session', ks);
  });

  it('keeps 200 concurrent turns across 20 sessions apart and whole', async () => {
    const sessions = Array.from({ length: 20 }, (_, s) => `session-${s}`);
    const turns = sessions.flatMap((sessionId, s) => Array.from({ length: 10 }, (_, j) => ({ sessionId, k: s * 100 + j })));
    await appendAllAtOnce(turns, 2);

    for (const [s, sessionId] of sessions.entries()) {
      await expectWholeTurns(sessionId, Array.from({ length: 10 }, (_, j) => s * 100 + j));
    }
    const [total] = await instances[0]!.db.query<{ n: number }>(`select count(*)::int as n from chat_messages where session_id like 'session-%'`);
    expect(total!.n).toBe(turns.reduce((n, t) => n + turnMessages(t.k).length, 0));
  });

  it('opens a new session once when its first turns arrive together', async () => {
    await appendAllAtOnce(Array.from({ length: 20 }, (_, k) => ({ sessionId: 'brand-new', k })), 3);
    const [sessions] = await instances[0]!.db.query<{ n: number }>(`select count(*)::int as n from chat_sessions where session_id = 'brand-new'`);
    expect(sessions!.n).toBe(1);
    await expectWholeTurns('brand-new', Array.from({ length: 20 }, (_, k) => k));
  });
});
