/**
 * Two instances of the service on one new database of the test server (TEST_DATABASE_URL):
 * two apps, each with its own `pg` pool and LISTEN connection, and one loopback model. What
 * the suites that race requests across instances share. Call it inside a describe block:
 * it registers its own beforeAll and afterAll.
 */
import { loadConfig, type Config } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { startOpenAIStub, type OpenAIStub } from './openai-stub';
import { createTestDatabase, migrateTestDatabaseForService, testServerHasPgvector } from './postgres';
import { type AppInstance, closeAppInstances, listenApp, openAIStubEnv, TEST_AGENT_KEY } from './test-service';

export interface TwoInstances {
  instances: AppInstance[];
  stub: OpenAIStub;
  /** The shared database, for reading what the instances wrote. */
  db: SqlDatabase;
}

export interface TwoInstancesOptions {
  /**
   * Settings beyond the shared ones (the database, the agent key, no help center, no rate limits to speak of);
   * a function is read when the instances start (after the suite's earlier beforeAll, e.g. one that starts a site).
   */
  env?: Record<string, string> | (() => Record<string, string>);
  /** Overrides of the loopback model's settings (openAIStubEnv). */
  modelEnv?: Record<string, string>;
  /** Asserts something of each instance's configuration before it starts. */
  checkConfig?: (config: Config) => void;
}

export function useTwoInstancesOnTestServer(options: TwoInstancesOptions = {}): () => TwoInstances {
  const hasPgvector = testServerHasPgvector();
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let db: SqlDatabase | undefined;
  let stub: OpenAIStub | undefined;
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
        RATE_LIMIT_PER_CLIENT: '1000000',
        RATE_LIMIT_PER_SESSION: '1000000',
        ...(typeof options.env === 'function' ? options.env() : options.env),
        ...openAIStubEnv(stub.baseURL, { STREAM_HEARTBEAT_MS: '200', ...options.modelEnv }),
      });
      options.checkConfig?.(config);
      instances.push(await listenApp(await createDependencies(config, createLogger('silent'))));
    }
  }, 60_000);
  afterAll(async () => {
    await closeAppInstances(instances);
    await db?.close();
    await database?.drop();
    await stub?.close();
  });

  return () => ({ instances, stub: stub!, db: db! });
}
