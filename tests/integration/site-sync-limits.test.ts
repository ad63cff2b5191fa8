/**
 * A site sync against bad input and the conservative sync rules: each bad input stops
 * at its cap with a clear report and no partial source; a page that fails is kept; a
 * run that would remove too much removes nothing until --prune; robots.txt's
 * Crawl-delay and the request concurrency are obeyed. PGlite, loopback sites.
 */
import zlib from 'node:zlib';
import { NetworkGuard } from '../../src/connectors/network-guard';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL } from '../../src/knowledge/embeddings';
import { knowledgeBaseForSites } from '../../src/knowledge/sources/site-knowledge';
import { syncSite, type SiteSyncOptions, type SyncReport } from '../../src/knowledge/sources/site-sync';
import type { SqlDatabase } from '../../src/store/database';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { SiteSyncStore } from '../../src/store/site-sync-store';
import type { SqlStore } from '../../src/store/sql-store';
import { pageInSiteChrome, sitemapIndexXml, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { openTestStore } from '../support/database';
import { corruptPdf, encryptedPdf } from '../support/documents';

let db: SqlDatabase;
let store: SqlStore;
let admin: KnowledgeAdminStore;
let records: SiteSyncStore;
const sites: LoopbackSite[] = [];

beforeAll(async () => {
  ({ db, store } = await openTestStore());
  admin = new KnowledgeAdminStore(db);
  records = new SiteSyncStore(db);
});
afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
  await db?.close();
});
beforeEach(async () => {
  await db.query('truncate documents, knowledge_site_pages, knowledge_sync_runs');
});

const embedder = { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL };

function sync(url: string, options: SiteSyncOptions = {}): Promise<SyncReport> {
  const knowledge = knowledgeBaseForSites(
    {
      listSourceChunks: (s) => store.listSourceChunks(s),
      findEmbeddingsByHash: (h, m) => store.findEmbeddingsByHash(h, m),
      replaceSourceChunks: (s, c) => admin.replaceSourceChunks(s, c),
    },
    (s) => admin.deleteSource(s),
    embedder,
  );
  return syncSite(url, { guard: new NetworkGuard(), knowledge, store: records }, { timeoutMs: 3000, allowPrivateNetwork: true, ...options });
}

async function site(pages: Parameters<typeof startLoopbackSite>[0] = {}, options: Parameters<typeof startLoopbackSite>[1] = {}): Promise<LoopbackSite> {
  const started = await startLoopbackSite(pages, options);
  sites.push(started);
  return started;
}

function article(n: number | string): string {
  return pageInSiteChrome({ title: `Article ${n}`, articleHtml: `<p>Article ${n} says how parcels of group ${n} are handled and when they arrive.</p>` });
}

async function storedSources(): Promise<string[]> {
  return (await db.query<{ source: string }>('select distinct source from documents order by source')).map((r) => r.source);
}

/** A site whose sitemap lists the given paths, each an article unless `pages` says otherwise. */
async function siteWithSitemap(paths: string[], pages: Parameters<typeof startLoopbackSite>[0] = {}): Promise<LoopbackSite> {
  const s = await site();
  for (const p of paths) s.set(p, article(p));
  for (const [p, r] of Object.entries(pages)) s.set(p, r);
  s.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml(paths.map((p) => ({ loc: `${s.origin}${p}` }))) });
  return s;
}

