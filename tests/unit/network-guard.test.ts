import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { ADDRESS_TABLE } from '../../src/connectors/address-table';
import { classifyAddress, NetworkGuard, NetworkGuardError, redirectRefusal, type Resolver } from '../../src/connectors/network-guard';

/** A loopback server the test scripts: each path answers as the handler says. */
async function startServer(handler: http.RequestListener): Promise<{ origin: string; port: number; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The guard's refusal for a call, or a failure when the call was not refused. */
async function refusal(call: Promise<unknown>): Promise<NetworkGuardError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof NetworkGuardError) return error;
    throw error;
  }
  throw new Error('expected the guard to refuse the request');
}

const fixedResolver =
  (table: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('address classes', () => {
  it.each([
    ['127.0.0.1', 'private'],
    ['127.255.0.9', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.10.10', 'link_local'],
    ['100.64.0.1', 'private'],
    ['::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fd12:3456::1', 'private'],
    ['fc00::7', 'private'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unusable'],
    ['::', 'unusable'],
    ['224.0.0.1', 'unusable'],
    ['255.255.255.255', 'unusable'],
    ['ff02::1', 'unusable'],
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    // Cloud endpoints outside the first list (issue 34, item 10): Azure's WireServer, EKS Pod Identity, GCP over IPv6.
    ['168.63.129.16', 'metadata'],
    ['169.254.170.23', 'metadata'],
    ['fd00:ec2::23', 'metadata'],
    ['fd20:ce::254', 'metadata'],
    ['192.0.0.192', 'metadata'],
    // Documentation, benchmarking and protocol ranges are no destination.
    ['192.0.2.7', 'unusable'],
    ['198.18.0.1', 'unusable'],
    ['2001:db8::1', 'unusable'],
    ['2001::1', 'unusable'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('judges an IPv6 address by the IPv4 address it carries: IPv4-compatible, NAT64 and 6to4 as well as IPv4-mapped', () => {
    expect(classifyAddress('::7f00:1')).toBe('private');
    expect(classifyAddress('[::7f00:1]')).toBe('private');
    expect(classifyAddress('::a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('64:ff9b::a00:1')).toBe('private');
    expect(classifyAddress('2002:a9fe:a9fe::1')).toBe('metadata');
    expect(classifyAddress('2002:7f00:1::1')).toBe('private');
    expect(classifyAddress('::808:808')).toBe('public');
    expect(classifyAddress('64:ff9b::808:808')).toBe('public');
  });

  it('keeps every range in one table, each with its source, and each range parses', () => {
    for (const entry of ADDRESS_TABLE) {
      expect(entry.source).not.toBe('');
      expect(() => classifyAddress(entry.range.split('/')[0]!)).not.toThrow();
    }
  });

  it('judges an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('private');
    expect(classifyAddress('::ffff:7f00:1')).toBe('private');
    expect(classifyAddress('::ffff:a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('public');
  });
});

describe('NetworkGuard.check', () => {
  const guard = new NetworkGuard({ resolve: fixedResolver({}) });

  it.each([
    ['decimal', 'http://2130706433/'],
    ['octal', 'http://0177.0.0.1/'],
    ['short', 'http://127.1/'],
    ['hexadecimal', 'http://0x7f.0.0.1/'],
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]/'],
    ['IPv6 loopback', 'http://[::1]:8080/'],
    ['private network', 'https://10.0.0.8/orders'],
  ])('refuses a loopback or private address in its %s spelling', async (_spelling, url) => {
    const error = await refusal(guard.check(url));
    expect(error.reason).toBe('address');
    expect(error.message).toMatch(/allow_private_network/);
  });

  it.each([
    ['dotted', 'http://169.254.169.254/latest/meta-data/'],
    ['octal', 'http://0251.0376.0251.0376/'],
    ['decimal', 'http://2852039166/'],
    ['IPv4-mapped IPv6', 'http://[::ffff:169.254.169.254]/'],
    ['AWS IPv6', 'http://[fd00:ec2::254]/'],
  ])('refuses the metadata address in its %s spelling even where the private network is allowed', async (_spelling, url) => {
    const error = await refusal(guard.check(url, { allowPrivateNetwork: true }));
    expect(error.reason).toBe('metadata');
  });

  it('allows a private address when the policy says so', async () => {
    const target = await guard.check('http://127.0.0.1:9/x', { allowPrivateNetwork: true });
    expect(target.address.address).toBe('127.0.0.1');
  });

  it('refuses what is not http(s), and credentials in the URL', async () => {
    expect((await refusal(guard.check('file:///etc/passwd'))).reason).toBe('scheme');
    expect((await refusal(guard.check('ftp://example.com/'))).reason).toBe('scheme');
    expect((await refusal(guard.check('not a url'))).reason).toBe('scheme');
    const withCredentials = await refusal(guard.check('https://user:secret@api.example.com/'));
    expect(withCredentials.reason).toBe('scheme');
    expect(withCredentials.message).not.toContain('secret');
  });

  it('refuses a name whose DNS answer is private, checking every address it resolves to', async () => {
    const resolving = new NetworkGuard({
      resolve: fixedResolver({ 'api.shop.test': ['127.0.0.1'], 'mixed.shop.test': ['93.184.216.34', '10.0.0.5'], 'meta.shop.test': ['169.254.169.254'] }),
    });
    expect((await refusal(resolving.check('https://api.shop.test/'))).reason).toBe('address');
    expect((await refusal(resolving.check('https://mixed.shop.test/'))).reason).toBe('address');
    expect((await refusal(resolving.check('https://meta.shop.test/', { allowPrivateNetwork: true }))).reason).toBe('metadata');
    expect((await refusal(resolving.check('https://unknown.shop.test/'))).reason).toBe('dns');
  });
});

describe('NetworkGuard.request', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  const seen: Array<{ url: string; host: string | undefined }> = [];
  const big = Buffer.alloc(2 * 1024 * 1024, 'a');
  // 64 MB of zeros compress to about 64 kB, far under the 1 MB cap on the wire: only the decoded size passes it.
  const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024));

  beforeAll(async () => {
    server = await startServer((req, res) => {
      seen.push({ url: req.url ?? '', host: req.headers.host });
      const url = req.url ?? '/';
      if (url === '/ok') return void res.end('hello');
      if (url === '/to-ok') return void res.writeHead(302, { location: '/ok' }).end();
      if (url === '/loop-a') return void res.writeHead(301, { location: '/loop-b' }).end();
      if (url === '/loop-b') return void res.writeHead(301, { location: '/loop-a' }).end();
      if (url === '/to-other-host') return void res.writeHead(302, { location: `http://localhost:${server.port}/ok` }).end();
      if (url === '/to-private') return void res.writeHead(307, { location: 'http://10.0.0.1/admin' }).end();
      if (url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (url === '/big') return void res.end(big);
      if (url === '/bomb') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/html' });
        return void res.end(bomb);
      }
      if (url === '/slow') return; // never answers
      if (url === '/status-503') return void res.writeHead(503).end('busy');
      res.writeHead(404).end('no');
    });
  });
  afterAll(() => server.close());

  const guard = new NetworkGuard();
  const base = { allowPrivateNetwork: true, timeoutMs: 5000, maxBytes: 1024 * 1024 };

  it('refuses a loopback server unless the private network is allowed', async () => {
    const error = await refusal(guard.request({ ...base, allowPrivateNetwork: false, url: `${server.origin}/ok` }));
    expect(error.reason).toBe('address');
  });

  it('reads a response, follows a redirect on the same host, and answers an HTTP error as a response', async () => {
    const ok = await guard.request({ ...base, url: `${server.origin}/to-ok` });
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe('hello');
    expect(ok.url).toBe(`${server.origin}/ok`);
    const busy = await guard.request({ ...base, url: `${server.origin}/status-503` });
    expect(busy.status).toBe(503);
  });

  it('connects to the checked address with the original host name in the Host header', async () => {
    const resolving = new NetworkGuard({ resolve: fixedResolver({ 'orders.shop.test': ['127.0.0.1'] }) });
    const response = await resolving.request({ ...base, url: `http://orders.shop.test:${server.port}/ok` });
    expect(response.body.toString()).toBe('hello');
    expect(seen.at(-1)).toEqual({ url: '/ok', host: `orders.shop.test:${server.port}` });
  });

  it('does not follow a redirect to another host, a private address or the metadata address', async () => {
    for (const path of ['/to-other-host', '/to-private', '/to-metadata']) {
      const error = await refusal(guard.request({ ...base, url: `${server.origin}${path}` }));
      expect(error.reason).toBe('redirect');
    }
  });

  it('checks the address again on every redirect (a name that rebinds to the metadata address)', async () => {
    let lookups = 0;
    const rebinding = new NetworkGuard({
      resolve: async () => [{ address: lookups++ === 0 ? '127.0.0.1' : '169.254.169.254', family: 4 }],
    });
    const error = await refusal(rebinding.request({ ...base, url: `http://rebind.test:${server.port}/to-ok` }));
    expect(error.reason).toBe('metadata');
    expect(lookups).toBe(2);
  });

  it('refuses link-local and cloud endpoints even when the private network is allowed', async () => {
    const resolving = new NetworkGuard({
      resolve: fixedResolver({ 'wire.test': ['168.63.129.16'], 'pod.test': ['169.254.170.23'], 'link.test': ['169.254.1.1'], 'compat.test': ['::a9fe:a9fe'] }),
    });
    for (const host of ['wire.test', 'pod.test', 'link.test', 'compat.test']) {
      expect((await refusal(resolving.check(`http://${host}/`, { allowPrivateNetwork: true }))).reason).toBe('metadata');
    }
  });

  it('does not follow a redirect to another port of the same host, so a credential is never resent there', async () => {
    const other = await startServer((req, res) => {
      seen.push({ url: `other:${req.url}`, host: req.headers.authorization });
      res.end('other');
    });
    try {
      const toOtherPort = await startServer((_req, res) => void res.writeHead(307, { location: `http://127.0.0.1:${other.port}/tickets` }).end());
      try {
        const error = await refusal(
          guard.request({ ...base, url: `${toOtherPort.origin}/tickets`, method: 'POST', headers: { authorization: 'Bearer secret-token' }, body: '{"subject":"hi"}' }),
        );
        expect(error.reason).toBe('redirect');
        expect(error.message).toMatch(/another port/);
        expect(seen.some((s) => s.url.startsWith('other:'))).toBe(false);
      } finally {
        await toOtherPort.close();
      }
    } finally {
      await other.close();
    }
  });

  it('follows a redirect only within the origin, never from https to http, and an upgrade to https only when asked', () => {
    const at = (url: string) => new URL(url);
    expect(redirectRefusal(at('https://api.test/a'), at('https://api.test/b'), false)).toBeNull();
    expect(redirectRefusal(at('https://api.test/a'), at('http://api.test/b'), true)).toMatch(/downgrade/);
    expect(redirectRefusal(at('https://api.test/a'), at('http://api.test:8080/b'), true)).toMatch(/downgrade/);
    expect(redirectRefusal(at('https://api.test/a'), at('https://api.test:8443/b'), true)).toMatch(/another port/);
    expect(redirectRefusal(at('https://api.test/a'), at('https://other.test/b'), true)).toMatch(/another host/);
    expect(redirectRefusal(at('http://help.test/a'), at('https://help.test/a'), false)).toMatch(/upgrade/);
    expect(redirectRefusal(at('http://help.test/a'), at('https://help.test/a'), true)).toBeNull();
    expect(redirectRefusal(at('http://help.test/a'), at('https://evil.test/a'), true)).toMatch(/another host/);
  });

  it('stops a redirect loop', async () => {
    const error = await refusal(guard.request({ ...base, url: `${server.origin}/loop-a`, maxRedirects: 4 }));
    expect(error.reason).toBe('too_many_redirects');
  });

  it('refuses a body past the cap, or cuts it there when asked to', async () => {
    expect((await refusal(guard.request({ ...base, url: `${server.origin}/big` }))).reason).toBe('too_large');
    const cut = await guard.request({ ...base, url: `${server.origin}/big`, overflow: 'truncate', maxBytes: 1000 });
    expect(cut.truncated).toBe(true);
    expect(cut.body.length).toBe(1000);
  });

  it('counts the decoded bytes of a compressed body (a gzip bomb stops at the cap)', async () => {
    expect(bomb.length).toBeLessThan(base.maxBytes);
    const error = await refusal(guard.request({ ...base, url: `${server.origin}/bomb` }));
    expect(error.reason).toBe('too_large');
  });

  it('gives up at the deadline', async () => {
    const error = await refusal(guard.request({ ...base, url: `${server.origin}/slow`, timeoutMs: 300 }));
    expect(error.reason).toBe('timeout');
  });

  it("refuses the service's own port on this machine, even where the private network is allowed", async () => {
    const self = new NetworkGuard();
    self.setServicePort(server.port);
    const error = await refusal(self.request({ ...base, url: `${server.origin}/ok` }));
    expect(error.reason).toBe('self');
  });

  it('reports a refused connection', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    const error = await refusal(guard.request({ ...base, url: `${closed.origin}/ok` }));
    expect(error.reason).toBe('connection');
  });

  it('serves as a fetch for clients with their own HTTP code, with the cap enforced as the body streams', async () => {
    const guardedFetch = guard.fetchFunction({ allowPrivateNetwork: true, maxBytes: 1000 });
    const ok = await guardedFetch(`${server.origin}/ok`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('hello');
    const big = await guardedFetch(`${server.origin}/big`);
    await expect(big.text()).rejects.toThrow();
    const redirect = await guardedFetch(`${server.origin}/to-private`);
    expect(redirect.status).toBe(307);
    await expect(guard.fetchFunction({ maxBytes: 1000 })(`${server.origin}/ok`)).rejects.toThrow(NetworkGuardError);
  });
});
