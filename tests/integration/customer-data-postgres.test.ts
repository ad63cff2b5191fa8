/**
 * The customer-data lifecycle on a real PostgreSQL server (TEST_DATABASE_URL): two
 * instances of the service on one database, requests alternating between them, so
 * an answer in flight on one instance races the erasure made through the other, and
 * the event stream on one is ended by the other's NOTIFY. See customer-data.cases.ts.
 */
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { createTestDatabase, describeOnTestServer, migrateTestDatabaseForService, testServerHasPgvector } from '../support/postgres';
import { type AppInstance, closeAppInstances, listenApp, openAIStubEnv, TEST_AGENT_KEY, TEST_CUSTOMER_SECRET } from '../support/test-service';
import { customerDataCases } from './customer-data.cases';

const hasPgvector = testServerHasPgvector();

describeOnTestServer('customer data lifecycle (two instances on a PostgreSQL server)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  let stub: OpenAIStub;
  const instances: AppInstance[] = [];

  beforeAll(async () => {
    stub = await startOpenAIStub();
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabaseForService(db, hasPgvector);
    for (const _ of [0, 1]) {
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        DATABASE_URL: database.url,
        DATABASE_POOL_MAX: '4',
        AGENT_API_KEY: TEST_AGENT_KEY,
        CUSTOMER_IDENTITY_SECRET: TEST_CUSTOMER_SECRET,
        KNOWLEDGE_SEED_DIR: 'none',
        RATE_LIMIT_PER_CLIENT: '1000000',
        RATE_LIMIT_PER_SESSION: '1000000',
        ...openAIStubEnv(stub.baseURL, { STREAM_HEARTBEAT_MS: '200' }),
      });
      const deps = await createDependencies(config, createLogger('silent'));
      instances.push(await listenApp(deps));
    }
  }, 60_000);
  afterAll(async () => {
    await closeAppInstances(instances);
    await db?.close();
    await database?.drop();
    await stub?.close();
  });

  customerDataCases(() => ({ baseURLs: instances.map((i) => i.baseURL), stub, query: (sql, params) => db.query(sql, params) }));
});
