import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A small MCP server over streamable HTTP (stateless) on loopback, for the connectors' tests. */
export interface McpHttpTestServer {
  url: string;
  /** The headers of every request it received. */
  headers: Array<Record<string, string | string[] | undefined>>;
  /** Tool calls it answered, by tool name. */
  calls: Array<{ name: string; args: unknown }>;
  /** Connections open on the server's side now. */
  openSockets(): number;
  close(): Promise<void>;
}

function shippingServer(calls: McpHttpTestServer['calls']): McpServer {
  const server = new McpServer({ name: 'bookshop-shipping', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'shippingQuote',
    { description: 'What delivery to a postcode costs and how long it takes.', inputSchema: { postcode: z.string() } },
    async ({ postcode }) => {
      calls.push({ name: 'shippingQuote', args: { postcode } });
      return { content: [{ type: 'text', text: JSON.stringify({ postcode, price: '4.90', days: 2 }) }] };
    },
  );
  // Trickles: a log notification every 200 ms for 30 s, then the quote.
  server.registerTool('slowQuote', { description: 'A quote that takes 30 s, sent a little at a time.', inputSchema: {} }, async (_args, extra) => {
    calls.push({ name: 'slowQuote', args: {} });
    for (let i = 0; i < 150 && !extra.signal.aborted; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `still working (${i})` } }).catch(() => {});
    }
    return { content: [{ type: 'text', text: 'late' }] };
  });
  server.registerTool('internalDebug', { description: 'Dumps the server state.', inputSchema: {} }, async () => {
    calls.push({ name: 'internalDebug', args: {} });
    return { content: [{ type: 'text', text: 'state' }] };
  });
  return server;
}

/** Starts it on 127.0.0.1 (port 0, or the port given, to bring a server back where it was). */
export async function startMcpHttpServer(port = 0): Promise<McpHttpTestServer> {
  const headers: McpHttpTestServer['headers'] = [];
  const calls: McpHttpTestServer['calls'] = [];
  const sockets = new Set<Socket>();
  const http: Server = createServer(async (req, res) => {
    headers.push(req.headers);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    // Stateless: a server and a transport per request, as the SDK's examples do.
    const server = shippingServer(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
  });
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    headers,
    calls,
    openSockets: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