describe('bad input stops at its cap, with a clear report and nothing half-stored', () => {
  test('a page larger than the size cap is skipped as too large; the rest of the site is stored', async () => {
    const s = await siteWithSitemap(['/ok', '/huge'], { '/huge': pageInSiteChrome({ title: 'Huge', articleHtml: `<p>${'Very long text. '.repeat(8000)}</p>` }) });
    const report = await sync(`${s.origin}/sitemap.xml`, { maxDocumentBytes: 64 * 1024 });

    expect(report.status).toBe('succeeded');
    expect(report.errors).toEqual([expect.objectContaining({ url: `${s.origin}/huge`, reason: 'too_large', message: expect.stringMatching(/larger than 65536 bytes/) })]);
    expect(await storedSources()).toEqual([`${s.origin}/ok`]);
  });

  test('a compressed response that inflates past the cap is cut off while it inflates', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a'));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const s = await siteWithSitemap(['/ok', '/bomb'], { '/bomb': { body: bomb, headers: { 'content-encoding': 'gzip' } } });
    const report = await sync(`${s.origin}/sitemap.xml`, { maxDocumentBytes: 64 * 1024 });

    expect(report.errors).toEqual([expect.objectContaining({ url: `${s.origin}/bomb`, reason: 'too_large' })]);
    expect(await storedSources()).toEqual([`${s.origin}/ok`]);
  });

  test('a content type that is neither HTML, PDF nor DOCX is not stored', async () => {
    const s = await siteWithSitemap(['/ok', '/prices.csv', '/logo'], {
      '/prices.csv': { contentType: 'text/csv', body: 'sku,price\nA1,10\n' },
      '/logo': { contentType: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    });
    const report = await sync(`${s.origin}/sitemap.xml`);

    expect(report.errors.map((e) => [new URL(e.url).pathname, e.reason])).toEqual(
      expect.arrayContaining([
        ['/prices.csv', 'unsupported_type'],
        ['/logo', 'unsupported_type'],
      ]),
    );
    expect(report.errors.find((e) => e.url.endsWith('/logo'))?.message).toMatch(/image\/png\) is neither HTML, PDF nor DOCX/);
    expect(await storedSources()).toEqual([`${s.origin}/ok`]);
  });

  test('a malformed sitemap fails the run with where it breaks; nothing is stored or removed', async () => {
    const s = await site({ '/page': article('page') });
    s.set('/sitemap.xml', { contentType: 'application/xml', body: `<?xml version="1.0"?><urlset><url><loc>${'x'}</loc></urlset>` });
    const report = await sync(`${s.origin}/sitemap.xml`);

    expect(report).toMatchObject({ status: 'failed', mode: 'sitemap' });
    expect(report.message).toMatch(/not well-formed XML \(line 1: .*\).*Nothing was removed/s);
    expect(await storedSources()).toEqual([]);
    const [run] = await records.recentRuns({ limit: 1 });
    expect(run).toMatchObject({ status: 'failed', message: report.message });
  });

  test('a gigantic sitemap is refused at its size cap, and one with too many entries at the entry cap', async () => {
    const s = await site();
    const entries = Array.from({ length: 3000 }, (_, n) => ({ loc: `${s.origin}/page-${n}` }));
    s.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml(entries) });
    const bySize = await sync(`${s.origin}/sitemap.xml`, { sitemapMaxBytes: 32 * 1024 });
    expect(bySize).toMatchObject({ status: 'failed' });
    expect(bySize.message).toMatch(/sitemap is larger than 32768 bytes; not read/);

    const byCount = await sync(`${s.origin}/sitemap.xml`, { sitemapMaxEntries: 1000 });
    expect(byCount).toMatchObject({ status: 'failed' });
    expect(byCount.message).toMatch(/lists 3000 entries, more than 1000/);
    expect(s.requests.filter((r) => r.path.startsWith('/page-'))).toEqual([]);
    expect(await storedSources()).toEqual([]);
  });

  test('a sitemap index that names itself (and a pair that name each other) is read once each and reported', async () => {
    const s = await site({ '/a': article('a'), '/b': article('b') });
    s.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapIndexXml([`${s.origin}/sitemap.xml`, `${s.origin}/one.xml`]) });
    s.set('/one.xml', { contentType: 'application/xml', body: sitemapIndexXml([`${s.origin}/two.xml`]) });
    s.set('/two.xml', { contentType: 'application/xml', body: sitemapIndexXml([`${s.origin}/one.xml`, `${s.origin}/pages.xml`]) });
    s.set('/pages.xml', { contentType: 'application/xml', body: sitemapXml([{ loc: `${s.origin}/a` }, { loc: `${s.origin}/b` }]) });
    const report = await sync(`${s.origin}/sitemap.xml`);

    expect(report.status).toBe('succeeded');
    expect(report.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'loop', message: expect.stringMatching(/sitemap\.xml names itself/) }),
        expect.objectContaining({ reason: 'loop', message: expect.stringMatching(/two\.xml names .*one\.xml, which was read already/) }),
      ]),
    );
    for (const file of ['/sitemap.xml', '/one.xml', '/two.xml']) expect(s.requests.filter((r) => r.path === file)).toHaveLength(1);
    expect(await storedSources()).toEqual([`${s.origin}/a`, `${s.origin}/b`]);
  });

  test('a link maze that generates new URLs forever is cut off by the maze guard, each refusal reported', async () => {
    const s = await site(
      {},
      {
        generate: (path) => {
          const match = /^\/maze\/(\d+)/.exec(path);
          if (!match) return undefined;
          const n = Number(match[1]);
          return { body: pageInSiteChrome({ title: `Maze ${n}`, articleHtml: `<p>Room ${n} of the maze.</p><a href="/maze/${n + 1}">next</a> <a href="/maze/${n}/again/${n}?v=${n}">deeper</a>` }) };
        },
      },
    );
    const report = await sync(`${s.origin}/maze/0`, { mazeLimits: { maxLinkDepth: 10 } });

    expect(report).toMatchObject({ status: 'succeeded', mode: 'crawl' });
    expect(s.requests.length).toBeLessThan(40);
    const stored = await storedSources();
    expect(stored).toContain(`${s.origin}/maze/10`);
    expect(stored).not.toContain(`${s.origin}/maze/11`);
    expect(report.counts.skipped).toBeGreaterThan(0);
  });

  test('a redirect to another port of the same host is another site: not stored', async () => {
    const other = await site({ '/there': article('there') });
    const s = await siteWithSitemap(['/ok', '/moved'], { '/moved': { status: 301, headers: { location: `${other.origin}/there` } } });
    const report = await sync(`${s.origin}/sitemap.xml`);

    expect(report.counts.skipped).toBe(1);
    expect(await storedSources()).toEqual([`${s.origin}/ok`]);
  });

  test('a redirect loop is reported and stores nothing', async () => {
    const s = await siteWithSitemap(['/ok', '/loop-a'], {
      '/loop-a': { status: 301, headers: { location: '/loop-b' } },
      '/loop-b': { status: 301, headers: { location: '/loop-a' } },
    });
    const report = await sync(`${s.origin}/sitemap.xml`);

    expect(report.errors).toEqual([expect.objectContaining({ url: `${s.origin}/loop-a`, reason: 'redirect_loop', message: expect.stringMatching(/redirects in a loop/) })]);
    expect(await storedSources()).toEqual([`${s.origin}/ok`]);
  });

  test('an encrypted and a corrupt PDF linked from a page are reported as unreadable and store nothing', async () => {
    const s = await siteWithSitemap(['/manuals'], {
      '/manuals': pageInSiteChrome({ title: 'Manuals', articleHtml: '<p>Our manuals.</p><a href="/files/locked.pdf">locked</a> <a href="/files/broken.pdf">broken</a>' }),
      '/files/locked.pdf': { contentType: 'application/pdf', body: Buffer.from(await encryptedPdf()) },
      '/files/broken.pdf': { contentType: 'application/pdf', body: Buffer.from(await corruptPdf()) },
    });
    const report = await sync(`${s.origin}/sitemap.xml`);

    expect(report.errors.map((e) => [new URL(e.url).pathname, e.reason]).sort()).toEqual([
      ['/files/broken.pdf', 'unreadable'],
      ['/files/locked.pdf', 'unreadable'],
    ]);
    expect(await storedSources()).toEqual([`${s.origin}/manuals`]);
  });
});

