/**
 * Row-level security: every table has it on and no policy, so Supabase's `anon`
 * role (what a browser with the public key is) reads nothing, directly or through
 * the functions. The role is created where it is missing and granted what
 * Supabase grants it (usage on the schema, every privilege on the tables), then
 * the test reads as anon. On PGlite and on the PostgreSQL server.
 */
import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations } from '../../src/store/migrations';
import { seedSampleData } from '../../src/shop/sample-shop';
import { openPgliteDatabase } from '../../src/store/pglite';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { SqlStore } from '../../src/store/sql-store';
import { describeOnTestServer, openMigratedTestDatabase } from '../support/postgres';

const GRANT_LIKE_SUPABASE = `
  do $$ begin
    create role anon nologin;
  exception when duplicate_object or unique_violation then null; -- exists (roles are per server)
  end $$;
  grant usage on schema public to anon;
  grant all on all tables in schema public to anon;`;

function describeRowLevelSecurity(backend: string, open: () => Promise<{ db: SqlDatabase; close(): Promise<void> }>): void {
  describe(`row-level security on ${backend}`, () => {
    let db: SqlDatabase;
    let close: () => Promise<void>;
    let tables: string[];

    beforeAll(async () => {
      ({ db, close } = await open());
      const store = new SqlStore(db);
      await store.appendTurn({
        sessionId: 'rls-session',
        userId: 'lukas@example.com',
        agentType: 'support',
        messages: [
          { role: 'user', content: 'Where is my order ZX-14440?', tokenCount: 9 },
          { role: 'assistant', content: 'It was delivered.', tokenCount: 6 },
        ],
      });
      await store.saveSummary('rls-session', { summary: 'Asked about ZX-14440.', throughSeq: 2, shareWithUser: true });
      await store.claimIdempotencyKey('rls-key', 'hash', 'rls-session', { ttlSeconds: 3600, leaseSeconds: 300 });
      await new RateLimitCounters(db).hit('chat-client:rls', 60_000);
      await db.exec(GRANT_LIKE_SUPABASE);
      tables = (await db.query<{ tablename: string }>(`select tablename from pg_tables where schemaname = 'public' order by tablename`)).map((r) => r.tablename);
    });
    afterAll(async () => {
      await close?.();
    });

    /** Runs `work` as anon, in a transaction that is rolled back. */
    async function asAnon<T>(work: (tx: SqlDatabase) => Promise<T>): Promise<T> {
      let result: T;
      await db
        .transaction(async (tx) => {
          await tx.exec('set local role anon');
          result = await work(tx as SqlDatabase);
          throw new Error('roll back');
        })
        .catch((error: Error) => {
          if (error.message !== 'roll back') throw error;
        });
      return result!;
    }

    it('has row-level security on every table, and no policy that would let anon or authenticated in', async () => {
      expect(tables).toEqual(expect.arrayContaining(['chat_messages', 'chat_sessions', 'conversation_summaries', 'idempotency_keys', 'orders', 'customer_profiles', 'rate_limit_counters', 'schema_migrations']));
      const withoutRls = await db.query(`select relname from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' and not relrowsecurity`);
      expect(withoutRls).toEqual([]);
      expect(await db.query(`select tablename, policyname from pg_policies where schemaname = 'public'`)).toEqual([]);
      // The functions run with the caller's rights, so RLS applies inside them too.
      const definers = await db.query(
        `select proname from pg_proc p where pronamespace = 'public'::regnamespace and prosecdef
           and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
      );
      expect(definers).toEqual([]);
    });

    it('shows anon no row of any table, though every one the test filled has rows', async () => {
      for (const table of ['chat_sessions', 'chat_messages', 'conversation_summaries', 'idempotency_keys', 'orders', 'customer_profiles', 'rate_limit_counters']) {
        const [owner] = await db.query<{ n: number }>(`select count(*)::int as n from ${table}`);
        expect({ table, rows: owner!.n > 0 }).toEqual({ table, rows: true });
      }
      const visible = await asAnon(async (tx) => {
        const counts: Record<string, number> = {};
        for (const table of tables) counts[table] = (await tx.query<{ n: number }>(`select count(*)::int as n from ${table}`))[0]!.n;
        return counts;
      });
      expect(visible).toEqual(Object.fromEntries(tables.map((t) => [t, 0])));
    });

    it('gives anon nothing through the functions the API exposes, and lets it write nothing', async () => {
      const seen = await asAnon(async (tx) => {
        const store = new SqlStore(tx);
        return {
          session: await store.getSession('rls-session'),
          messages: await store.listRecentMessages('rls-session', 10),
          sessions: (await store.listSessions({ limit: 10 })).sessions,
          summary: await store.latestUserSummary('lukas@example.com', 'another'),
        };
      });
      expect(seen).toEqual({ session: null, messages: [], sessions: [], summary: null });
      await expect(
        asAnon((tx) => new SqlStore(tx).appendTurn({ sessionId: 'anon-write', userId: null, agentType: 'support', messages: [{ role: 'user', content: 'x', tokenCount: 1 }] })),
      ).rejects.toThrow(/row-level security/);
      await expect(asAnon((tx) => new RateLimitCounters(tx).hit('chat-client:anon', 60_000))).rejects.toThrow(/row-level security/);
    });
  });
}

describeRowLevelSecurity('PGlite', async () => {
  const db = await openPgliteDatabase();
  await applyMigrations(db);
  // The sample shop's customers and orders fill those tables, as where the sample shop runs.
  await seedSampleData(db);
  return { db, close: () => db.close() };
});

describeOnTestServer('row-level security on a PostgreSQL server', () => {
  describeRowLevelSecurity('a PostgreSQL server', openMigratedTestDatabase);
});
