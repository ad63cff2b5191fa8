/**
 * A help-center site on loopback synced into PGlite, as `npm run ingest -- <site>/sitemap.xml`
 * and the service's scheduler do it: a sitemap index naming two sitemaps, 50 pages in site
 * chrome, 2 PDFs and a Word file linked from pages, robots.txt disallowing /internal/, a
 * redirect to another host, a 404. Then the same site unchanged, with one page changed, with
 * one page gone, and down.
 */
import { NetworkGuard } from '../../src/connectors/network-guard';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL, type Embedder } from '../../src/knowledge/embeddings';
import { knowledgeBaseForSites } from '../../src/knowledge/sources/site-knowledge';
import { createRetriever } from '../../src/knowledge/retriever';
import { syncSite, type SiteSyncParts, type SyncProgress } from '../../src/knowledge/sources/site-sync';
import type { SqlDatabase } from '../../src/store/database';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { SiteSyncStore } from '../../src/store/site-sync-store';
import type { SqlStore } from '../../src/store/sql-store';
import { pageInSiteChrome, SITE_CHROME_TEXT, sitemapIndexXml, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { openTestStore } from '../support/database';
import { policyDocx, threePagePdf } from '../support/documents';

/** The offline embedder, counting the texts it embeds. */
function countingEmbedder(): Embedder & { embedded: string[] } {
  const embedded: string[] = [];
  const embeddings = new HashingEmbeddings();
  const embedDocuments = embeddings.embedDocuments.bind(embeddings);
  embeddings.embedDocuments = async (texts: string[]) => {
    embedded.push(...texts);
    return embedDocuments(texts);
  };
  return { embeddings, model: OFFLINE_EMBEDDING_MODEL, embedded };
}

const TOPICS = ['parcel tracking', 'gift cards', 'store pickup', 'loyalty points', 'size guides', 'invoices', 'price matching', 'bulk orders', 'student discount', 'repairs'];

function articleHtml(n: number, extra = ''): string {
  const topic = TOPICS[n % TOPICS.length]!;
  return `<p>Article ${n} explains ${topic} for order group ${n}. Customers in group ${n} get answers about ${topic} within ${n + 1} business days.</p>
<h2>Details for group ${n}</h2><ul><li>Reference code HC-${1000 + n}</li><li>Handled by team ${n % 5}</li></ul>${extra}`;
}

let db: SqlDatabase;
let store: SqlStore;
let admin: KnowledgeAdminStore;
let runs: SiteSyncStore;
let site: LoopbackSite;
let otherHost: LoopbackSite;
let embedder: ReturnType<typeof countingEmbedder>;

function parts(): SiteSyncParts {
  return {
    guard: new NetworkGuard(),
    store: runs,
    knowledge: knowledgeBaseForSites(
      {
        listSourceChunks: (s) => store.listSourceChunks(s),
        findEmbeddingsByHash: (h, m) => store.findEmbeddingsByHash(h, m),
        replaceSourceChunks: (s, c) => admin.replaceSourceChunks(s, c),
      },
      (s) => admin.deleteSource(s),
      embedder,
    ),
  };
}

async function storedSources(): Promise<string[]> {
  const rows = await db.query<{ source: string }>('select distinct source from documents order by source');
  return rows.map((r) => r.source);
}

function page(n: number, extra = ''): string {
  return pageInSiteChrome({
    title: `Help article ${n}`,
    articleHtml: articleHtml(n, extra),
    relatedLinks: [{ href: `/help/article-${(n + 1) % 50}`, text: `Article ${(n + 1) % 50}` }],
  });
}

beforeAll(async () => {
  ({ db, store } = await openTestStore());
  admin = new KnowledgeAdminStore(db);
  runs = new SiteSyncStore(db);
  embedder = countingEmbedder();
  // Another host: the guard compares host names, and localhost is not 127.0.0.1.
  otherHost = await startLoopbackSite({ '/elsewhere': pageInSiteChrome({ title: 'Elsewhere', articleHtml: '<p>Text from another host must never be stored.</p>' }) }, { host: 'localhost' });
  site = await startLoopbackSite();
  const o = site.origin;
  const first = Array.from({ length: 25 }, (_, n) => ({ loc: `${o}/help/article-${n}`, lastmod: '2026-11-01' }));
  const second = Array.from({ length: 25 }, (_, n) => ({ loc: `${o}/help/article-${n + 25}` }));
  site.set('/robots.txt', { contentType: 'text/plain', body: 'User-agent: *\nDisallow: /internal/\n' });
  site.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapIndexXml([`${o}/sitemaps/a.xml`, `${o}/sitemaps/b.xml`]) });
  site.set('/sitemaps/a.xml', {
    contentType: 'application/xml',
    body: sitemapXml([...first, { loc: `${o}/internal/staff-only` }, { loc: `${o}/help/moved` }, { loc: `${o}/help/missing` }]),
  });
  site.set('/sitemaps/b.xml', { contentType: 'application/xml', body: sitemapXml(second) });
  for (let n = 0; n < 50; n++) site.set(`/help/article-${n}`, { body: page(n) });
  // Pages that link the documents (relative and absolute links).
  site.set('/help/article-3', { body: page(3, '<p>Download the <a href="/files/kettle-manual.pdf">kettle manual</a>.</p>') });
  site.set('/help/article-30', {
    body: page(30, `<p>See the <a href="${o}/files/toaster-manual.pdf">toaster manual</a> and the <a href="/files/warranty-policy.docx">warranty policy</a>.</p>`),
  });
  site.set('/files/kettle-manual.pdf', { contentType: 'application/pdf', body: Buffer.from(await threePagePdf()) });
  site.set('/files/toaster-manual.pdf', {
    contentType: 'application/pdf',
    body: Buffer.from(await threePagePdf(['Toaster manual. The toaster has six browning levels.', 'Cleaning. Empty the crumb tray every week.'])),
  });
  site.set('/files/warranty-policy.docx', {
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    body: Buffer.from(await policyDocx()),
  });
  site.set('/internal/staff-only', { body: pageInSiteChrome({ title: 'Staff only', articleHtml: '<p>Internal discount codes.</p>' }) });
  site.set('/help/moved', { status: 302, headers: { location: `${otherHost.origin}/elsewhere` } });
});

