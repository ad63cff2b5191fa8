/**
 * The site sync's run records and crawl state on a real PostgreSQL server
 * (TEST_DATABASE_URL), through SiteSyncStore: runs started and finished once,
 * listed newest first a page at a time, per site; page states kept, updated and
 * forgotten by source.
 */
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { SiteSyncStore, type SyncCounts } from '../../src/store/site-sync-store';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';

const COUNTS: SyncCounts = { fetched: 3, added: 2, updated: 1, unchanged: 0, skipped: 1, failed: 0, removed: 0, removalsHeld: 0, embedded: 7 };

describeOnTestServer('site sync records on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  let store: SiteSyncStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabase(db, testServerHasPgvector());
    store = new SiteSyncStore(db);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('records a run when it starts and once when it ends; a second finish changes nothing', async () => {
    const id = await store.startRun('https://a.example/sitemap.xml', 'schedule');
    expect((await store.recentRuns({ limit: 1 }))[0]).toMatchObject({ id, status: 'running', finishedAt: null, counts: {}, errors: [] });

    expect(await store.finishRun(id, { status: 'succeeded', counts: COUNTS, errors: [{ url: 'https://a.example/x', reason: 'too_large', message: 'too large' }], message: null })).toBe(true);
    expect(await store.finishRun(id, { status: 'failed', counts: COUNTS, errors: [], message: 'late' })).toBe(false);
    const [run] = await store.recentRuns({ limit: 1 });
    expect(run).toMatchObject({ id, site: 'https://a.example/sitemap.xml', trigger: 'schedule', status: 'succeeded', counts: COUNTS, message: null });
    expect(run!.errors).toEqual([{ url: 'https://a.example/x', reason: 'too_large', message: 'too large' }]);
    expect(run!.finishedAt!.getTime()).toBeGreaterThanOrEqual(run!.startedAt.getTime());
  });

  it('lists runs newest first, one page at a time, of every site or of one', async () => {
    const ids: number[] = [];
    for (const site of ['https://a.example/', 'https://b.example/', 'https://a.example/']) ids.push(await store.startRun(site, 'cli'));
    const firstPage = await store.recentRuns({ limit: 2 });
    expect(firstPage.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const nextPage = await store.recentRuns({ limit: 2, beforeId: firstPage.at(-1)!.id });
    expect(nextPage[0]!.id).toBe(ids[0]);
    expect((await store.recentRuns({ site: 'https://a.example/', limit: 10 })).map((r) => r.id)).toEqual([ids[2], ids[0]]);
  });

  it('keeps each page state per site, replaces it, and forgets every URL of a removed source', async () => {
    const site = 'https://c.example/sitemap.xml';
    const page = (url: string, source: string, etag: string | null) => ({ url, source, etag, lastModified: null, lastmod: '2026-11-01', linked: false });
    await store.putPageState(site, page('https://c.example/a', 'https://c.example/a', '"1"'));
    await store.putPageState(site, page('https://c.example/a?ref=x', 'https://c.example/a', null));
    await store.putPageState(site, page('https://c.example/b', 'https://c.example/b', '"2"'));
    await store.putPageState(site, page('https://c.example/b', 'https://c.example/b', '"3"'));
    await store.putPageState('https://other.example/', page('https://c.example/a', 'https://c.example/a', '"9"'));

    const states = await store.pageStates(site);
    expect([...states.keys()]).toEqual(['https://c.example/a', 'https://c.example/a?ref=x', 'https://c.example/b']);
    expect(states.get('https://c.example/b')).toEqual({ ...page('https://c.example/b', 'https://c.example/b', '"3"'), checkedAt: expect.any(Date) });

    // A day without checks, then one page answers 304: only it counts as checked now (an unknown URL is ignored).
    await db.query(`update knowledge_site_pages set checked_at = now() - interval '25 hours'`);
    const before = Date.now();
    expect(await store.markPagesChecked(site, ['https://c.example/b', 'https://c.example/unknown'])).toBe(1);
    const checked = await store.pageStates(site);
    expect(checked.get('https://c.example/b')!.checkedAt!.getTime()).toBeGreaterThan(before - 1000);
    expect(checked.get('https://c.example/a')!.checkedAt!.getTime()).toBeLessThan(before - 24 * 3_600_000);

    expect(await store.forgetSource(site, 'https://c.example/a')).toBe(2);
    expect([...(await store.pageStates(site)).keys()]).toEqual(['https://c.example/b']);
    expect((await store.pageStates('https://other.example/')).size).toBe(1);
  });
});
