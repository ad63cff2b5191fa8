/** The service's `pg` backend against a real PostgreSQL server (TEST_DATABASE_URL; .ci/run starts one). */
import { openPostgresDatabase } from '../../src/store/postgres';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { HandoffStore } from '../../src/store/handoff-store';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { SqlStore } from '../../src/store/sql-store';
import {
  createTestDatabase,
  describeOnTestServer,
  migrateTestDatabase,
  testServerHasPgvector,
  truncateAllTables,
} from '../support/postgres';
import { describeStoreContract } from './store.contract';

const hasPgvector = testServerHasPgvector();

describeOnTestServer('the pg backend on a PostgreSQL server', () => {
  describeStoreContract(
    'a PostgreSQL server',
    async () => {
      const database = await createTestDatabase();
      const db = openPostgresDatabase({ connectionString: database.url, poolMax: 4 });
      await migrateTestDatabase(db, hasPgvector);
      const store = new SqlStore(db);
      return {
        chat: store,
        knowledge: hasPgvector ? store : undefined,
        knowledgeAdmin: hasPgvector ? new KnowledgeAdminStore(db) : undefined,
        rateLimits: new RateLimitCounters(db),
        handoff: new HandoffStore(db),
        customerData: new CustomerDataStore(db),
        reset: () => truncateAllTables(db),
        close: async () => {
          await db.close();
          await database.drop();
        },
      };
    },
    hasPgvector ? {} : { withoutKnowledge: "the server has no pgvector; PGlite and the pg backend over PGlite's wire protocol run it" },
  );
});
