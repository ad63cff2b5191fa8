/**
 * Erasure racing turns on a real PostgreSQL server (TEST_DATABASE_URL), where
 * statements truly run at once: whatever the interleaving, an erased conversation
 * never comes back. Each turn is either stored before the erasure (and erased with
 * the rest) or refused with 410 conversation_erased; nothing else.
 */
import { ConversationErasedError } from '../../src/errors';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { SqlStore } from '../../src/store/sql-store';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';

const hasPgvector = testServerHasPgvector();

describeOnTestServer('erasure racing turns (PostgreSQL server)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 8 });
    await migrateTestDatabase(db, hasPgvector);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('turns stored at the same moment as the erasure are erased with it or refused, never left behind', async () => {
    const store = new SqlStore(db);
    const data = new CustomerDataStore(db);
    const outcomes = { stored: 0, refused: 0 };
    for (let round = 0; round < 25; round++) {
      const sessionId = `race-${round}`;
      await store.appendTurn({ sessionId, userId: 'racer@example.com', agentType: 'support', messages: [{ role: 'user', content: 'first', tokenCount: 1 }] });
      const turn = (i: number) =>
        store.appendTurn({
          sessionId,
          userId: 'racer@example.com',
          agentType: 'support',
          messages: [
            { role: 'user', content: `question ${i}`, tokenCount: 1 },
            { role: 'assistant', content: `answer ${i}`, tokenCount: 1 },
          ],
        });
      const settled = await Promise.allSettled([
        turn(1),
        turn(2),
        // Erasure in the middle of the turns, half the rounds by conversation, half by customer (the
        // conversation carries the customer's id as a label until the binding: include_labelled).
        round % 2 === 0 ? data.eraseConversation(sessionId, 'agent', null, false) : data.eraseCustomer('racer@example.com', 'c_racer', false, true),
        turn(3),
        db.query('select bind_session_customer($1, $2)', [sessionId, 'racer@example.com']),
      ]);
      for (const [i, s] of settled.entries()) {
        if (i === 2) {
          expect(s.status).toBe('fulfilled');
          continue;
        }
        if (s.status === 'fulfilled') outcomes.stored += 1;
        else {
          // The store says so in its own words; a binding refused by the database carries ER410.
          const reason = s.reason as { code?: string };
          expect(reason instanceof ConversationErasedError || reason.code === 'ER410').toBe(true);
          outcomes.refused += 1;
        }
      }
      const [left] = await db.query<{ sessions: number; messages: number; bindings: number }>(
        `select (select count(*)::int from chat_sessions where session_id = $1) as sessions,
                (select count(*)::int from chat_messages where session_id = $1) as messages,
                (select count(*)::int from session_customers where session_id = $1) as bindings`,
        [sessionId],
      );
      expect({ round, ...left }).toEqual({ round, sessions: 0, messages: 0, bindings: 0 });
    }
    // Both happened: some turns got in before the erasure (and were erased), some were refused after it.
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.stored + outcomes.refused).toBe(25 * 4);
  }, 60_000);
});
