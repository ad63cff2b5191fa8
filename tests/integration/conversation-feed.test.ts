/**
 * How an instance learns that a conversation has new messages another instance
 * stored: LISTEN/NOTIFY on its own connection to the real PostgreSQL server
 * (woken by the chat_messages trigger, reconnecting when the server drops the
 * connection), and the poll of the sessions' newest seq (here on PGlite).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ListeningConversationFeed, PollingConversationFeed } from '../../src/chat/conversation-feed';
import type { SqlDatabase } from '../../src/store/database';
import { HandoffStore } from '../../src/store/handoff-store';
import { openPgliteDatabase } from '../../src/store/pglite';
import { openPostgresDatabase } from '../../src/store/postgres';
import { SqlStore } from '../../src/store/sql-store';
import { applyMigrations } from '../../src/store/migrations';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';

/** Resolves with the number of wake-ups once `count` have come, or rejects after `timeoutMs`. */
function wakeCounter() {
  let wakes = 0;
  const waiters: Array<() => void> = [];
  return {
    onChange: () => {
      wakes++;
      waiters.splice(0).forEach((w) => w());
    },
    get wakes() {
      return wakes;
    },
    async atLeast(count: number, timeoutMs = 3000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (wakes < count) {
        if (Date.now() > deadline) throw new Error(`only ${wakes} of ${count} wake-ups within ${timeoutMs} ms`);
        await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(50)]);
      }
    },
  };
}

const turn = (sessionId: string) => ({
  sessionId,
  userId: null,
  agentType: 'support',
  messages: [
    { role: 'user' as const, content: 'Hello?', tokenCount: 3 },
    { role: 'assistant' as const, content: 'Hi.', tokenCount: 2 },
  ],
});

describeOnTestServer('LISTEN/NOTIFY feed on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  let feed: ListeningConversationFeed;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabase(db, testServerHasPgvector());
    feed = new ListeningConversationFeed(database.url);
    await feed.ready;
  });
  afterAll(async () => {
    await feed?.close();
    await db?.close();
    await database?.drop();
  });

  it("wakes a session's subscribers when another connection stores messages in it, and only them", async () => {
    const watched = wakeCounter();
    const other = wakeCounter();
    const stop = feed.subscribe('feed:watched', watched.onChange);
    feed.subscribe('feed:other', other.onChange);
    await new SqlStore(db).appendTurn(turn('feed:watched'));
    await watched.atLeast(1);
    expect(other.wakes).toBe(0);

    stop();
    await new SqlStore(db).appendTurn(turn('feed:watched'));
    await sleep(300);
    expect(watched.wakes).toBe(1);
  });

  it('reconnects when the server drops its connection, wakes every stream (notifications may have been lost), and keeps listening', async () => {
    const watched = wakeCounter();
    feed.subscribe('feed:reconnect', watched.onChange);
    const [killed] = await db.query<{ killed: boolean }>(
      `select pg_terminate_backend(pid) as killed from pg_stat_activity where query = 'listen chat_messages' and pid <> pg_backend_pid()`,
    );
    expect(killed).toEqual({ killed: true });
    await watched.atLeast(1, 5000); // the wake-up after reconnecting
    const afterReconnect = watched.wakes;
    await new SqlStore(db).appendTurn(turn('feed:reconnect'));
    await watched.atLeast(afterReconnect + 1);
  });
});

describe('polling feed (PGlite)', () => {
  let db: SqlDatabase;
  let feed: PollingConversationFeed;

  beforeAll(async () => {
    db = await openPgliteDatabase();
    await applyMigrations(db);
    feed = new PollingConversationFeed(new HandoffStore(db), 50);
  });
  afterAll(async () => {
    await feed?.close();
    await db?.close();
  });

  it("wakes a session's subscribers when its newest seq moves, and polls nothing once nobody listens", async () => {
    await new SqlStore(db).appendTurn(turn('poll:watched'));
    const watched = wakeCounter();
    const stop = feed.subscribe('poll:watched', watched.onChange);
    await watched.atLeast(1); // the first poll sees the seq for the first time
    await sleep(200);
    const settled = watched.wakes;
    expect(settled).toBe(1); // nothing new, no more wake-ups
    await new SqlStore(db).appendTurn(turn('poll:watched'));
    await watched.atLeast(settled + 1);

    stop();
    const seqs = jest.spyOn(HandoffStore.prototype, 'newestSeqs');
    await sleep(200);
    expect(seqs).not.toHaveBeenCalled();
    seqs.mockRestore();
  });

  it('wakes the streams of this instance at once when it stored the messages itself', () => {
    const watched = wakeCounter();
    feed.subscribe('poll:local', watched.onChange);
    feed.touch('poll:local');
    expect(watched.wakes).toBe(1);
  });
});
