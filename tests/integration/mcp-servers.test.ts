import path from 'node:path';
import type { ConversationIdentity } from '../../src/agent/tools/conversation-customer';
import { mcpServerSchema, ShopFileError, type McpServerConfig } from '../../src/connectors/connector-config';
import type { ConnectorContext } from '../../src/connectors/connector-context';
import { connectMcpServers, MCP_RETRY_FIRST_MS, type McpToolSource } from '../../src/connectors/mcp-servers';
import { NetworkGuard } from '../../src/connectors/network-guard';
import { TokenCounter } from '../../src/memory/tokens';
import { NO_TRACING } from '../../src/observability/langfuse';
import { createLogger } from '../../src/observability/logger';
import { Redactor } from '../../src/privacy/redaction';
import { startMcpHttpServer, type McpHttpTestServer } from '../support/mcp-http-server';

const STDIO_SERVER = path.join(__dirname, '../support/mcp-stdio-server.mjs');
const ADA = 'ada@books.example';
const tokenCounter = new TokenCounter('gpt-4o-mini');

/** What the service logged, one parsed line each. */
function logLines() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

function context(logger = createLogger('silent')): ConnectorContext {
  return {
    shopFileDir: __dirname,
    env: { SHIPPING_TOKEN: 'shipping-secret', GREETING: 'hello from the shop file' },
    guard: new NetworkGuard(),
    redactor: new Redactor(['card']),
    tokenCounter,
    logger,
    tracing: NO_TRACING,
  };
}

function server(fields: Record<string, unknown>): McpServerConfig {
  return mcpServerSchema.parse({ allow_private_network: true, ...fields });
}

const stdioServer = () =>
  server({ name: 'catalogue', command: process.execPath, args: [STDIO_SERVER], tools: ['findBook', 'readingList'], env: { MCP_TEST_GREETING: '${GREETING}' }, bind: { customerId: 'customer.id' } });
const httpServer = (url: string) => server({ name: 'shipping', url, tools: ['shippingQuote'], headers: { Authorization: 'Bearer ${SHIPPING_TOKEN}' } });

function asCustomer(customerId: string | null): { configurable: { identity: ConversationIdentity } } {
  return { configurable: { identity: { verifiedCustomerId: customerId, sessionId: 'mcp-test', clientAddress: null, stopTurn: (e) => { throw e; } } } };
}

const toolNamed = (source: McpToolSource, name: string) => source.tools().find((t) => t.name === name)!;

describe('MCP servers as tool sources', () => {
  let http: McpHttpTestServer;
  let source: McpToolSource;

  beforeAll(async () => {
    http = await startMcpHttpServer();
    // A secret of the service's own environment must not reach a stdio server.
    process.env.MCP_TEST_SECRET = 'the service’s own secret';
    source = await connectMcpServers([stdioServer(), httpServer(http.url)], context());
  });
  afterAll(async () => {
    delete process.env.MCP_TEST_SECRET;
    await source.close();
    await http.close();
  });

  it('offers exactly the allowlisted tools of a stdio server and a streamable HTTP server', () => {
    expect(source.tools().map((t) => t.name).sort()).toEqual(['findBook', 'readingList', 'shippingQuote']);
    expect(source.toolNames).toEqual(['findBook', 'readingList', 'shippingQuote']);
    expect(source.status()).toEqual([
      { name: 'catalogue', connected: true, error: null, tools: ['findBook', 'readingList'] },
      { name: 'shipping', connected: true, error: null, tools: ['shippingQuote'] },
    ]);
    // The same list until a server comes or goes, so the graph can keep what it derived from it.
    expect(source.tools()).toBe(source.tools());
  });

  it('calls a stdio tool and gives the model its text', async () => {
    const result = await toolNamed(source, 'findBook').invoke({ query: 'sea' }, asCustomer(null));
    expect(JSON.parse(result as string)).toEqual({ query: 'sea', found: [{ title: 'The Sea Around Us', price: '14.00' }] });
  });

  it('fills a bound argument from the verified customer, hides it from the model, and passes only the env the file names', async () => {
    const readingList = toolNamed(source, 'readingList');
    expect(Object.keys((readingList.schema as { properties: object }).properties)).toEqual(['limit']);
    const result = await readingList.invoke({ customerId: 'grace@books.example' }, asCustomer(ADA));
    expect(JSON.parse(result as string)).toEqual({ customerId: ADA, greeting: 'hello from the shop file', secretSeen: null });
  });

  it('answers the sign-in sentence for a bound tool in an anonymous conversation', async () => {
    expect(await toolNamed(source, 'readingList').invoke({}, asCustomer(null))).toMatch(/^This conversation is not signed in/);
  });

  it('calls a streamable HTTP tool through the guard with the header from the environment', async () => {
    const result = await toolNamed(source, 'shippingQuote').invoke({ postcode: '10115' }, asCustomer(null));
    expect(JSON.parse(result as string)).toEqual({ postcode: '10115', price: '4.90', days: 2 });
    expect(http.calls).toContainEqual({ name: 'shippingQuote', args: { postcode: '10115' } });
    expect(http.headers.every((h) => h.authorization === 'Bearer shipping-secret')).toBe(true);
  });
});

