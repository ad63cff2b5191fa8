/**
 * Crawling a site on the private network is the operator's explicit choice, per site: a
 * configured public name whose DNS answers 127.0.0.1 at the start of a run must not
 * crawl a loopback service (issue 34, item 4). The site runs on loopback; the guard's
 * resolver plays the DNS server that answers 127.0.0.1 for `help.vendor.test`.
 */
import { NetworkGuard, type Resolver } from '../../src/connectors/network-guard';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL } from '../../src/knowledge/embeddings';
import { bindSiteSync } from '../../src/knowledge/site-sync-binding';
import { knowledgeBaseForSites } from '../../src/knowledge/sources/site-knowledge';
import { syncSite, type SiteSyncParts } from '../../src/knowledge/sources/site-sync';
import type { SqlDatabase } from '../../src/store/database';
import { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import { SiteSyncStore } from '../../src/store/site-sync-store';
import type { SqlStore } from '../../src/store/sql-store';
import { pageInSiteChrome, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { openTestStore } from '../support/database';

/** The page's secret, as its Markdown keeps it (the converter escapes the underscore of DB_PASSWORD). */
const SECRET = 'hunter2';

let db: SqlDatabase;
let store: SqlStore;
let admin: KnowledgeAdminStore;
let runs: SiteSyncStore;
let site: LoopbackSite;

/** The DNS answer of the finding: a public-looking name that resolves to loopback. */
const rebindingDns: Resolver = async (hostname) => {
  if (hostname === 'help.vendor.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

function parts(): SiteSyncParts {
  return {
    guard: new NetworkGuard({ resolve: rebindingDns }),
    store: runs,
    knowledge: knowledgeBaseForSites(
      {
        listSourceChunks: (s) => store.listSourceChunks(s),
        findEmbeddingsByHash: (h, m) => store.findEmbeddingsByHash(h, m),
        replaceSourceChunks: (s, c) => admin.replaceSourceChunks(s, c),
      },
      (s) => admin.deleteSource(s),
      { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL },
    ),
  };
}

async function storedText(): Promise<string> {
  const rows = await db.query<{ content: string }>('select content from documents');
  return rows.map((r) => r.content).join('\n');
}

/** The configured URL: the vendor's name, on the loopback site's port. */
const vendorUrl = () => `http://help.vendor.test:${new URL(site.origin).port}/help/`;

beforeAll(async () => {
  ({ db, store } = await openTestStore());
  admin = new KnowledgeAdminStore(db);
  runs = new SiteSyncStore(db);
  site = await startLoopbackSite({
    '/help/': pageInSiteChrome({ title: 'Internal config', articleHtml: `<p>The service reads its settings from the environment: DB_PASSWORD=${SECRET} and the rest.</p>` }),
  });
}, 180_000);

afterAll(async () => {
  await site?.close();
  await db?.close();
});

// Each test starts from an empty knowledge base with no crawl state (no page known as unchanged).
beforeEach(async () => {
  await db.query('delete from documents');
  await db.query('delete from knowledge_site_pages');
});

test('a site whose DNS answers a loopback address is crawled public-only unless the operator allowed the private network: the run fails, nothing is stored', async () => {
  const report = await syncSite(vendorUrl(), parts());
  expect(report.status).toBe('failed');
  expect(report.message).toMatch(/127\.0\.0\.1, a loopback or private address: refused unless allow_private_network is set/);
  expect(report.counts.added).toBe(0);
  expect(await storedText()).not.toContain(SECRET);
});

test('the same site is crawled when the operator allowed the private network for it', async () => {
  const report = await syncSite(vendorUrl(), parts(), { allowPrivateNetwork: true });
  expect(report.status).toBe('succeeded');
  expect(report.counts.added).toBe(1);
  expect(await storedText()).toContain(SECRET);
});

test("the service's sync opens the private network only to the sites named with allow_private_network", async () => {
  const p = parts();
  const bound = (privateSites: string[]) =>
    bindSiteSync({
      store,
      admin,
      embedder: { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL },
      syncRuns: runs,
      guard: p.guard,
      maxRemovalPercent: 20,
      privateNetworkSites: new Set(privateSites),
    });
  const refused = (await bound(['http://intranet.example/help/'])(vendorUrl(), new AbortController().signal)) as { status: string };
  expect(refused.status).toBe('failed');
  expect(await storedText()).not.toContain(SECRET);

  const allowed = (await bound([vendorUrl()])(vendorUrl(), new AbortController().signal)) as { status: string };
  expect(allowed.status).toBe('succeeded');
  expect(await storedText()).toContain(SECRET);
});
