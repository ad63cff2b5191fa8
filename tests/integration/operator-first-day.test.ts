/**
 * What an operator meets on the first day. A broken setup says so: the real service (PGlite), answering through the real OpenAI
 * client against the loopback OpenAI-compatible stub, with its log captured.
 * - KNOWLEDGE_SYNC_URLS names a sitemap that answers 404: the scheduled sync logs at
 *   error level with the reason as the message, and /health names the failing site.
 * - A page on another origin (not in WIDGET_ALLOWED_ORIGINS) calling the widget's
 *   endpoints is refused with 403 and logged at warn, naming the origin and the
 *   setting, and the model server receives no request.
 * - POST /api/v1/knowledge/syncs syncs a loopback site in the service: agent key,
 *   validation, a recorded run (trigger `api`), crawl state kept between runs.
 * - The knowledge tool's description names the stored articles, read again when a
 *   source is written (not only at the start).
 */
import { Writable } from 'node:stream';
import { pageInSiteChrome, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { createLogger } from '../../src/observability/logger';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const SHOP = 'https://shop.example';
const STRANGER = 'https://elsewhere.example';

let stub: OpenAIStub;
let service: TestService;
let site: LoopbackSite;
const logLines: { level: number; msg: string; [key: string]: unknown }[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim() !== '') logLines.push(JSON.parse(line));
    done();
  },
});
/** pino's levels. */
const WARN = 40;
const ERROR = 50;

/** Polls until `check` passes (returns its value) or `ms` pass (throws its last failure). */
async function within<T>(ms: number, check: () => Promise<T> | T): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

beforeAll(async () => {
  stub = await startOpenAIStub();
  site = await startLoopbackSite({
    '/help/returns': pageInSiteChrome({ title: 'Returns', articleHtml: '<p>Returns are accepted within 45 days of delivery when the piece is unused.</p>' }),
    '/help/glaze': pageInSiteChrome({ title: 'Glaze care', articleHtml: '<p>Our glazes are food safe and dishwasher safe on the top rack.</p>' }),
  });
  site.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml([`${site.origin}/help/returns`, `${site.origin}/help/glaze`].map((loc) => ({ loc }))) });
  service = await startTestService({
    env: openAIStubEnv(stub.baseURL, {
      WIDGET_ALLOWED_ORIGINS: SHOP,
      // The operator mistyped the sitemap's name: it answers 404.
      KNOWLEDGE_SYNC_URLS: `${site.origin}/sitemaps.xml`,
      // The site runs on loopback: crawling it is the operator's explicit choice.
      KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK: 'true',
      TRUST_PROXY: '1',
      // This machine is shared and slow: the stub's embeddings must not time out mid-sync.
      OPENAI_TIMEOUT_MS: '30000',
    }),
    logger: createLogger('info', logSink),
  });
}, 240_000);
afterAll(async () => {
  await service?.close();
  await site?.close();
  await stub?.close();
});

describe('a sync that fails is loud', () => {
  it('logs the wrong sitemap at error level with its reason as the message, and /health names the site', async () => {
    const failure = await within(15_000, () => {
      const line = logLines.find((l) => l.event === 'knowledge_sync');
      if (!line) throw new Error('no sync logged yet');
      return line;
    });
    expect(failure.level).toBe(ERROR);
    expect(failure.msg).toBe(`Knowledge sync of ${site.origin}/sitemaps.xml failed (run #${(failure as any).report.runId}): ${site.origin}/sitemaps.xml answers 404; expected a sitemap or a page. Nothing was removed.`);
    expect(logLines.filter((l) => /Knowledge synced/.test(l.msg))).toEqual([]);

    const health = await within(20_000, async () => {
      const body = (await (await fetch(`${service.baseURL}/health`)).json()) as any;
      expect(body.knowledge_sync.status).toBe('failing');
      return body;
    });
    expect(health).toMatchObject({ status: 'ok', database: 'ok' });
    expect(health.knowledge_sync.failed_sites).toEqual([{ site: `${site.origin}/sitemaps.xml`, status: 'failed', finished_at: expect.any(String) }]);
  });
});