describe('an MCP tool that does not answer in time', () => {
  it('gives the model one sentence after timeout_ms', async () => {
    const source = await connectMcpServers([server({ name: 'slow', command: process.execPath, args: [STDIO_SERVER], tools: ['stockCount'], timeout_ms: 2000 })], context());
    try {
      const startedAt = Date.now();
      const result = await toolNamed(source, 'stockCount').invoke({}, asCustomer(null));
      expect(result).toBe("stockCount did not answer within 2000 ms, so nothing could be looked up; the shop's system may be busy, try again later.");
      expect(Date.now() - startedAt).toBeLessThan(10_000);
    } finally {
      await source.close();
    }
  });
});

describe('an MCP server over streamable HTTP', () => {
  it('is reached through the network guard: its host name is resolved by the guard’s resolver, which the system does not know', async () => {
    const http = await startMcpHttpServer();
    const port = new URL(http.url).port;
    const guard = new NetworkGuard({ resolve: async (host) => (host === 'shipping.bookshop.test' ? [{ address: '127.0.0.1', family: 4 }] : []) });
    const source = await connectMcpServers([httpServer(`http://shipping.bookshop.test:${port}/mcp`)], { ...context(), guard });
    try {
      expect(source.status()[0]).toMatchObject({ connected: true, tools: ['shippingQuote'] });
      expect(http.headers[0]!.host).toBe(`shipping.bookshop.test:${port}`);
    } finally {
      await source.close();
      await http.close();
    }
  });
});

describe('an MCP server that is down at start', () => {
  it('is reported and left out; the others work; it is connected once it is up', async () => {
    // A port that was just free: nothing listens on it until the test starts the server there.
    const probe = await startMcpHttpServer();
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const { lines, logger } = logLines();
    const source = await connectMcpServers([httpServer(`http://127.0.0.1:${port}/mcp`), stdioServer()], context(logger));
    let revived: McpHttpTestServer | null = null;
    try {
      expect(source.tools().map((t) => t.name)).toEqual(['findBook', 'readingList']);
      expect(source.status()[0]).toMatchObject({ name: 'shipping', connected: false, tools: [] });
      expect(source.status()[0]!.error).toMatch(/ECONNREFUSED|could not be reached|fetch failed/);
      const report = lines.find((l) => l.mcp_server === 'shipping' && l.level === 50);
      expect(String(report?.msg)).toMatch(/^MCP server shipping cannot be reached \(.+\): its tools \(shippingQuote\) are left out; retrying in 1 s$/);

      revived = await startMcpHttpServer(port);
      const deadline = Date.now() + MCP_RETRY_FIRST_MS * 10;
      while (!source.tools().some((t) => t.name === 'shippingQuote') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(source.tools().map((t) => t.name).sort()).toEqual(['findBook', 'readingList', 'shippingQuote']);
      expect(await toolNamed(source, 'shippingQuote').invoke({ postcode: '75001' }, asCustomer(null))).toContain('"price":"4.90"');
    } finally {
      await source.close();
      await revived?.close();
    }
  });
});

describe('MCP servers the start refuses, naming the field', () => {
  it('a metadata address, an unset ${VAR} and the same tool from two servers', async () => {
    const error = await connectMcpServers(
      [
        server({ name: 'meta', url: 'http://169.254.169.254/mcp', tools: ['anything'] }),
        server({ name: 'local', command: 'node', tools: ['anything'], env: { TOKEN: '${NOT_SET_ANYWHERE}' } }),
      ],
      context(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopFileError);
    expect((error as ShopFileError).problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'mcp_servers[0].url: http://169.254.169.254/mcp resolves to 169.254.169.254 (instance metadata (AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack)): refused always, even with allow_private_network',
      'mcp_servers[1].env.TOKEN: ${NOT_SET_ANYWHERE} is not set in the environment',
      'mcp_servers[1].tools[0]: a tool named "anything" already comes from mcp_servers[0].tools[0]',
    ]);
  });

  it('a loopback URL without allow_private_network', async () => {
    const error = await connectMcpServers([server({ name: 'local', url: 'http://127.0.0.1:9/mcp', tools: ['x'], allow_private_network: false })], context()).catch((e: unknown) => e);
    expect((error as ShopFileError).problems).toEqual([
      { path: 'mcp_servers[0].url', message: 'http://127.0.0.1:9/mcp resolves to 127.0.0.1, a loopback or private address: refused unless allow_private_network is set' },
    ]);
  });
});
