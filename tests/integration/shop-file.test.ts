/**
 * A service started with a shop file of its own (SHOP_FILE) against the sample
 * shop run without it: the sample customers, profiles and orders exist only for
 * the sample shop (on a fresh database, and on one the old migration filled),
 * the shop's agents, words and knowledge are the file's, and / is not the
 * sample shop. On PGlite and on the real PostgreSQL server (TEST_DATABASE_URL).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describeHours } from '../../src/chat/support-hours';
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations, readMigrations } from '../../src/store/migrations';
import { openPgliteDatabase } from '../../src/store/pglite';
import { openPostgresDatabase } from '../../src/store/postgres';
import { createTestDatabase, describeOnTestServer, migrateTestDatabaseForService, testServerHasPgvector } from '../support/postgres';
import { closeAppInstances, listenApp, REPO_ROOT, startTestService, TEST_AGENT_KEY, type AppInstance, type TestService } from '../support/test-service';

const SHOP_FILE = path.join(REPO_ROOT, 'tests/fixtures/shops/pine-and-pebble/shop.yaml');
/** The migration that takes the sample rows out of every database. */
const SAMPLE_ROWS_REMOVED = '20261126000400';
/** Something nothing in a garden shop's help articles matches: the offline agent escalates it. */
const OFF_TOPIC = 'Who won the football world cup in 1954?';

/** The service's settings with the shop file, on a database the test opened. */
function shopConfig(dataDir: string, env: Record<string, string> = {}) {
  return loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, AGENT_API_KEY: TEST_AGENT_KEY, OFFLINE_EMBEDDER: 'hashing', SHOP_FILE, ...env });
}

async function sampleRows(db: SqlDatabase): Promise<{ customers: number; orders: number; lukas: number }> {
  const [row] = await db.query<{ customers: number; orders: number; lukas: number }>(
    `select (select count(*)::int from customer_profiles) as customers, (select count(*)::int from orders) as orders,
            (select count(*)::int from orders where user_id = 'lukas@example.com') as lukas`,
  );
  return row!;
}

