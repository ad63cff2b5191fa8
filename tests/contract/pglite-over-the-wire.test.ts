/**
 * The service's `pg` backend against PGlite served over the Postgres wire
 * protocol: the backend's pgvector path (vectors as parameters and results),
 * which the loopback PostgreSQL server cannot run, having no pgvector.
 */
import { applyMigrations } from '../../src/store/migrations';
import { openPostgresDatabase } from '../../src/store/postgres';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { HandoffStore } from '../../src/store/handoff-store';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { SqlStore } from '../../src/store/sql-store';
import { startPgliteServer, truncateAllTables } from '../support/postgres';
import { describeStoreContract } from './store.contract';

describeStoreContract('the pg backend over PGlite\'s wire protocol', async () => {
  const server = await startPgliteServer(2);
  const db = openPostgresDatabase({ connectionString: server.url, poolMax: 2 });
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
    close: async () => {
      await db.close();
      await server.close();
    },
  };
});
