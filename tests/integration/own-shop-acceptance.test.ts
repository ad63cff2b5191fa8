/**
 * Issue 29's acceptance, across the shop file and the connectors: the real
 * service (createDependencies, real PGlite) started with a shop file for a shop
 * that is not the sample one (Bramble Books: its own name, agents, knowledge
 * folder and orders API on loopback described by its own OpenAPI document,
 * `allow_private_network: true`), answering through the real ChatOpenAI client
 * against the loopback model stub, which is scripted to call the action.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { customerTokenHeader, makeTempDir, openAIStubEnv, REPO_ROOT, startTestService, type TestService } from '../support/test-service';

const ADA = 'ada@books.example';
const GRACE = 'grace@books.example';
const API_TOKEN = 'bramble-orders-token-from-the-environment';

let api: OrdersApi;
let stub: OpenAIStub;
let service: TestService;
let dir: string;

beforeAll(async () => {
  [api, stub] = await Promise.all([startOrdersApi(), startOpenAIStub()]);
  dir = await makeTempDir('own-shop-');
  const openapi = await api.writeOpenApi(dir);
  await fs.mkdir(path.join(dir, 'help'));
  await fs.writeFile(path.join(dir, 'help/returns.md'), '# Returning a book\n\nBooks can be returned within 30 days, unread and in their wrapping.\n');
  await fs.writeFile(
    path.join(dir, 'shop.yaml'),
    `name: Bramble Books
agents:
  - key: books
    description: Bramble Books' support, orders included.
    instructions: |-
      You are the support assistant of Bramble Books, an independent bookshop.
      Use listMyOrders when the customer asks about their orders. Never invent dates.
    tools: [listMyOrders, search_knowledge_base]
  - key: reading
    description: Reading recommendations.
    instructions: You recommend books for Bramble Books customers.
    tools: [search_knowledge_base]
actions:
  - openapi: ./${openapi}
    operations: [listMyOrders]
    allow_private_network: true
    headers: { Authorization: "Bearer \${BRAMBLE_API_TOKEN}" }
    bind: { customerId: customer.id }
knowledge:
  folders: [./help]
`,
  );
  service = await startTestService({
    env: openAIStubEnv(stub.baseURL, { SHOP_FILE: path.join(dir, 'shop.yaml'), BRAMBLE_API_TOKEN: API_TOKEN }),
  });
});
afterAll(async () => {
  await service?.close();
  await Promise.all([api?.close(), stub?.close()]);
  await fs.rm(dir, { recursive: true, force: true });
});

test("the model's call of the shop's action reaches its API once, for the verified customer, and is stored; the model hears only of the new shop", async () => {
  stub.reset();
  api.requests.length = 0;
  // The model asks for another customer's orders: the bound parameter is the verified customer's all the same.
  stub.enqueueChat({ toolCalls: [{ id: 'call_1', name: 'listMyOrders', arguments: { customerId: GRACE } }] }, { content: 'Your order BK-1001 has shipped.' });
  const { status, body } = await service.postChat({ message: 'Where is my order?' }, await customerTokenHeader(ADA));
  expect(status).toBe(200);
  expect(body.response).toBe('Your order BK-1001 has shipped.');

  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toMatchObject({ method: 'GET', path: `/customers/${encodeURIComponent(ADA)}/orders` });
  expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${API_TOKEN}`);

  // The tool call and its result are in the stored history, as the built-in tools' are.
  const stored = await service.db.query<{ role: string; name: string | null; content: string; tool_calls: unknown }>(
    'select role, name, content, tool_calls from chat_messages where session_id = $1 order by seq',
    [body.session_id],
  );
  expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  expect(stored[1]!.tool_calls).toEqual([expect.objectContaining({ name: 'listMyOrders' })]);
  expect(stored[2]!.name).toBe('listMyOrders');
  expect(JSON.parse(stored[2]!.content)).toEqual({ orders: [expect.objectContaining({ orderId: 'BK-1001', customerId: ADA })] });

  // What the model receives: the new shop's instructions and tools, and nothing of the sample shop.
  const requests = stub.chatRequests();
  expect(requests).toHaveLength(2);
  const system = (requests[0]!.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'system')!;
  expect(system.content).toContain('You are the support assistant of Bramble Books, an independent bookshop.');
  const offered = (requests[0]!.body.tools as Array<{ function: { name: string; description: string } }>).map((t) => t.function);
  expect(offered.map((f) => f.name)).toEqual(['search_knowledge_base', 'listMyOrders']);
  expect(offered[0]!.description).toContain("Search Bramble Books' knowledge base (articles such as: Returning a book)");
  for (const request of requests) expect(JSON.stringify(request.body)).not.toMatch(/northwind/i);
});

test('the history shows the call as it was sent, the bound argument marked, the model’s own arguments beside it; the model is replayed its own call (issue 34, item 3)', async () => {
  stub.reset();
  api.requests.length = 0;
  stub.enqueueChat({ toolCalls: [{ id: 'call_3', name: 'listMyOrders', arguments: { customerId: GRACE, status: 'shipped' } }] }, { content: 'Your order BK-1001 has shipped.' });
  const { body } = await service.postChat({ message: 'Where is my order?' }, await customerTokenHeader(ADA));
  expect(api.requests[0]).toMatchObject({ path: `/customers/${encodeURIComponent(ADA)}/orders`, query: { status: 'shipped' } });

  const history = await service.getHistory(body.session_id);
  expect(history.status).toBe(200);
  const call = history.body.messages.find((m: { tool_calls?: unknown[] }) => m.tool_calls)!.tool_calls[0];
  expect(call).toEqual({
    id: 'call_3',
    name: 'listMyOrders',
    arguments: { customerId: ADA, status: 'shipped' },
    bound: ['customerId'],
    model_arguments: { customerId: GRACE, status: 'shipped' },
  });

  // The next turn gives the model its own call back, not the bound value.
  stub.enqueueChat({ content: 'Anything else?' });
  await service.postChat({ message: 'And the ones still on their way?', session_id: body.session_id }, await customerTokenHeader(ADA));
  const replayed = (stub.chatRequests().at(-1)!.body.messages as Array<{ role: string; tool_calls?: Array<{ function: { arguments: string } }> }>).find((m) => m.tool_calls)!;
  expect(JSON.parse(replayed.tool_calls![0]!.function.arguments)).toEqual({ customerId: GRACE, status: 'shipped' });
});

test('an anonymous call is stored as not sent, the model’s arguments kept', async () => {
  stub.reset();
  stub.enqueueChat({ toolCalls: [{ id: 'call_4', name: 'listMyOrders', arguments: { customerId: GRACE } }] }, { content: 'Please sign in first.' });
  const { body } = await service.postChat({ message: 'Where is my order?' });
  const history = await service.getHistory(body.session_id);
  const call = history.body.messages.find((m: { tool_calls?: unknown[] }) => m.tool_calls)!.tool_calls[0];
  expect(call).toEqual({ id: 'call_4', name: 'listMyOrders', arguments: { customerId: GRACE }, model_arguments: { customerId: GRACE }, not_sent: true });
});

test('an anonymous conversation gets the sign-in sentence from the bound action, and the API receives nothing', async () => {
  stub.reset();
  api.requests.length = 0;
  stub.enqueueChat({ toolCalls: [{ id: 'call_2', name: 'listMyOrders', arguments: { customerId: ADA } }] }, { content: 'Please sign in first.' });
  const { body } = await service.postChat({ message: 'Where is my order?' });
  expect(body.response).toBe('Please sign in first.');
  expect(api.requests).toHaveLength(0);
  const toolResult = (stub.chatRequests()[1]!.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool')!;
  expect(toolResult.content).toMatch(/^This conversation is not signed in/);
});

test('no file of src/ names the sample shop', async () => {
  const named: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(file);
      else if (/northwind/i.test(await fs.readFile(file, 'utf8'))) named.push(path.relative(REPO_ROOT, file));
    }
  };
  await walk(path.join(REPO_ROOT, 'src'));
  expect(named).toEqual([]);
});
