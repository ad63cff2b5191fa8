/**
 * npm run test:supabase: the store contract against a REAL Supabase project,
 * through supabase-js .rpc() (the same suite the stand-in, PGlite and the
 * PostgreSQL server run). Not part of npm test, because it EMPTIES every table
 * of the project's public schema before each test: use a throw-away project or
 * branch. It needs:
 *
 *   SUPABASE_URL                the project's API URL (https://<ref>.supabase.co)
 *   SUPABASE_SERVICE_ROLE_KEY   its service_role key
 *   SUPABASE_TEST_DATABASE_URL  the same project's Postgres connection string, used only
 *                               to apply the migrations and empty the tables between tests
 *                               (the API can do neither, by design)
 *
 * Without them it skips, saying so.
 */
import { applyMigrations } from '../../src/store/migrations';
import { openPostgresDatabase } from '../../src/store/postgres';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { HandoffStore } from '../../src/store/handoff-store';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { SqlStore } from '../../src/store/sql-store';
import { createSupabaseClient, supabaseFunctionCaller } from '../../src/store/supabase';
import { describeStoreContract } from '../contract/store.contract';
import { truncateAllTables } from '../support/postgres';

const url = process.env.SUPABASE_URL;
const serviceRoleKey = process.env.SUPABASE_SERVICE_ROLE_KEY;
const databaseUrl = process.env.SUPABASE_TEST_DATABASE_URL;

if (url && serviceRoleKey && databaseUrl) {
  describeStoreContract(`the Supabase project ${new URL(url).host}`, async () => {
    const db = openPostgresDatabase({ connectionString: databaseUrl, poolMax: 2 });
    const applied = await applyMigrations(db);
    if (applied.length > 0) console.warn(`Applied ${applied.length} migration(s) to the Supabase project first.`);
    const functions = supabaseFunctionCaller(createSupabaseClient({ url, serviceRoleKey }));
    const store = new SqlStore(functions);
    return { chat: store, knowledge: store, rateLimits: new RateLimitCounters(functions), handoff: new HandoffStore(functions), customerData: new CustomerDataStore(functions), reset: () => truncateAllTables(db), close: () => db.close() };
  });
} else {
  const missing = [
    ['SUPABASE_URL', url],
    ['SUPABASE_SERVICE_ROLE_KEY', serviceRoleKey],
    ['SUPABASE_TEST_DATABASE_URL', databaseUrl],
  ].flatMap(([name, value]) => (value ? [] : [name]));
  console.warn(`SKIPPED the Supabase project contract suite: set ${missing.join(', ')} (see tests/supabase/project.supabase-test.ts).`);
  it.todo(`SKIPPED: the store contract on a real Supabase project (set ${missing.join(', ')})`);
}
