/**
 * Human takeover on a real PostgreSQL server (TEST_DATABASE_URL): two instances
 * of the service (two apps, each with its own `pg` pool and its own LISTEN
 * connection) on one database, requests alternating between them, so takeovers,
 * replies and customer messages race for real and an event stream on one
 * instance is woken by NOTIFY from the other. The server has no pgvector, so the
 * knowledge base is an empty stand-in and every answer is escalated.
 */
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { createTestDatabase, describeOnTestServer, migrateTestDatabaseForService, testServerHasPgvector } from '../support/postgres';
import { type AppInstance, closeAppInstances, listenApp, openAIStubEnv, TEST_AGENT_KEY } from '../support/test-service';
import { handoffCases } from './handoff.cases';

const hasPgvector = testServerHasPgvector();

describeOnTestServer('human takeover (two instances on a PostgreSQL server)', () => {
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
        KNOWLEDGE_SEED_DIR: 'none',
        RATE_LIMIT_STORE: 'memory',
        RATE_LIMIT_PER_CLIENT: '1000000',
        RATE_LIMIT_PER_SESSION: '1000000',
        ...openAIStubEnv(stub.baseURL, { ESCALATION_CONFIDENCE_THRESHOLD: '1', STREAM_HEARTBEAT_MS: '200' }),
      });
      expect(config.handoff.delivery).toBe('listen');
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

  handoffCases(() => ({
    baseURLs: instances.map((i) => i.baseURL),
    stub,
    query: (sql, params) => db.query(sql, params),
    endStreams: () => instances[0]!.deps.endStreams(),
  }));
});
