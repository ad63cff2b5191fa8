import { applyMigrations } from '../../src/store/migrations';
import { openPgliteDatabase } from '../../src/store/pglite';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { SqlStore } from '../../src/store/sql-store';
import { truncateAllTables } from '../support/postgres';
import { describeStoreContract } from './store.contract';

describeStoreContract('PGlite (in-process)', async () => {
  const db = await openPgliteDatabase();
  await applyMigrations(db);
  const store = new SqlStore(db);
  return { chat: store, knowledge: store, rateLimits: new RateLimitCounters(db), reset: () => truncateAllTables(db), close: () => db.close() };
});
