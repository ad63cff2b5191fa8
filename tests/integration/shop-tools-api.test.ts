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

test("every trial is recorded (tool, customer, arguments as sent with the bound ones named, outcome, time, source) and listed newest first, paged like the erasure audit; bad input records nothing", async () => {
  await service.db.exec('delete from tool_trials');
  const startedAt = Date.now();
  expect((await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1001', customerId: 'grace@books.example' } })).status).toBe(200);
  // Grace's order asked for as Ada: the API answers 404.
  expect((await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1002' } })).status).toBe(200);
  expect((await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { arguments: { orderId: 'BK-1001' } })).status).toBe(200);
  expect((await service.request('POST', '/api/v1/shop/tools/cancelOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1001' } })).status).toBe(403);
  // Bad input is a 400 and changes nothing.
  expect((await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1' } })).status).toBe(400);
  expect((await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: '', arguments: {} })).status).toBe(400);

  expect((await service.request('GET', '/api/v1/audit/tool-trials', undefined, null)).status).toBe(401);
  for (const query of ['limit=0', 'limit=201', 'limit=x', 'cursor=abc', 'cursor=0']) {
    const bad = await service.request('GET', `/api/v1/audit/tool-trials?${query}`);
    expect({ query, status: bad.status, code: bad.body.error?.code }).toEqual({ query, status: 400, code: 'invalid_request' });
  }
  const first = await service.request('GET', '/api/v1/audit/tool-trials?limit=3');
  expect(first.status).toBe(200);
  expect(first.body.tool_trials.map((t: any) => [t.tool, t.outcome, t.error_code])).toEqual([
    ['cancelOrder', 'refused', 'tool_writes'],
    ['getMyOrder', 'refused', 'not_signed_in'],
    ['getMyOrder', 'error', 'http_404'],
  ]);
  expect(first.body.next_cursor).toBe(first.body.tool_trials[2].id);
  const second = await service.request('GET', `/api/v1/audit/tool-trials?limit=3&cursor=${first.body.next_cursor}`);
  expect(second.body).toEqual({
    tool_trials: [
      {
        id: expect.any(String),
        tried_at: expect.any(String),
        source: 'console',
        tool: 'getMyOrder',
        customer_id: ADA,
        customer: null,
        // As sent: the bound customerId is Ada's, whatever the arguments said, and named as bound.
        arguments: { orderId: 'BK-1001', customerId: ADA },
        bound: ['customerId'],
        outcome: 'ok',
        error_code: null,
      },
    ],
    next_cursor: null,
  });
  const triedAt = Date.parse(second.body.tool_trials[0].tried_at);
  expect(triedAt).toBeGreaterThanOrEqual(startedAt - 1000);
  expect(triedAt).toBeLessThanOrEqual(Date.now() + 1000);
  expect(first.body.tool_trials[2]).toMatchObject({ customer_id: ADA, arguments: { orderId: 'BK-1002', customerId: ADA }, bound: ['customerId'] });
  expect(first.body.tool_trials[1]).toMatchObject({ customer_id: null, arguments: { orderId: 'BK-1001' }, bound: [] });
});

test("a customer's erasure keeps the record that their data was read, with the erasure's pseudonym instead of the id and without the arguments", async () => {
  await service.db.exec('delete from tool_trials');
  await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: ADA, arguments: { orderId: 'BK-1001' } });
  await service.request('POST', '/api/v1/shop/tools/getMyOrder/try', { customer_id: 'grace@books.example', arguments: { orderId: 'BK-1002' } });

  const erased = await service.request('DELETE', `/api/v1/customers/${encodeURIComponent(ADA.toUpperCase())}`);
  expect(erased.status).toBe(200);
  const audit = await service.request('GET', '/api/v1/audit/erasures?limit=1');
  const pseudonym = audit.body.erasures[0].customer;
  expect(pseudonym).toMatch(/^c_[0-9a-f]{32}$/);

  const { body } = await service.request('GET', '/api/v1/audit/tool-trials');
  expect(body.tool_trials).toEqual([
    expect.objectContaining({ customer_id: 'grace@books.example', customer: null, arguments: { orderId: 'BK-1002', customerId: 'grace@books.example' } }),
    expect.objectContaining({ tool: 'getMyOrder', outcome: 'ok', customer_id: null, customer: pseudonym, arguments: null, bound: ['customerId'] }),
  ]);
  expect(JSON.stringify(await service.db.query('select t::text from tool_trials t'))).not.toContain(ADA);
});
