/**
 * The knowledge sync's lease on a real PostgreSQL server (TEST_DATABASE_URL): two
 * instances' schedules, each over its own pool, sync one at a time (the other skips
 * its turn), a dead holder's lease runs out and is taken over, and stop() aborts a
 * run and gives the lease back. The site sync itself is a recording stand-in here
 * (the crawler's syncSite is exercised end to end in knowledge-sync-postgres.test.ts).
 */
import { KnowledgeSyncSchedule, type SyncOneSite } from '../../src/knowledge/sync-schedule';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { KnowledgeSyncLease } from '../../src/store/knowledge-sync-lease';
import { openPostgresDatabase } from '../../src/store/postgres';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';

const hasPgvector = testServerHasPgvector();

describeOnTestServer('knowledge sync lease (PostgreSQL server)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const pools: SqlDatabase[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    for (const _ of [0, 1]) pools.push(openPostgresDatabase({ connectionString: database.url, poolMax: 3 }));
    await migrateTestDatabase(pools[0]!, hasPgvector);
  }, 60_000);
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await database?.drop();
  });
  afterEach(async () => {
    await pools[0]!.query('delete from knowledge_sync_lease');
  });

  /** A site sync that takes `ms` and writes down when it ran, on which instance. */
  const recordingSync = (instance: string, runs: { instance: string; start: number; end: number }[], ms: number): SyncOneSite =>
    async () => {
      const start = Date.now();
      await new Promise((resolve) => setTimeout(resolve, ms));
      runs.push({ instance, start, end: Date.now() });
    };

  it('two instances whose turns come at once sync one at a time: one runs, the other skips its turn', async () => {
    const runs: { instance: string; start: number; end: number }[] = [];
    const logger = createLogger('silent');
    const schedules = pools.map(
      (pool, i) =>
        new KnowledgeSyncSchedule(
          { lease: new KnowledgeSyncLease(pool), syncSite: recordingSync(`instance-${i}`, runs, 300), logger },
          { siteUrls: ['http://127.0.0.1:1/sitemap.xml', 'http://127.0.0.1:2/'], intervalMs: 60_000 },
        ),
    );
    const turns = await Promise.all(schedules.map((s) => s.syncNow()));
    expect(turns.map((t) => t?.busy).sort()).toEqual([false, true]);
    const ran = turns.find((t) => t?.busy === false)!;
    expect(ran.synced).toEqual(['http://127.0.0.1:1/sitemap.xml', 'http://127.0.0.1:2/']);
    expect(new Set(runs.map((r) => r.instance)).size).toBe(1);
    expect(runs).toHaveLength(2);
    // Given back at the end: the other instance's next turn runs.
    const next = await schedules[turns.indexOf(turns.find((t) => t?.busy === true)!)]!.syncNow();
    expect(next).toMatchObject({ busy: false });
    expect(runs).toHaveLength(4);
    for (const [a, b] of runs.slice(1).map((r, i) => [runs[i]!, r] as const)) expect(b.start).toBeGreaterThanOrEqual(a.end);
  });

  it("a holder that died keeps the lease only until it runs out; then another instance takes it", async () => {
    const lease = [new KnowledgeSyncLease(pools[0]!), new KnowledgeSyncLease(pools[1]!)];
    expect(await lease[0]!.take('dead-instance', 400)).toBe(true);
    expect(await lease[1]!.take('live-instance', 60_000)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await lease[1]!.take('live-instance', 60_000)).toBe(true);
    // The dead one, come back, can neither renew nor release what is no longer its own.
    expect(await lease[0]!.renew('dead-instance', 60_000)).toBe(false);
    expect(await lease[0]!.release('dead-instance')).toBe(false);
    expect((await pools[0]!.query<{ holder: string }>('select holder from knowledge_sync_lease'))[0]!.holder).toBe('live-instance');
  });

  it('while a transaction holds the lease key, taking the lease answers busy at once instead of waiting', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = pools[1]!.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock(7172839203)');
      locked();
      await held;
    });
    await lockTaken;
    expect(await new KnowledgeSyncLease(pools[0]!).take('instance-a', 60_000)).toBe(false);
    release();
    await holder;
    expect(await new KnowledgeSyncLease(pools[0]!).take('instance-a', 60_000)).toBe(true);
  });

  it('stop() aborts the run in progress, waits for it and gives the lease back', async () => {
    let sawAbort = false;
    const slowSync: SyncOneSite = (_url, signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          sawAbort = true;
          resolve(undefined);
        });
      });
    const schedule = new KnowledgeSyncSchedule(
      { lease: new KnowledgeSyncLease(pools[0]!), syncSite: slowSync, logger: createLogger('silent') },
      { siteUrls: ['http://127.0.0.1:1/a', 'http://127.0.0.1:1/b'], intervalMs: 60_000 },
    );
    const turn = schedule.syncNow();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await pools[0]!.query('select holder from knowledge_sync_lease')).toEqual([{ holder: schedule.holder }]);
    await schedule.stop();
    expect(sawAbort).toBe(true);
    // The second site was not started after the abort.
    expect((await turn)?.synced).toEqual(['http://127.0.0.1:1/a']);
    expect(await pools[0]!.query('select holder from knowledge_sync_lease')).toEqual([]);
  });
});