describe('syncing is conservative', () => {
  test('a page that answers 5xx or times out is kept as it was', async () => {
    const s = await siteWithSitemap(['/a', '/b', '/c']);
    await sync(`${s.origin}/sitemap.xml`);
    s.set('/a', { status: 503, body: 'maintenance' });
    s.set('/b', { body: article('b'), delayMs: 1500 });
    const report = await sync(`${s.origin}/sitemap.xml`, { timeoutMs: 500 });

    expect(report).toMatchObject({ status: 'succeeded', removed: [] });
    expect(report.counts).toMatchObject({ failed: 2, unchanged: 1, removed: 0 });
    expect(await storedSources()).toEqual([`${s.origin}/a`, `${s.origin}/b`, `${s.origin}/c`]);
  });

  test('a run that would remove more than the allowed share removes none and says to --prune; --prune removes them', async () => {
    const paths = Array.from({ length: 10 }, (_, n) => `/p${n}`);
    const s = await siteWithSitemap(paths);
    await sync(`${s.origin}/sitemap.xml`);
    for (const p of ['/p1', '/p2', '/p3']) s.remove(p);

    const held = await sync(`${s.origin}/sitemap.xml`, { maxRemovalPercent: 20 });
    expect(held).toMatchObject({ status: 'held', removed: [] });
    expect(held.held).toHaveLength(3);
    expect(held.message).toMatch(/3 of the site's 10 pages \(30%\) are gone.*none was removed.*npm run ingest -- --prune/s);
    expect(await storedSources()).toHaveLength(10);
    expect((await records.recentRuns({ limit: 1 }))[0]).toMatchObject({ status: 'held', message: held.message });

    const pruned = await sync(`${s.origin}/sitemap.xml`, { prune: true });
    expect(pruned.status).toBe('succeeded');
    expect(pruned.removed).toEqual([`${s.origin}/p1`, `${s.origin}/p2`, `${s.origin}/p3`]);
    expect(await storedSources()).toHaveLength(7);
  });

  test('a page no longer in a sitemap read whole is removed; when part of the sitemap cannot be read, none is removed for being unlisted', async () => {
    const paths = Array.from({ length: 10 }, (_, n) => `/p${n}`);
    const s = await site();
    for (const p of paths) s.set(p, article(p));
    const listing = (list: string[]) => ({ contentType: 'application/xml', body: sitemapXml(list.map((p) => ({ loc: `${s.origin}${p}` }))) });
    s.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapIndexXml([`${s.origin}/first.xml`, `${s.origin}/second.xml`]) });
    s.set('/first.xml', listing(paths.slice(0, 5)));
    s.set('/second.xml', listing(paths.slice(5)));
    await sync(`${s.origin}/sitemap.xml`);

    s.set('/second.xml', { status: 500, body: 'oops' });
    s.set('/first.xml', listing(paths.slice(0, 4)));
    const partial = await sync(`${s.origin}/sitemap.xml`);
    expect(partial).toMatchObject({ status: 'succeeded', removed: [] });
    expect(partial.errors).toEqual([expect.objectContaining({ url: `${s.origin}/second.xml`, reason: 'http_status' })]);
    expect(await storedSources()).toHaveLength(10);

    s.set('/second.xml', listing(paths.slice(5)));
    const whole = await sync(`${s.origin}/sitemap.xml`);
    expect(whole.removed).toEqual([`${s.origin}/p4`]);
  });

  test('one article reached by several URLs is one source: its canonical URL, else the URL without its query', async () => {
    const s = await site();
    const canonicalPage = pageInSiteChrome({ title: 'Returns', canonical: `${s.origin}/help/returns`, articleHtml: '<p>Returns are free within 30 days.</p>' });
    s.set('/help/', pageInSiteChrome({ title: 'Help', articleHtml: '<p>Start here.</p><a href="/help/returns?utm_source=mail">a</a> <a href="/help/returns-old">b</a> <a href="/help/faq?page=2">c</a> <a href="/blog/news">d</a>' }));
    s.set('/help/returns', canonicalPage);
    s.set('/help/returns-old', canonicalPage);
    s.set('/help/faq?page=2', article('faq'));
    s.set('/blog/news', article('news'));
    const report = await sync(`${s.origin}/help/`);

    expect(report.mode).toBe('crawl');
    expect(await storedSources()).toEqual([`${s.origin}/help/`, `${s.origin}/help/faq`, `${s.origin}/help/returns`]);
    expect(s.requests.some((r) => r.path.startsWith('/blog/'))).toBe(false);
  });

  test('robots.txt Crawl-delay spaces the requests; without it at most 2 are in flight', async () => {
    const paths = Array.from({ length: 6 }, (_, n) => `/p${n}`);
    const slow = Object.fromEntries(paths.map((p) => [p, { body: article(p), delayMs: 100 }]));
    const busy = await siteWithSitemap(paths, slow);
    await sync(`${busy.origin}/sitemap.xml`);
    expect(busy.maxInFlight).toBe(2);

    const polite = await siteWithSitemap(paths, { '/robots.txt': { contentType: 'text/plain', body: 'User-agent: *\nCrawl-delay: 0.3\n' } });
    await sync(`${polite.origin}/sitemap.xml`);
    const pageTimes = polite.requests.filter((r) => /^\/p\d$/.test(r.path)).map((r) => r.at);
    expect(pageTimes).toHaveLength(6);
    for (let k = 1; k < pageTimes.length; k++) expect(pageTimes[k]! - pageTimes[k - 1]!).toBeGreaterThanOrEqual(280);
    expect(polite.requests.every((r) => r.headers['user-agent'] === 'support-agent-crawler/0.1.0')).toBe(true);
  });
});
