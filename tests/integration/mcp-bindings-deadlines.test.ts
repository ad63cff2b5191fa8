/**
 * Issue 34, items 2 and 9, on the MCP client against real SDK servers: a `bind` that
 * matches no tool's argument is refused at start and withdraws the tool on a
 * reconnect (it never becomes a tool the model fills for anyone), and a call that
 * times out over streamable HTTP leaves no connection open to a server that
 * trickles its answer.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ConversationIdentity } from '../../src/agent/tools/conversation-customer';
import { mcpServerSchema, ShopFileError, type McpServerConfig } from '../../src/connectors/connector-config';
import type { ConnectorContext } from '../../src/connectors/connector-context';
import { connectMcpServers, MCP_RETRY_FIRST_MS } from '../../src/connectors/mcp-servers';
import { NetworkGuard } from '../../src/connectors/network-guard';
import { TokenCounter } from '../../src/memory/tokens';
import { NO_TRACING } from '../../src/observability/langfuse';
import { createLogger } from '../../src/observability/logger';
import { Redactor } from '../../src/privacy/redaction';
import { startMcpHttpServer } from '../support/mcp-http-server';
import { makeTempDir } from '../support/test-service';

const STDIO_SERVER = path.join(__dirname, '../support/mcp-stdio-server.mjs');
const tokenCounter = new TokenCounter('gpt-4o-mini');

function context(lines: Array<Record<string, unknown>> = []): ConnectorContext {
  return {
    shopFileDir: __dirname,
    env: {},
    guard: new NetworkGuard(),
    redactor: new Redactor([]),
    tokenCounter,
    logger: createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) }),
    tracing: NO_TRACING,
  };
}

function server(fields: Record<string, unknown>): McpServerConfig {
  return mcpServerSchema.parse({ allow_private_network: true, ...fields });
}

function asCustomer(customerId: string | null): { configurable: { identity: ConversationIdentity } } {
  return { configurable: { identity: { verifiedCustomerId: customerId, sessionId: 'mcp-side-doors', clientAddress: null, stopTurn: (e) => { throw e; } } } };
}

async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe('an MCP bind that matches nothing (item 2)', () => {
  it('is a shop-file problem at start, naming the field, when no listed tool has the bound argument', async () => {
    // readingList's argument is customerId; the file binds customer_id.
    const config = server({ name: 'catalogue', command: process.execPath, args: [STDIO_SERVER], tools: ['findBook', 'readingList'], bind: { customer_id: 'customer.id' } });
    const error = await connectMcpServers([config], context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopFileError);
    expect((error as ShopFileError).problems).toEqual([
      {
        path: 'mcp_servers[0].bind.customer_id',
        message: 'no listed tool of MCP server catalogue has an argument "customer_id" (findBook takes query; readingList takes customerId, limit)',
      },
    ]);
  });

  it('withdraws the server’s tools when its bound argument is renamed on a reconnect, logged at error level', async () => {
    const stateDir = await makeTempDir('mcp-rename-');
    const lines: Array<Record<string, unknown>> = [];
    const config = server({
      name: 'catalogue',
      command: process.execPath,
      args: [STDIO_SERVER],
      env: { MCP_TEST_STATE_DIR: stateDir },
      tools: ['findBook', 'readingList'],
      bind: { customerId: 'customer.id' },
    });
    const source = await connectMcpServers([config], context(lines));
    try {
      expect(source.tools().map((t) => t.name)).toEqual(['findBook', 'readingList']);
      // The server is updated: readingList now takes customer_id, which the bind does not fill.
      await fs.writeFile(path.join(stateDir, 'customer-arg'), 'customer_id');
      const firstPid = Number(await fs.readFile(path.join(stateDir, 'pid'), 'utf8'));
      process.kill(firstPid);
      const withdrawn = () => lines.find((l) => l.mcp_server === 'catalogue' && l.level === 50 && Array.isArray(l.unmatched_bindings));
      await waitFor(() => withdrawn() !== undefined, MCP_RETRY_FIRST_MS * 10);
      // No tool is left that the bind would have filled: none is offered (findBook too: which tool the bind was for cannot be told).
      expect(source.tools()).toEqual([]);
      expect(withdrawn()!.msg).toBe(
        'MCP server catalogue: its bind (customerId) matches no listed tool now, so its tools are withdrawn (a renamed argument would let the model choose the customer)',
      );
      expect(withdrawn()!.tools_withdrawn).toEqual(['findBook', 'readingList']);
      expect(source.status()[0]).toMatchObject({ connected: false, error: 'its bind matches no listed tool (customerId)' });
    } finally {
      await source.close();
      await fs.rm(stateDir, { recursive: true, force: true });
    }
  });

  it('a bound MCP tool answers an anonymous conversation with the sign-in sentence', async () => {
    const source = await connectMcpServers(
      [server({ name: 'catalogue', command: process.execPath, args: [STDIO_SERVER], tools: ['readingList'], bind: { customerId: 'customer.id' } })],
      context(),
    );
    try {
      const readingList = source.tools().find((t) => t.name === 'readingList')!;
      expect(await readingList.invoke({ customerId: 'someone-else' }, asCustomer(null))).toMatch(/^This conversation is not signed in/);
    } finally {
      await source.close();
    }
  });
});

describe('MCP over HTTP with a deadline (item 9)', () => {
  it('five calls that time out against a trickling server leave no connection open', async () => {
    const http = await startMcpHttpServer();
    const source = await connectMcpServers([server({ name: 'shipping', url: http.url, tools: ['slowQuote'], timeout_ms: 1000 })], context());
    try {
      const slowQuote = source.tools().find((t) => t.name === 'slowQuote')!;
      // The client's standing notification stream (a GET) is open, and only it.
      await waitFor(() => http.headers.some((h) => h.accept === 'text/event-stream'), 2000);
      await waitFor(() => http.openSockets() <= 1, 2000);
      const standing = http.openSockets();
      expect(standing).toBeLessThanOrEqual(1);
      for (let i = 0; i < 5; i++) {
        expect(await slowQuote.invoke({}, asCustomer(null))).toMatch(/^slowQuote did not answer within 1000 ms/);
      }
      expect(http.calls.filter((c) => c.name === 'slowQuote')).toHaveLength(5);
      // The server sees each connection end (give the last close a moment to arrive).
      await waitFor(() => http.openSockets() === standing, 2000);
      expect(http.openSockets()).toBe(standing);
    } finally {
      await source.close();
      await http.close();
    }
  });
});
