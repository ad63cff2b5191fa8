/**
 * The scheduled knowledge sync, end to end, on two instances of the real service over
 * one database of the real PostgreSQL server (TEST_DATABASE_URL): KNOWLEDGE_SYNC_URLS
 * names a help-center site on loopback (a sitemap, pages in site chrome) and
 * KNOWLEDGE_SYNC_INTERVAL_MINUTES a short interval. The site's answer to a question is
 * stored soon after start; when the page changes, the new answer is given within one
 * interval (plus the run that fetches it); the runs recorded by both instances never
 * overlap (one instance at a time syncs), and they are listed at GET /api/v1/knowledge/syncs.
 * Offline answers (the extractive responder quotes the passage), so the answer shows
 * which version of the page it came from.
 */
import { pageInSiteChrome, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { describeOnTestServer } from '../support/postgres';
import { TEST_AGENT_KEY } from '../support/test-service';
import { useTwoInstancesOnTestServer } from '../support/two-instances';

/** 0.05 minutes: a run every 3 s on each instance. */
const INTERVAL_MINUTES = 0.05;
const INTERVAL_MS = INTERVAL_MINUTES * 60_000;

describeOnTestServer('knowledge kept in sync by a running service (two instances, PostgreSQL server)', () => {
  let site: LoopbackSite;
  const returnsPage = (days: number) =>
    pageInSiteChrome({
      title: 'Returning an item',
      articleHtml: `<p>You can return any unworn item within ${days} days of delivery for a full refund.</p><p>Print the return label from your account and drop the parcel at any post office.</p>`,
    });
  const publishSitemap = (lastmod: string) =>
    site.set('/sitemap.xml', {
      contentType: 'application/xml',
      body: sitemapXml([
        { loc: `${site.origin}/help/returning-an-item`, lastmod },
        { loc: `${site.origin}/help/gift-cards`, lastmod: '2026-11-01' },
      ]),
    });

  beforeAll(async () => {
    site = await startLoopbackSite({
      '/robots.txt': { contentType: 'text/plain', body: 'User-agent: *\nAllow: /\n' },
      '/help/returning-an-item': returnsPage(30),
      '/help/gift-cards': pageInSiteChrome({ title: 'Gift cards', articleHtml: '<p>Gift cards never expire and can be used for any order in the shop.</p>' }),
    });
    publishSitemap('2026-11-01');
  });
  afterAll(async () => {
    await site?.close();
  });

  const setup = useTwoInstancesOnTestServer({
    env: () => ({ KNOWLEDGE_SYNC_URLS: `${site.origin}/sitemap.xml`, KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK: 'true', KNOWLEDGE_SYNC_INTERVAL_MINUTES: String(INTERVAL_MINUTES), OFFLINE_EMBEDDER: 'hashing' }),
    // Offline: the extractive responder quotes the page, so each answer shows the version it came from.
    modelEnv: { OPENAI_API_KEY: '' },
    checkConfig: (config) => expect(config.knowledgeSync).toEqual({ siteUrls: [`${site.origin}/sitemap.xml`], allowPrivateNetwork: true, intervalMs: INTERVAL_MS, recheckAfterMs: 24 * 3_600_000 }),
  });

  const ask = async (baseURL: string, message: string) => {
    const response = await fetch(`${baseURL}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
    expect(response.status).toBe(200);
    return (await response.json()) as { response: string; sources: { source: string }[] };
  };
  const listSyncs = async (baseURL: string, query = '') => {
    const response = await fetch(`${baseURL}/api/v1/knowledge/syncs${query}`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      syncs: { id: number; site: string; trigger: string; status: string; started_at: string; finished_at: string | null; counts: Record<string, number> }[];
      next_cursor: string | null;
    };
  };
  /** Polls until `check` passes (returns its value) or `ms` pass (throws with the last failure). */
  const within = async <T>(ms: number, check: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        return await check();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };

  it('answers from the site soon after start, and from its changed page within one interval, one instance syncing at a time', async () => {
    const { instances } = setup();
    const question = 'How many days do I have to return an item?';
    // Soon after start: the first turn comes a second after start.
    const first = await within(INTERVAL_MS + 10_000, async () => {
      const answer = await ask(instances[0]!.baseURL, question);
      expect(answer.response).toContain('within 30 days');
      return answer;
    });
    expect(first.sources.map((s) => s.source)).toContain(`${site.origin}/help/returning-an-item`);

    // The page changes (and the sitemap says so, as a CMS does).
    const changedAt = Date.now();
    site.set('/help/returning-an-item', { body: returnsPage(60) });
    publishSitemap('2026-11-20');
    // The next turn of either instance starts within one interval and fetches it; each instance answers from it.
    await within(INTERVAL_MS + 10_000, async () => {
      for (const instance of instances) expect((await ask(instance.baseURL, question)).response).toContain('within 60 days');
    });
    const { syncs } = await listSyncs(instances[1]!.baseURL, '?limit=100');
    const fetchedIt = syncs.filter((s) => s.counts['updated'] === 1);
    expect(fetchedIt).toHaveLength(1);
    expect(Date.parse(fetchedIt[0]!.started_at)).toBeGreaterThanOrEqual(changedAt - 1000);
    expect(Date.parse(fetchedIt[0]!.started_at)).toBeLessThanOrEqual(changedAt + INTERVAL_MS + 1000);

    // Let a few more turns pass (each instance ticks every interval), then read every run.
    await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_MS));
    const all = (await listSyncs(instances[0]!.baseURL, '?limit=100')).syncs.filter((s) => s.finished_at !== null);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(new Set(all.map((s) => s.trigger))).toEqual(new Set(['schedule']));
    expect(new Set(all.map((s) => s.status))).toEqual(new Set(['succeeded']));
    // No two runs overlap: each starts after the one before it ended.
    const inOrder = [...all].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
    for (let i = 1; i < inOrder.length; i++) {
      expect({ run: inOrder[i]!.id, startedAfterPreviousEnded: Date.parse(inOrder[i]!.started_at) >= Date.parse(inOrder[i - 1]!.finished_at!) }).toEqual({
        run: inOrder[i]!.id,
        startedAfterPreviousEnded: true,
      });
    }
    // Runs after the change found nothing new to embed.
    const later = all.filter((s) => s.id > fetchedIt[0]!.id);
    expect(later.every((s) => s.counts['embedded'] === 0 && (s.counts['added'] ?? 0) === 0)).toBe(true);
  });

  it('lists the runs newest first, a page at a time, one site at a time, with the agent key only', async () => {
    const { instances } = setup();
    const base = instances[0]!.baseURL;
    const firstPage = await listSyncs(base, '?limit=2');
    expect(firstPage.syncs).toHaveLength(2);
    expect(firstPage.syncs[0]!.id).toBeGreaterThan(firstPage.syncs[1]!.id);
    expect(firstPage.next_cursor).toBe(String(firstPage.syncs[1]!.id));
    const secondPage = await listSyncs(base, `?limit=2&cursor=${firstPage.next_cursor}`);
    expect(secondPage.syncs[0]!.id).toBeLessThan(firstPage.syncs[1]!.id);
    expect((await listSyncs(base, `?site=${encodeURIComponent('https://elsewhere.example/sitemap.xml')}`)).syncs).toEqual([]);
    expect((await listSyncs(base, `?site=${encodeURIComponent(`${site.origin}/sitemap.xml`)}&limit=1`)).syncs).toHaveLength(1);

    expect((await fetch(`${base}/api/v1/knowledge/syncs`)).status).toBe(401);
    for (const bad of ['?limit=0', '?limit=101', '?cursor=abc', '?site=ftp%3A%2F%2Fx']) {
      const response = await fetch(`${base}/api/v1/knowledge/syncs${bad}`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
      expect({ bad, status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code }).toEqual({ bad, status: 400, code: 'invalid_request' });
    }
  });
});