/** Migrates as a database did before the sample rows left the migrations: the old migration filled it. */
async function migrateAsBefore(db: SqlDatabase): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'migrations-before-'));
  try {
    for (const m of await readMigrations()) {
      if (m.version < SAMPLE_ROWS_REMOVED) await fs.writeFile(path.join(dir, `${m.version}_${m.name}.sql`), m.sql);
    }
    await applyMigrations(db, dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('a shop file of its own, on the embedded database', () => {
  let shop: TestService;
  beforeAll(async () => {
    shop = await startTestService({ env: { SHOP_FILE: SHOP_FILE } });
  });
  afterAll(async () => {
    await shop?.close();
  });

  it('holds no sample customer, profile or order on a fresh database', async () => {
    expect(await sampleRows(shop.db)).toEqual({ customers: 0, orders: 0, lukas: 0 });
  });

  it("answers with the file's agents, the first the default, and knows no other agent type", async () => {
    expect(shop.deps.shop.agents.map((a) => a.key)).toEqual(['garden', 'plants']);
    const chosen = await shop.postChat({ message: 'Can I return a damaged plant?', agent_type: 'plants' });
    expect(chosen.status).toBe(200);
    const sample = await shop.postChat({ message: 'Where is my order?', agent_type: 'orders' });
    expect(sample.status).toBe(400);
    expect(sample.body.error.message).toContain('garden, plants');
  });

  it("ingests the shop's knowledge folders, not the sample help center", async () => {
    const { body } = await shop.postChat({ message: 'Can I return a damaged plant?' });
    expect(body.sources.map((s: { source: string }) => s.source)).toEqual([expect.stringMatching(/plant-returns\.md$/)]);
    const [row] = await shop.db.query<{ n: number }>(`select count(*)::int as n from documents where source like '%help-center%'`);
    expect(row!.n).toBe(0);
  });

  it("ends an escalated answer with the shop's offer of a person, after the shop's offline notice", async () => {
    const { body } = await shop.postChat({ message: OFF_TOPIC });
    expect(body.escalated).toBe(true);
    expect(body.response.startsWith("Pine & Pebble's assistant is in offline mode")).toBe(true);
    expect(body.response.endsWith("I'm not sure about this one, so I've passed it to the Pine & Pebble team: a gardener can take over this chat if you like.")).toBe(true);
  });

  it('serves at / a page naming the shop with the widget, not the sample shop, and no signed-in demo', async () => {
    const page = await fetch(`${shop.baseURL}/`);
    const html = await page.text();
    expect(html).toContain('<h1>Pine &#38; Pebble</h1>');
    expect(html).toContain('<script src="/widget.js"');
    expect(html).not.toMatch(/northwind/i);
    expect((await fetch(`${shop.baseURL}/demo/signed-in`)).status).toBe(404);
  });

  it("builds the shop's widget words into widget.js", async () => {
    const script = await (await fetch(`${shop.baseURL}/widget.js`)).text();
    expect(script).toContain('Pine & Pebble help');
    expect(script).toContain('Gardeners answer on weekdays');
    expect(script).not.toContain('__SHOP_WIDGET_WORDS__');
  });
});

describe("a shop file's support hours in the escalation message", () => {
  let closed: TestService;
  beforeAll(async () => {
    // Closed yesterday, today and tomorrow (UTC): whenever the test runs, nobody answers now.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'closed-shop-'));
    const file = path.join(dir, 'shop.yaml');
    const text = await fs.readFile(SHOP_FILE, 'utf8');
    await fs.writeFile(
      file,
      `${text.replace('folders: [./help]', `folders: [${path.dirname(SHOP_FILE)}/help]`)}
support_hours:
  time_zone: UTC
  weekly: { mon-sun: 22:00-02:00 }
  closed: [${day(-1)}, ${day(0)}, ${day(1)}]
`,
    );
    closed = await startTestService({ env: { SHOP_FILE: file } });
  });
  afterAll(async () => {
    await closed?.close();
  });

  it('says, in the words of the file, that the team is away and when it answers', async () => {
    const { body } = await closed.postChat({ message: OFF_TOPIC });
    expect(body.escalated).toBe(true);
    // The hours as an English reader's locale writes them, not as configured.
    const hours = describeHours({ time_zone: 'UTC', weekly: [{ days: 'mon-sun', hours: '22:00-02:00' }] }, 'en')!;
    expect(hours.replace(/[\u00a0\u2009\u202f]/g, ' ')).toBe('Mon–Sun 10:00 PM – 2:00 AM (Coordinated Universal Time)');
    expect(body.response).toContain(`I'm not sure about this one. The Pine & Pebble team is away right now; they answer ${hours} and will reply here.`);
  });
});

describe('the sample data belongs to the sample shop (embedded database)', () => {
  it('a database the old migration filled loses the sample rows once it runs with a shop file', async () => {
    const db = await openPgliteDatabase();
    await migrateAsBefore(db);
    expect(await sampleRows(db)).toEqual({ customers: 6, orders: 12, lukas: 2 });
    const deps = await createDependencies(shopConfig(await fs.mkdtemp(path.join(os.tmpdir(), 'shop-data-'))), createLogger('silent'), db);
    try {
      expect(await sampleRows(db)).toEqual({ customers: 0, orders: 0, lukas: 0 });
    } finally {
      await deps.close();
    }
  });

  it('without SHOP_FILE the sample shop runs with its customers and orders, on a fresh database too', async () => {
    const sample = await startTestService({ env: { KNOWLEDGE_SEED_DIR: 'none' } });
    try {
      expect(sample.deps.shop).toMatchObject({ sample: true, name: 'Northwind Home' });
      expect(await sampleRows(sample.db)).toEqual({ customers: 6, orders: 12, lukas: 2 });
    } finally {
      await sample.close();
    }
  });
});

describeOnTestServer('the sample data belongs to the sample shop (PostgreSQL server)', () => {
  const hasPgvector = testServerHasPgvector();
  const instances: AppInstance[] = [];
  const databases: Array<{ drop(): Promise<void> }> = [];
  const connections: SqlDatabase[] = [];
  afterAll(async () => {
    await closeAppInstances(instances);
    for (const db of connections) await db.close();
    for (const database of databases) await database.drop();
  });

  /** A new database on the server, migrated by `migrate`, and a connection to it. */
  async function serverDatabase(migrate: (db: SqlDatabase) => Promise<void>): Promise<{ url: string; db: SqlDatabase }> {
    const database = await createTestDatabase();
    databases.push(database);
    const db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    connections.push(db);
    await migrate(db);
    return { url: database.url, db };
  }

  const serverEnv = (url: string) => ({ DATABASE_URL: url, DATABASE_POOL_MAX: '2', EVENTS_DELIVERY: 'poll', KNOWLEDGE_SEED_DIR: 'none' });

  it('a fresh database holds no sample customer, profile or order with a shop file', async () => {
    const { url, db } = await serverDatabase(async (d) => {
      if (!hasPgvector) await migrateTestDatabaseForService(d, false);
    });
    // migrateTestDatabaseForService seeds the sample shop like the service would; a fresh database for a shop starts empty.
    if (!hasPgvector) await db.exec('delete from orders; delete from customer_profiles;');
    instances.push(await listenApp(await createDependencies(shopConfig(os.tmpdir(), serverEnv(url)), createLogger('silent'))));
    expect(await sampleRows(db)).toEqual({ customers: 0, orders: 0, lukas: 0 });
  });

  it('a database the old migration filled loses the sample rows once it runs with a shop file', async () => {
    const { url, db } = await serverDatabase(migrateAsBefore);
    expect(await sampleRows(db)).toEqual({ customers: 6, orders: 12, lukas: 2 });
    instances.push(await listenApp(await createDependencies(shopConfig(os.tmpdir(), serverEnv(url)), createLogger('silent'))));
    expect(await sampleRows(db)).toEqual({ customers: 0, orders: 0, lukas: 0 });
  });
});
