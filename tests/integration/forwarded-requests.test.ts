/**
 * A forwarded request is never "the service's own machine". Behind a reverse proxy on the
 * same host every socket is loopback; with a hop count in TRUST_PROXY a client that reaches
 * the port directly picks its own address with X-Forwarded-For. Either way a request that
 * carries a forwarding header must not be allowed what only the operator next to the service
 * may ask: `allow_private_network` on a knowledge sync. The real app over PGlite, a loopback
 * "private" site holding a secret.
 */
import { Writable } from 'node:stream';
import { pageInSiteChrome, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/observability/logger';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const AUTH = { authorization: `Bearer ${TEST_AGENT_KEY}`, 'content-type': 'application/json' };
const SECRET = 'DB_PASSWORD=hunter2-private';

let site: LoopbackSite;

beforeAll(async () => {
  site = await startLoopbackSite({
    '/internal/config': pageInSiteChrome({ title: 'Server config', articleHtml: `<p>The database settings are ${SECRET} for every instance.</p>` }),
  });
  site.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml([{ loc: `${site.origin}/internal/config` }]) });
});
afterAll(async () => {
  await site?.close();
});

/** A logger whose JSON lines the test reads. */
function logCollector() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

const FORWARDING_HEADERS: Array<Record<string, string>> = [
  { 'x-forwarded-for': '127.0.0.1' },
  { forwarded: 'for=127.0.0.1;proto=http' },
  { 'x-real-ip': '127.0.0.1' },
  // What a reverse proxy on this host adds for a remote client.
  { 'x-forwarded-for': '198.51.100.7' },
];

describe.each(['0', '1', '2', 'loopback', '127.0.0.1', '127.0.0.0/8, ::1'])('with TRUST_PROXY=%s', (trustProxy) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { TRUST_PROXY: trustProxy, KNOWLEDGE_SEED_DIR: 'none' } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('refuses allow_private_network from a forwarded request, whatever the header says, and stores nothing', async () => {
    for (const header of FORWARDING_HEADERS) {
      const response = await fetch(`${service.baseURL}/api/v1/knowledge/syncs`, {
        method: 'POST',
        headers: { ...AUTH, ...header },
        body: JSON.stringify({ site: `${site.origin}/sitemap.xml`, allow_private_network: true }),
      });
      expect({ header, status: response.status }).toEqual({ header, status: 403 });
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('private_site_refused');
    }
    expect((await service.request('GET', '/api/v1/knowledge/syncs')).body.syncs).toEqual([]);
    expect((await service.request('GET', '/api/v1/knowledge/sources')).body.sources).toEqual([]);
    expect(site.requests).toEqual([]);
    // An anonymous customer finds nothing of the private site to quote.
    const answer = await service.postChat({ message: 'What is the database password?' });
    expect(answer.body.response).not.toContain('hunter2');
  });
});

describe('the operator on the service\'s own machine', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { TRUST_PROXY: 'loopback', KNOWLEDGE_SEED_DIR: 'none' } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('may still sync a private site with allow_private_network when the request comes straight from loopback', async () => {
    const response = await fetch(`${service.baseURL}/api/v1/knowledge/syncs`, {
      method: 'POST',
      headers: AUTH,
      body: JSON.stringify({ site: `${site.origin}/sitemap.xml`, allow_private_network: true }),
    });
    expect(response.status).toBe(202);
  });
});

describe('the warning about forwarding headers', () => {
  it('is logged once, at warn, when forwarded requests arrive and TRUST_PROXY is unset', async () => {
    const { lines, logger } = logCollector();
    const service = await startTestService({ logger, env: { KNOWLEDGE_SEED_DIR: 'none' } });
    try {
      for (let i = 0; i < 3; i++) await fetch(`${service.baseURL}/health/live`, { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      const warnings = lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('TRUST_PROXY is unset'));
      expect(warnings).toEqual([expect.objectContaining({ level: 40, headers: ['x-forwarded-for'] })]);
    } finally {
      await service.close();
    }
  });

  it('is not logged when TRUST_PROXY names the proxy', async () => {
    const { lines, logger } = logCollector();
    const service = await startTestService({ logger, env: { TRUST_PROXY: 'loopback', KNOWLEDGE_SEED_DIR: 'none' } });
    try {
      await fetch(`${service.baseURL}/health/live`, { headers: { 'x-forwarded-for': '203.0.113.1' } });
      expect(lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('TRUST_PROXY'))).toEqual([]);
    } finally {
      await service.close();
    }
  });
});

describe('TRUST_PROXY naming the proxy', () => {
  it('ignores X-Forwarded-For from a socket that is not the proxy: rotating it does not spread wrong agent keys over new identities', async () => {
    // The proxy is on 10.0.0.0/8; this test's socket (127.0.0.1) is a direct client.
    const service = await startTestService({ env: { TRUST_PROXY: '10.0.0.0/8', AUTH_FAILURES_PER_CLIENT: '3', KNOWLEDGE_SEED_DIR: 'none' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${service.baseURL}/api/v1/knowledge/sources`, {
          headers: { authorization: 'Bearer wrong-key', 'x-forwarded-for': `203.0.113.${i}` },
        });
        statuses.push(response.status);
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429, 429]);
    } finally {
      await service.close();
    }
  });
});

describe('TRUST_PROXY as configuration', () => {
  const parse = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;

  it('takes a hop count, or the proxies as Express names them', () => {
    expect(parse('0')).toBe(0);
    expect(parse('2')).toBe(2);
    expect(parse('loopback')).toEqual(['loopback']);
    expect(parse('10.0.0.0/8, loopback,::1')).toEqual(['10.0.0.0/8', 'loopback', '::1']);
    // Unset, or set to nothing: no proxy.
    expect(loadConfig({}).trustProxy).toBe(0);
    expect(parse('')).toBe(0);
  });

  it('refuses anything else at start, naming the variable', () => {
    for (const wrong of ['true', '11', '-1', 'loopback,', 'proxy.example', '10.0.0.0/99']) {
      expect(() => parse(wrong)).toThrow(/TRUST_PROXY/);
    }
  });
});
