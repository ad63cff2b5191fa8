/**
 * The console's tools page API (agent key): the shop's tools with their bindings,
 * and a trial of one read-only tool as a verified customer through the service's own
 * tool (binding, headers, guard), on the real service with a shop file whose orders
 * API runs on loopback. Bad input is a 4xx that calls nothing and stores nothing.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { makeTempDir, startTestService, type TestService } from '../support/test-service';

// The service's start (PGlite, migrations) is slow on a busy machine.
jest.setTimeout(300_000);

const ADA = 'ada@books.example';
const API_TOKEN = 'bramble-orders-token-from-the-environment';

let api: OrdersApi;
let service: TestService;
let dir: string;

beforeAll(async () => {
  api = await startOrdersApi();
  dir = await makeTempDir('shop-tools-api-');
  const openapi = await api.writeOpenApi(dir);
  await fs.writeFile(
    path.join(dir, 'shop.yaml'),
    `name: Bramble Books
agents:
  - key: books
    description: Bramble Books' support.
    instructions: You are the support assistant of Bramble Books.
    tools: [getMyOrder, cancelOrder, search_knowledge_base]
  - key: reading
    description: Reading tips.
    instructions: You recommend books.
    tools: [search_knowledge_base]
actions:
  - openapi: ./${openapi}
    operations: [getMyOrder, cancelOrder]
    allow_writes: [cancelOrder]
    allow_private_network: true
    headers: { Authorization: "Bearer \${BRAMBLE_API_TOKEN}" }
    bind: { customerId: customer.id }
`,
  );
  service = await startTestService({ env: { SHOP_FILE: path.join(dir, 'shop.yaml'), BRAMBLE_API_TOKEN: API_TOKEN } });
});
afterAll(async () => {
  await service?.close();
  await api?.close();
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.requests.length = 0;
});

test("the tools page lists each tool of the shop's systems with its arguments, bindings, agents and whether it may be tried", async () => {
  expect((await service.request('GET', '/api/v1/shop/tools', undefined, null)).status).toBe(401);
  const { status, body } = await service.request('GET', '/api/v1/shop/tools');
  expect(status).toBe(200);
  expect(body.tools).toEqual([
    expect.objectContaining({
      name: 'getMyOrder',
      kind: 'action',
      method: 'GET',
      writes: 'no',
      can_try: true,
      arguments: [{ name: 'orderId', required: true, type: 'string' }],
      bound: [{ name: 'customerId', from: 'customer.id' }],
      agents: ['books'],
    }),
    expect.objectContaining({ name: 'cancelOrder', method: 'POST', writes: 'yes', can_try: false, bound: [{ name: 'customerId', from: 'customer.id' }] }),
  ]);
});

test("a trial calls the API once with the chosen customer's bound id, whatever the arguments say, and shows what was sent with header values hidden", async () => {
  const { status, body } = await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', {
    customer_id: ADA,
    arguments: { orderId: 'BK-1001', customerId: 'grace@books.example' },
  });
  expect(status).toBe(200);
  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toMatchObject({ method: 'GET', path: `/customers/${encodeURIComponent(ADA)}/orders/BK-1001` });
  expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);
  expect(body.customer).toBe(ADA);
  expect(body.sent).toEqual([
    {
      method: 'GET',
      url: `${api.baseURL}/customers/${encodeURIComponent(ADA)}/orders/BK-1001`,
      headers: { accept: 'application/json', Authorization: `(hidden, ${`Bearer ${API_TOKEN}`.length} characters)` },
      body: null,
    },
  ]);
  expect(JSON.parse(body.received)).toMatchObject({ orderId: 'BK-1001', status: 'shipped' });
  expect(JSON.stringify(body)).not.toContain(API_TOKEN);
  // A trial is not a conversation: nothing is stored.
  expect(await service.countRows('chat_messages')).toBe(0);
});

test('without a customer the trial gets the sign-in sentence and sends nothing', async () => {
  const { status, body } = await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { arguments: { orderId: 'BK-1001' } });
  expect(status).toBe(200);
  expect(body.sent).toEqual([]);
  expect(body.received).toMatch(/^This conversation is not signed in/);
  expect(api.requests).toHaveLength(0);
});

test('a tool that writes is not tried from the console, bad input is a 400 and an unknown tool a 404; none reaches the API', async () => {
  const writes = await service.request('POST', '/api/v1/shop/tools/cancelOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1001', body: { reason: 'late' } } });
  expect(writes.status).toBe(403);
  expect(writes.body.error.code).toBe('tool_writes');

  const bad: Array<[string, unknown]> = [
    ['getMyOrder', { customer_id: ADA, arguments: { orderId: 'BK-1' } }], // the parameter's pattern
    ['getMyOrder', { customer_id: ADA, arguments: 'BK-1001' }],
    ['getMyOrder', { customer_id: '', arguments: { orderId: 'BK-1001' } }],
    ['getMyOrder', { customer_id: 'x'.repeat(201), arguments: { orderId: 'BK-1001' } }],
    ['getMyOrder', { customer_id: ADA, customer_email: 'not an address', arguments: { orderId: 'BK-1001' } }],
    ['getMyOrder', { customer_id: ADA, orderId: 'BK-1001' }], // unknown field
    ['get%20My', { customer_id: ADA }],
  ];
  for (const [name, body] of bad) {
    const response = await service.request('POST', `/api/v1/shop/tools/${name}/try`, body);
    expect({ name, body, status: response.status, code: response.body.error?.code }).toEqual({ name, body, status: 400, code: 'invalid_request' });
  }
  // The refusal names the argument, what it expects and the value given.
  const pattern = await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1' } });
  expect(pattern.body.error.message).toBe('getMyOrder does not take these arguments: orderId: expected a string matching ^BK-\\d{4}$, got "BK-1"');
  const unknown = await service.request('POST', '/api/v1/shop/tools/getOrders/try', { customer_id: ADA });
  expect(unknown.status).toBe(404);
  expect((await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1001' } }, null)).status).toBe(401);
  expect(api.requests).toHaveLength(0);
});
