/**
 * A shop file with mistakes stops the real process (`tsx src/index.ts`) before
 * it opens its database or listens: exit code 1, one line per problem naming
 * the file, the field's path and what was expected.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startServiceProcess, stopServiceProcess, type ServiceProcess } from '../support/processes';
import { makeTempDir } from '../support/test-service';

let service: ServiceProcess | undefined;
afterEach(async () => {
  await stopServiceProcess(service);
});

test('an unknown field, an unset ${VAR} and an agent naming an unknown tool stop the start with exit code 1, before it listens', async () => {
  const dir = await makeTempDir('bad-shop-');
  const file = path.join(dir, 'shop.yaml');
  await fs.writeFile(
    file,
    `name: Pine & Pebble
agents:
  - key: garden
    description: Garden questions.
    instructions: You help Pine & Pebble's customers.
    tools: [search_knowledge_base]
  - key: orders
    description: Orders.
    instructions: You look orders up for Pine & Pebble.
    tools: [search_knowledge_base, getOrder, trackParcel]
actions:
  - openapi: ./orders-api.yaml
    operations: [getOrder]
    headers: { Authorization: "Bearer \${PINE_API_TOKEN}" }
colour: green
`,
  );
  const dataDir = path.join(dir, 'data');
  service = await startServiceProcess({ SHOP_FILE: file, DATA_DIR: dataDir });
  const { code } = await service.exited;
  const lines = service.output().trim().split('\n');
  expect(code).toBe(1);
  expect(lines).toEqual([
    'Failed to start: the shop file has 3 problem(s):',
    `${file}: colour: is not a field of the shop file here (unknown fields are mistakes; check the spelling)`,
    `${file}: actions[0].headers.Authorization: \${PINE_API_TOKEN} is not set in the environment`,
    `${file}: agents[1].tools[2]: no tool is named "trackParcel"; the tools are (built-in: lookup_order, get_user_profile, search_knowledge_base; actions: getOrder)`,
  ]);
  // Nothing was opened: the embedded database's folder was never made.
  await expect(fs.access(dataDir)).rejects.toThrow(/ENOENT/);
});

test('an MCP bind that no listed tool takes stops the start with exit code 1, naming the field (issue 34, item 2)', async () => {
  const dir = await makeTempDir('bad-shop-');
  const file = path.join(dir, 'shop.yaml');
  const stdioServer = path.resolve(__dirname, '../support/mcp-stdio-server.mjs');
  await fs.writeFile(
    file,
    `name: Bramble Books
agents:
  - key: books
    description: Books.
    instructions: You help Bramble Books' customers.
    tools: [readingList]
mcp_servers:
  - name: catalogue
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(stdioServer)}]
    tools: [readingList]
    timeout_ms: 60000
    bind: { customer_id: customer.id }
`,
  );
  service = await startServiceProcess({ SHOP_FILE: file });
  const { code } = await service.exited;
  expect(code).toBe(1);
  expect(service.output()).toContain(
    `${file}: mcp_servers[0].bind.customer_id: no listed tool of MCP server catalogue has an argument "customer_id" (readingList takes customerId, limit)`,
  );
}, 180_000);

test('an action whose $refs multiply past 32 KB of tool schema stops the start with exit code 1, naming the operation (issue 34, item 8)', async () => {
  const dir = await makeTempDir('bad-shop-');
  const file = path.join(dir, 'shop.yaml');
  const schemas = ['    L20: { type: string }'];
  for (let i = 19; i >= 0; i--) schemas.push(`    L${i}: { type: object, properties: { a: { $ref: '#/components/schemas/L${i + 1}' }, b: { $ref: '#/components/schemas/L${i + 1}' } } }`);
  await fs.writeFile(
    path.join(dir, 'api.yaml'),
    `openapi: 3.0.3
info: { title: Doubling, version: '1' }
servers: [{ url: 'https://api.bramble.example' }]
paths:
  /things:
    get:
      operationId: findThing
      parameters: [{ name: filter, in: query, schema: { $ref: '#/components/schemas/L0' } }]
      responses: { '200': { description: ok } }
components:
  schemas:
${schemas.join('\n')}
`,
  );
  await fs.writeFile(
    file,
    `name: Bramble Books
agents:
  - key: books
    description: Books.
    instructions: You help Bramble Books' customers.
    tools: [findThing]
actions:
  - openapi: ./api.yaml
    operations: [findThing]
`,
  );
  service = await startServiceProcess({ SHOP_FILE: file });
  const { code } = await service.exited;
  expect(code).toBe(1);
  expect(service.output()).toContain(
    `${file}: actions[0].operations[0]: findThing's arguments take more than 32 KB of JSON schema (references that multiply?): simplify its parameters or request body`,
  );
}, 180_000);
