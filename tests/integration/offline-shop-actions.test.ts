/**
 * Issue 36, item 1: on the embedded default (no OPENAI_API_KEY) the offline responder
 * calls the shop's own read-only action when a verified customer gives an order
 * number, as it calls the sample's lookup_order. The real service (createDependencies,
 * real PGlite) runs a shop file whose orders API runs on loopback.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { BUILT_IN_WORDS } from '../../src/shop/words';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { customerTokenHeader, makeTempDir, startTestService, type TestService } from '../support/test-service';

const ADA = 'ada@books.example';
const API_TOKEN = 'bramble-orders-token-from-the-environment';

// The service's start (PGlite, migrations, the help folder) is slow on a busy machine.
jest.setTimeout(300_000);

let api: OrdersApi;
let service: TestService;
let dir: string;

beforeAll(async () => {
  api = await startOrdersApi();
  dir = await makeTempDir('offline-actions-');
  const openapi = await api.writeOpenApi(dir);
  await fs.mkdir(path.join(dir, 'help'));
  await fs.writeFile(path.join(dir, 'help/returns.md'), '# Returning a book\n\nBooks can be returned within 30 days, unread and in their wrapping.\n');
  await fs.writeFile(
    path.join(dir, 'shop.yaml'),
    `name: Bramble Books
agents:
  - key: books
    description: Bramble Books' support, orders included.
    instructions: You are the support assistant of Bramble Books.
    tools: [listMyOrders, getMyOrder, search_knowledge_base]
actions:
  - openapi: ./${openapi}
    operations: [listMyOrders, getMyOrder]
    allow_private_network: true
    headers: { Authorization: "Bearer \${BRAMBLE_API_TOKEN}" }
    bind: { customerId: customer.id }
order_numbers: { prefix: BK, digits: 4 }
knowledge:
  folders: [./help]
`,
  );
  // No OPENAI_API_KEY: the embedded default, answered by the offline responder.
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

test("a verified customer asking about an order gets the action's answer as a sentence, and the API receives one request with that customer's bound id", async () => {
  const { status, body } = await service.postChat({ message: 'Where is my order bk 1001?' }, await customerTokenHeader(ADA));
  expect(status).toBe(200);
  // No `answer` in the shop file: every scalar field, each with a label made from its name (issue 43).
  expect(body.response).toContain('Order id: BK-1001; Customer id: ada@books.example; Status: shipped; Total: 42.00.');
  expect(body.response).not.toContain('answered');
  expect(body.escalated).toBe(false);

  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toMatchObject({ method: 'GET', path: `/customers/${encodeURIComponent(ADA)}/orders/BK-1001` });
  expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);

  const stored = await service.db.query<{ role: string; name: string | null; tool_calls: unknown }>(
    'select role, name, tool_calls from chat_messages where session_id = $1 order by seq',
    [body.session_id],
  );
  expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  // Stored as sent: the bound customer id beside the value the responder chose, marked as bound (issue 34, item 3).
  expect(stored[1]!.tool_calls).toEqual([
    expect.objectContaining({ name: 'getMyOrder', arguments: { orderId: 'BK-1001', customerId: 'ada@books.example' }, bound: ['customerId'], model_arguments: { orderId: 'BK-1001' } }),
  ]);
});

test("another customer's order number reaches the API with the asking customer's id, and only the API's refusal comes back", async () => {
  const { body } = await service.postChat({ message: 'What is the status of BK-1002?' }, await customerTokenHeader(ADA));
  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]!.path).toBe(`/customers/${encodeURIComponent(ADA)}/orders/BK-1002`);
  // The shop's not-found sentence (the built-in English one), never the text written for a model (issue 43).
  expect(body.response).toContain(BUILT_IN_WORDS.en!.order_not_found);
  expect(body.response).not.toContain('HTTP 404');
  expect(body.response).not.toContain('processing');
});

test('an anonymous visitor with an order number calls nothing: the API receives no request', async () => {
  const { status, body } = await service.postChat({ message: 'Where is my order BK-1001?' });
  expect(status).toBe(200);
  expect(api.requests).toHaveLength(0);
  expect(body.response).not.toContain('getMyOrder');
});

test('a verified customer whose message holds no order number gets the help center, and the API receives nothing', async () => {
  const { body } = await service.postChat({ message: 'Can I return a book I bought?' }, await customerTokenHeader(ADA));
  expect(api.requests).toHaveLength(0);
  expect(body.response).toContain('Books can be returned within 30 days');
});
