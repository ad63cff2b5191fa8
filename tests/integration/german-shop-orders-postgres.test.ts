/**
 * Issue 43, point 3, on the real PostgreSQL server (TEST_DATABASE_URL): a guest's wrong
 * guesses at an order's e-mail address, sent alternately to two service instances on one
 * database, reach the shop's API at most ORDER_PROOF_MAX_FAILURES (5) times: the counts
 * live in the database, not in either instance. The German shop file is
 * tests/fixtures/shops/bohnenglueck without its help folder (the server may lack
 * pgvector; what is tested is the limit).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import { BUILT_IN_WORDS } from '../../src/shop/words';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { createTestDatabase, describeOnTestServer, migrateTestDatabaseForService, testServerHasPgvector } from '../support/postgres';
import { type AppInstance, closeAppInstances, listenApp, makeTempDir, REPO_ROOT, TEST_AGENT_KEY } from '../support/test-service';

const FIXTURE = path.join(REPO_ROOT, 'tests/fixtures/shops/bohnenglueck');

describeOnTestServer('guests of a German shop on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  let api: OrdersApi;
  let dir: string;
  const instances: AppInstance[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabaseForService(db, testServerHasPgvector());
    api = await startOrdersApi();
    dir = await makeTempDir('german-shop-orders-pg-');
    const shopFile = (await fs.readFile(path.join(FIXTURE, 'shop.yaml'), 'utf8')).replace(/^knowledge:\n {2}folders: \[\.\/hilfe\]\n/m, '');
    await fs.writeFile(path.join(dir, 'shop.yaml'), shopFile);
    await api.writeOpenApi(dir, 'orders-api.yaml');
    const env = {
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: '3',
      AGENT_API_KEY: TEST_AGENT_KEY,
      KNOWLEDGE_SEED_DIR: 'none',
      OFFLINE_STREAM_DELAY_MS: '0',
      SHOP_FILE: path.join(dir, 'shop.yaml'),
      BOHNENGLUECK_API_TOKEN: 'bohnenglueck-orders-token',
      RATE_LIMIT_PER_CLIENT: '1000000',
      RATE_LIMIT_PER_SESSION: '1000000',
    };
    for (let i = 0; i < 2; i++) instances.push(await listenApp(await createDependencies(loadConfig(env), createLogger('silent'))));
  }, 120_000);
  afterAll(async () => {
    await closeAppInstances(instances);
    await api?.close();
    await db?.close();
    await database?.drop();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('ten wrong guesses across two instances reach the API five times; the rest are told to try later', async () => {
    const answers: string[] = [];
    for (let guess = 1; guess <= 10; guess++) {
      const instance = instances[guess % 2]!;
      const response = await fetch(`${instance.baseURL}/api/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: `Bestellung BK-1001, meine E-Mail: rater${guess}@example.com` }),
      });
      expect(response.status).toBe(200);
      answers.push(((await response.json()) as { response: string }).response);
    }
    expect(api.requests.filter((r) => r.path === '/orders/BK-1001/status')).toHaveLength(5);
    expect(answers.slice(5).every((a) => a.includes(BUILT_IN_WORDS.de!.proof_limited))).toBe(true);
    const [row] = await db.query<{ n: number }>("select count(*)::int as n from rate_limit_counters where key like 'order-proof-client:%'");
    expect(row!.n).toBeGreaterThan(0);
  }, 120_000);
});
