// A small MCP server over stdio for the connectors' tests: a bookshop's catalogue.
// Run as `node tests/support/mcp-stdio-server.mjs`; MCP_TEST_GREETING from its env shows what it was given.
// With MCP_TEST_STATE_DIR, it writes its pid there and names readingList's customer argument
// as the file `customer-arg` there says (default customerId): a test can rename it and restart the server.
import fs from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bookshop-catalogue', version: '1.0.0' });

server.registerTool(
  'findBook',
  { description: 'Find a book in the catalogue by words of its title.', inputSchema: { query: z.string().describe('Words of the title') } },
  async ({ query }) => ({ content: [{ type: 'text', text: JSON.stringify({ query, found: [{ title: 'The Sea Around Us', price: '14.00' }] }) }] }),
);
const stateDir = process.env.MCP_TEST_STATE_DIR;
let customerArg = 'customerId';
if (stateDir) {
  fs.writeFileSync(path.join(stateDir, 'pid'), String(process.pid));
  if (fs.existsSync(path.join(stateDir, 'customer-arg'))) customerArg = fs.readFileSync(path.join(stateDir, 'customer-arg'), 'utf8').trim();
}

server.registerTool(
  'readingList',
  { description: "The signed-in customer's reading list.", inputSchema: { [customerArg]: z.string(), limit: z.number().optional() } },
  async (args) => ({
    content: [{ type: 'text', text: JSON.stringify({ customerId: args[customerArg], greeting: process.env.MCP_TEST_GREETING ?? null, secretSeen: process.env.MCP_TEST_SECRET ?? null }) }],
  }),
);
server.registerTool('resetCatalogue', { description: 'Deletes the whole catalogue.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'deleted' }] }));

server.registerTool('stockCount', { description: 'Counts the stock; takes 30 s.', inputSchema: {} }, async () => {
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  return { content: [{ type: 'text', text: '12' }] };
});

await server.connect(new StdioServerTransport());
