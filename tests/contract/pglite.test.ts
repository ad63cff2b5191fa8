import { applyMigrations } from '../../src/store/migrations';
import { openPgliteDatabase } from '../../src/store/pglite';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { HandoffStore } from '../../src/store/handoff-store';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { SqlStore } from '../../src/store/sql-store';
import { truncateAllTables } from '../support/postgres';
import { describeStoreContract } from './store.contract';

describeStoreContract('PGlite (in-process)', async () => {
  const db = await openPgliteDatabase();
  await applyMigrations(db);
  const store = new SqlStore(db);
  return {
    chat: store,
    knowledge: store,
    knowledgeAdmin: new KnowledgeAdminStore(db),
    rateLimits: new RateLimitCounters(db),
    handoff: new HandoffStore(db),
    customerData: new CustomerDataStore(db),
    reset: () => truncateAllTables(db),
    close: () => db.close(),
  };
});