afterAll(async () => {
  await site?.close();
  await otherHost?.close();
  await db?.close();
});

describe('syncing a help-center site from its sitemap', () => {
  const pagesAndFiles = 53;

  test('stores the 50 pages, 2 PDFs and the Word file: nothing under /internal/, nothing from the other host, no site chrome in any chunk', async () => {
    const events: SyncProgress[] = [];
    const report = await syncSite(`${site.origin}/sitemap.xml`, parts(), { allowPrivateNetwork: true, onProgress: (e) => events.push(e) });

    expect(report).toMatchObject({ status: 'succeeded', mode: 'sitemap', message: null });
    expect(report.counts).toMatchObject({ added: pagesAndFiles, updated: 0, removed: 0 });
    const sources = await storedSources();
    expect(sources).toHaveLength(pagesAndFiles);
    expect(sources).toContain(`${site.origin}/help/article-0`);
    expect(sources).toContain(`${site.origin}/files/kettle-manual.pdf`);
    expect(sources).toContain(`${site.origin}/files/warranty-policy.docx`);
    expect(sources.some((s) => s.includes('/internal/'))).toBe(false);
    expect(sources.some((s) => s.includes('elsewhere') || s.includes('localhost'))).toBe(false);
    expect(site.requests.some((r) => r.path.startsWith('/internal/'))).toBe(false);
    expect(otherHost.requests).toHaveLength(0);

    const chunks = await db.query<{ content: string }>('select content from documents');
    for (const text of Object.values(SITE_CHROME_TEXT)) {
      expect(chunks.filter((c) => c.content.includes(text))).toEqual([]);
    }
    // Each chunk keeps where it came from: the page's URL, and a PDF's page number.
    const pdf = await db.query<{ content: string; metadata: { url?: string; page?: number } }>(
      `select content, metadata from documents where source = $1 order by chunk_index`,
      [`${site.origin}/files/kettle-manual.pdf`],
    );
    expect(pdf.find((c) => c.content.includes('citric acid'))?.metadata).toMatchObject({ url: `${site.origin}/files/kettle-manual.pdf`, page: 2 });
    const [article] = await db.query<{ metadata: { url?: string } }>(`select metadata from documents where source = $1 limit 1`, [`${site.origin}/help/article-7`]);
    expect(article!.metadata.url).toBe(`${site.origin}/help/article-7`);

    // The report says why each page was not stored.
    const skipped = events.filter((e) => e.kind === 'skipped').map((e) => `${new URL(e.url).pathname}: ${e.detail}`);
    expect(skipped).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/internal\/staff-only: disallowed by robots\.txt/),
        expect.stringMatching(/^\/help\/moved: redirects to another host/),
        expect.stringMatching(/^\/help\/missing: answers 404/),
      ]),
    );
    const [recorded] = await runs.recentRuns({ limit: 1 });
    expect(recorded).toMatchObject({ id: report.runId, status: 'succeeded', trigger: 'cli', counts: expect.objectContaining({ added: pagesAndFiles }) });
    expect(recorded!.finishedAt).not.toBeNull();
  });

  test('a question finds the page with its URL, and one about a PDF finds the PDF page it is on', async () => {
    const retriever = createRetriever(store, embedder, { topK: 3, minSimilarity: 0 });
    const [fromPdf] = await retriever.retrieve('How often should I descale the kettle with citric acid?');
    expect(fromPdf).toMatchObject({ source: `${site.origin}/files/kettle-manual.pdf`, metadata: expect.objectContaining({ url: `${site.origin}/files/kettle-manual.pdf`, page: 2 }) });
    const [fromPage] = await retriever.retrieve('What is reference code HC-1017 about?');
    expect(fromPage).toMatchObject({ source: `${site.origin}/help/article-17`, metadata: expect.objectContaining({ url: `${site.origin}/help/article-17` }) });
  });

  test('run again unchanged: nothing embedded, nothing written; the sitemap lastmod and 304s spare the fetches', async () => {
    const embeddedBefore = embedder.embedded.length;
    const requestsBefore = site.requests.length;
    const report = await syncSite(`${site.origin}/sitemap.xml`, parts(), { allowPrivateNetwork: true });

    expect(report.status).toBe('succeeded');
    expect(report.counts).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: pagesAndFiles, embedded: 0 });
    expect(embedder.embedded.length).toBe(embeddedBefore);
    const pageRequests = site.requests.slice(requestsBefore).filter((r) => r.path.startsWith('/help/article-'));
    // Pages 0-24 carry a lastmod: not requested at all. Pages 25-49: a conditional request each, answered 304.
    expect(pageRequests.filter((r) => Number(/article-(\d+)$/.exec(r.path)![1]) < 25)).toEqual([]);
    expect(pageRequests.length).toBe(25);
    expect(pageRequests.every((r) => r.status === 304)).toBe(true);
  });

  test('one page changed: that one replaced, the others left alone', async () => {
    site.set('/help/article-40', { body: page(40, '<p>New: group 40 now also gets free express shipping.</p>') });
    const report = await syncSite(`${site.origin}/sitemap.xml`, parts(), { allowPrivateNetwork: true });

    expect(report.counts).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: pagesAndFiles - 1 });
    expect(report.counts.embedded).toBeGreaterThan(0);
    const chunks = await db.query<{ content: string }>('select content from documents where source = $1', [`${site.origin}/help/article-40`]);
    expect(chunks.map((c) => c.content).join(' ')).toContain('free express shipping');
  });

  test('one page now 404: removed, and forgotten by the crawl state', async () => {
    site.remove('/help/article-41');
    const report = await syncSite(`${site.origin}/sitemap.xml`, parts(), { allowPrivateNetwork: true });

    expect(report).toMatchObject({ status: 'succeeded', removed: [`${site.origin}/help/article-41`] });
    expect(report.counts.removed).toBe(1);
    expect(await storedSources()).toHaveLength(pagesAndFiles - 1);
    expect((await runs.pageStates(`${site.origin}/sitemap.xml`)).has(`${site.origin}/help/article-41`)).toBe(false);
  });

  test('the site down: nothing removed, and the run recorded as failed', async () => {
    const before = await storedSources();
    await site.close();
    const report = await syncSite(`${site.origin}/sitemap.xml`, parts(), { allowPrivateNetwork: true, timeoutMs: 2000 });

    expect(report.status).toBe('failed');
    expect(report.message).toMatch(/cannot be reached.*Nothing was removed/s);
    expect(report.removed).toEqual([]);
    expect(await storedSources()).toEqual(before);
    const [recorded] = await runs.recentRuns({ site: `${site.origin}/sitemap.xml`, limit: 1 });
    expect(recorded).toMatchObject({ id: report.runId, status: 'failed', message: report.message });
  });
});
