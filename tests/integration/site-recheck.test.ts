/**
 * Deleted pages leave, behind a stale sitemap. A loopback help center lists ten pages
 * with a lastmod; one page starts answering 404 while the sitemap keeps listing it with
 * its old date, as stale sitemaps do. An unchanged lastmod spares the fetch only while
 * the page was checked within KNOWLEDGE_SYNC_RECHECK_HOURS (recheckAfterMs): after
 * that (or on every run with 0, or on a run told to prune) every stored page gets a
 * conditional request, a 404 removes the page within the removal limit, a fetch error
 * removes nothing, and a 304 counts as checked. On PGlite and on the PostgreSQL server.
 */
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL } from '../../src/knowledge/embeddings';
import { bindSiteSync } from '../../src/knowledge/site-sync-binding';
import type { SyncReport } from '../../src/knowledge/sources/site-sync';
import type { SqlDatabase } from '../../src/store/database';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { SiteSyncStore } from '../../src/store/site-sync-store';
import { SqlStore } from '../../src/store/sql-store';
import { pageInSiteChrome, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { openTestStore } from '../support/database';
import { describeOnTestServer, openMigratedTestDatabase } from '../support/postgres';

const PAGES = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

function articlePath(n: number): string {
  return `/help/article-${n}`;
}

function article(n: number): string {
  return pageInSiteChrome({ title: `Article ${n}`, articleHtml: `<p>Article ${n} answers question number ${n} about parcels, refunds and gift card ${n}.</p>` });
}

function staleSiteSuite(openDatabase: () => Promise<{ db: SqlDatabase; close(): Promise<void> }>): void {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  let site: LoopbackSite;
  let runs: SiteSyncStore;
  let sitemapUrl: string;

  /** One sync as the service runs it (its binding), with KNOWLEDGE_SYNC_RECHECK_HOURS as `recheckAfterMs` (default a day). */
  const sync = async (options: { recheckAfterMs?: number; prune?: boolean } = {}): Promise<SyncReport> => {
    const syncSite = bindSiteSync({
      store: new SqlStore(db),
      admin: new KnowledgeAdminStore(db),
      embedder: { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL },
      syncRuns: runs,
      maxRemovalPercent: 20,
      recheckAfterMs: options.recheckAfterMs ?? DAY_MS,
    });
    return (await syncSite(sitemapUrl, new AbortController().signal, { trigger: 'cli', allowPrivateNetwork: true, prune: options.prune })) as SyncReport;
  };
  const storedArticles = async (): Promise<number[]> => {
    const rows = await db.query<{ source: string }>(`select distinct source from documents where source like $1`, [`${site.origin}/help/%`]);
    return rows.map((r) => Number(/article-(\d+)$/.exec(r.source)![1])).sort((a, b) => a - b);
  };
  /** The page requests since `from` in the site's log, as `n status`. */
  const pageRequests = (from: number): string[] =>
    site.requests
      .slice(from)
      .filter((r) => r.path.startsWith('/help/'))
      .map((r) => `${/article-(\d+)$/.exec(r.path)![1]} ${r.status}`)
      .sort((a, b) => Number.parseInt(a) - Number.parseInt(b));
  /** Every stored page last checked `hours` ago, as after a day without syncs. */
  const ageChecks = (hours: number) => db.query(`update knowledge_site_pages set checked_at = now() - $1::int * interval '1 hour'`, [hours]);

  beforeAll(async () => {
    ({ db, close } = await openDatabase());
    runs = new SiteSyncStore(db);
    site = await startLoopbackSite();
    sitemapUrl = `${site.origin}/sitemap.xml`;
    const entries = Array.from({ length: PAGES }, (_, n) => ({ loc: `${site.origin}${articlePath(n)}`, lastmod: '2026-10-01' }));
    // The sitemap never changes: it keeps listing every page with its old lastmod.
    site.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml(entries) });
    for (let n = 0; n < PAGES; n++) site.set(articlePath(n), { body: article(n) });
    const first = await sync();
    expect(first.counts).toMatchObject({ added: PAGES, removed: 0 });
  });
  afterAll(async () => {
    await site?.close();
    await close?.();
  });

  test('within the recheck window an unchanged lastmod spares the fetch, so a page deleted since is not seen yet', async () => {
    site.remove(articlePath(3));
    const from = site.requests.length;
    const report = await sync();
    expect(report.counts).toMatchObject({ unchanged: PAGES, removed: 0 });
    expect(pageRequests(from)).toEqual([]);
    expect(await storedArticles()).toHaveLength(PAGES);
  });

  test('a day later every page is re-checked with a conditional request: the 404 is removed, the others answer 304 and count as checked', async () => {
    await ageChecks(25);
    const from = site.requests.length;
    const before = Date.now();
    const report = await sync();

    expect(report).toMatchObject({ status: 'succeeded', removed: [`${site.origin}${articlePath(3)}`] });
    expect(report.counts).toMatchObject({ unchanged: PAGES - 1, removed: 1, fetched: 0, embedded: 0 });
    expect(pageRequests(from)).toEqual(Array.from({ length: PAGES }, (_, n) => `${n} ${n === 3 ? 404 : 304}`));
    // Conditional: what the page answered last time goes back.
    const conditional = site.requests.slice(from).filter((r) => r.path === articlePath(0));
    expect(conditional[0]!.headers['if-none-match']).toMatch(/^"[0-9a-f]+"$/);
    expect(await storedArticles()).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);

    const states = await runs.pageStates(sitemapUrl);
    expect(states.has(`${site.origin}${articlePath(3)}`)).toBe(false);
    // The 304s were written as checks (the database's clock, so a second's slack).
    for (const state of states.values()) expect(state.checkedAt!.getTime()).toBeGreaterThan(before - 1000);

    // Checked now: the next run within the day trusts the lastmod again (the page still
    // listed but not stored is asked for, as any new page is).
    const next = site.requests.length;
    await sync();
    expect(pageRequests(next)).toEqual(['3 404']);
  });

  test('with KNOWLEDGE_SYNC_RECHECK_HOURS=0 every run re-checks; a page that fails to answer is kept, never removed', async () => {
    site.set(articlePath(5), { status: 503, body: 'busy' });
    const from = site.requests.length;
    const report = await sync({ recheckAfterMs: 0 });
    expect(pageRequests(from)).toEqual(Array.from({ length: PAGES }, (_, n) => `${n} ${n === 3 ? 404 : n === 5 ? 503 : 304}`));
    expect(report.counts).toMatchObject({ failed: 1, removed: 0 });
    expect(await storedArticles()).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);

    await site.close();
    const down = await sync({ recheckAfterMs: 0 });
    expect(down.status).toBe('failed');
    expect(await storedArticles()).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
  });

  test('many 404s at once stay within the removal limit (held, none removed) until a prune run, which re-checks every page whatever the window', async () => {
    site = await startLoopbackSite({}, { port: Number(new URL(sitemapUrl).port) });
    const entries = Array.from({ length: PAGES }, (_, n) => ({ loc: `${site.origin}${articlePath(n)}`, lastmod: '2026-10-01' }));
    site.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml(entries) });
    // Four of the nine stored pages gone (44%, above the default 20%); the rest as they were.
    for (const n of [0, 1, 2, 4, 5]) site.set(articlePath(n), { body: article(n) });

    const held = await sync({ recheckAfterMs: 0 });
    expect(held.status).toBe('held');
    expect(held.held).toHaveLength(4);
    expect(held.message).toMatch(/none was removed.*--prune/s);
    expect(await storedArticles()).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);

    // Checked just now, yet a prune run does not trust the lastmod: it asks every page again.
    const from = site.requests.length;
    const pruned = await sync({ prune: true, recheckAfterMs: DAY_MS });
    expect(pageRequests(from)).toHaveLength(PAGES);
    expect(pruned).toMatchObject({ status: 'succeeded' });
    expect(pruned.removed).toHaveLength(4);
    expect(await storedArticles()).toEqual([0, 1, 2, 4, 5]);
  });
}

describe('a stale sitemap on PGlite', () => {
  staleSiteSuite(async () => {
    const { db } = await openTestStore();
    return { db, close: () => db.close() };
  });
});

describeOnTestServer('a stale sitemap on the PostgreSQL server', () => {
  staleSiteSuite(openMigratedTestDatabase);
});