describe('a page on an origin not allowed costs nothing', () => {
  const chat = (path: string, origin: string) =>
    fetch(`${service.baseURL}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ message: 'How long do I have to return a vase?' }),
    });

  it('is refused with 403 before any model call, and logged at warn with the origin and WIDGET_ALLOWED_ORIGINS', async () => {
    stub.reset();
    const before = await service.countRows('chat_messages');
    for (const path of ['/api/v1/chat', '/api/v1/chat/stream']) {
      const refused = await chat(path, STRANGER);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ error: { code: 'origin_not_allowed', message: expect.stringContaining('WIDGET_ALLOWED_ORIGINS') } });
    }
    expect(stub.chatRequests()).toHaveLength(0);
    expect(stub.embeddingRequests()).toHaveLength(0);
    expect(await service.countRows('chat_messages')).toBe(before);
    const warnings = logLines.filter((l) => l.event === 'cors_refused');
    expect(warnings).toHaveLength(2);
    for (const w of warnings) {
      expect(w.level).toBe(WARN);
      expect(w.origin).toBe(STRANGER);
      expect(w.msg).toContain(STRANGER);
      expect(w.msg).toContain('WIDGET_ALLOWED_ORIGINS');
    }
  });

  it('still answers the allowed shop, the service own pages and callers without an Origin', async () => {
    stub.reset();
    for (const origin of [SHOP, new URL(service.baseURL).origin]) expect((await chat('/api/v1/chat', origin)).status).toBe(200);
    expect((await service.postChat({ message: 'Is the glaze food safe?' })).status).toBe(200);
    expect(stub.chatRequests().length).toBeGreaterThanOrEqual(3);
  });
});

describe('POST /api/v1/knowledge/syncs', () => {
  const startSync = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TEST_AGENT_KEY}` }) =>
    fetch(`${service.baseURL}/api/v1/knowledge/syncs`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  /** Starts a sync once the one going on (the schedule's first, on a slow machine) has ended: 409 until then. */
  const startSyncWhenFree = (body: unknown) =>
    within(30_000, async () => {
      const response = await startSync(body);
      if (response.status === 409) {
        expect(response.headers.get('retry-after')).toBe('30');
        throw new Error('a sync is going on');
      }
      return response;
    });
  const runOf = async (id: number) => {
    const { body } = await service.request('GET', `/api/v1/knowledge/syncs?site=${encodeURIComponent(`${site.origin}/sitemap.xml`)}`);
    const run = body.syncs.find((r: { id: number }) => r.id === id);
    if (!run || run.status === 'running') throw new Error(`run ${id} has not ended`);
    return run;
  };

  it('needs the agent key, and a valid site', async () => {
    expect((await startSync({ site: `${site.origin}/sitemap.xml` }, {})).status).toBe(401);
    for (const body of [{}, { site: 'ftp://example.com/' }, { site: `${site.origin}/sitemap.xml`, prune: 'yes' }, { site: `${site.origin}/sitemap.xml`, depth: 3 }, { site: `${site.origin}/`, max_pages: 0 }]) {
      const refused = await startSync(body);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as any).error.code).toBe('invalid_request');
    }
  });

  it('refuses allow_private_network asked for from elsewhere than this machine', async () => {
    const refused = await startSync({ site: 'http://127.0.0.2:9/other/', allow_private_network: true }, { authorization: `Bearer ${TEST_AGENT_KEY}`, 'x-forwarded-for': '203.0.113.9' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe('private_site_refused');
  });

  it('syncs the site in the service: a recorded run (trigger api), its pages stored, then unchanged from the crawl state', async () => {
    const started = await startSyncWhenFree({ site: `${site.origin}/sitemap.xml`, concurrency: 1, allow_private_network: true });
    expect(started.status).toBe(202);
    const body = (await started.json()) as { id: number; site: string; status: string };
    expect(body).toEqual({ id: expect.any(Number), site: `${site.origin}/sitemap.xml`, status: 'running' });
    const run = await within(20_000, () => runOf(body.id));
    expect({ ...run, errors: run.errors }).toMatchObject({ trigger: 'api', status: 'succeeded', counts: { fetched: 2, added: 2 }, errors: [] });
    const sources = (await service.request('GET', '/api/v1/knowledge/sources?q=help')).body.sources.map((s: { source: string }) => s.source);
    expect(sources).toEqual(expect.arrayContaining([`${site.origin}/help/returns`, `${site.origin}/help/glaze`]));

    // The crawl state was kept: the second run asks with the ETags and stores nothing again.
    const again = (await (await startSyncWhenFree({ site: `${site.origin}/sitemap.xml`, allow_private_network: true })).json()) as { id: number };
    const second = await within(20_000, () => runOf(again.id));
    expect(second).toMatchObject({ trigger: 'api', status: 'succeeded', counts: { unchanged: 2, added: 0, embedded: 0 } });
    expect(site.requests.filter((r) => r.path === '/help/returns').map((r) => r.status)).toEqual([200, 304]);
  });
});

describe("the knowledge tool's description", () => {
  /** The search tool's description in the last request the model server received. */
  const offeredDescription = () => {
    const last = stub.chatRequests().at(-1)!;
    return (last.body.tools as Array<{ function: { name: string; description: string } }>).find((t) => t.function.name === 'search_knowledge_base')!.function.description;
  };

  it('names an article stored while the service runs, from the next answers on, without a restart', async () => {
    stub.reset();
    expect((await service.postChat({ message: 'How should I fire a kiln?' })).status).toBe(200);
    expect(offeredDescription()).not.toContain('Kiln Firing Schedule');

    const put = await service.request('PUT', `/api/v1/knowledge/sources/${encodeURIComponent('aaa/kiln-firing.md')}`, {
      format: 'markdown',
      content: '# Kiln Firing Schedule\n\nBisque pieces are fired at 1000 degrees for eight hours before glazing.',
    });
    expect(put.status).toBe(201);
    await within(15_000, async () => {
      expect((await service.postChat({ message: 'How should I fire a kiln?' })).status).toBe(200);
      expect(offeredDescription()).toContain('Kiln Firing Schedule');
    });

    // Deleted: gone from the description too.
    expect((await service.request('DELETE', `/api/v1/knowledge/sources/${encodeURIComponent('aaa/kiln-firing.md')}`)).status).toBe(200);
    await within(15_000, async () => {
      expect((await service.postChat({ message: 'How should I fire a kiln?' })).status).toBe(200);
      expect(offeredDescription()).not.toContain('Kiln Firing Schedule');
    });
  });
});
