/**
 * Issue 43, points 2 and 3: a German shop (tests/fixtures/shops/bohnenglueck) goes
 * live on the embedded default, with no model: the real service over HTTP (real
 * PGlite), its orders API on loopback. A customer's order is answered as a German
 * sentence made from the fields the shop file names, never the API's field names; a
 * 404 and a stopped API get the shop's sentences, never the text written for a
 * model; a guest with the order's e-mail address gets the status, and wrong guesses
 * reach the API at most ORDER_PROOF_MAX_FAILURES (5) times per visitor.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../../src/observability/logger';
import { BUILT_IN_WORDS } from '../../src/shop/words';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { customerTokenHeader, makeTempDir, openAIStubEnv, REPO_ROOT, startTestService, type TestService } from '../support/test-service';

const FIXTURE = path.join(REPO_ROOT, 'tests/fixtures/shops/bohnenglueck');
const ADA = 'ada@books.example';
const API_TOKEN = 'bohnenglueck-orders-token';
const TOOL_FAILURE = 'Unser Bestellsystem ist gerade nicht erreichbar. Bitte versuchen Sie es in ein paar Minuten noch einmal.';
const SHIPPED = 'Stand: versandt; Versanddienst: DHL; Versandt am: 3. November 2026.';

// The service's start (PGlite, migrations, the help folder) is slow on a busy machine.
jest.setTimeout(300_000);

let api: OrdersApi;
let stub: OpenAIStub;
let service: TestService;
/** The same shop answered by the real ChatOpenAI client against the loopback model stub. */
let withModel: TestService;
let dir: string;
const logLines: string[] = [];

beforeAll(async () => {
  [api, stub] = await Promise.all([startOrdersApi(), startOpenAIStub()]);
  dir = await makeTempDir('german-shop-orders-');
  await fs.cp(FIXTURE, dir, { recursive: true });
  await api.writeOpenApi(dir, 'orders-api.yaml');
  const env = { SHOP_FILE: path.join(dir, 'shop.yaml'), BOHNENGLUECK_API_TOKEN: API_TOKEN };
  [service, withModel] = await Promise.all([
    // No OPENAI_API_KEY: the offline responder answers. Every log line is kept, to look for the customer's proofs.
    startTestService({ env, logger: createLogger('debug', { write: (line: string) => void logLines.push(line) }) }),
    startTestService({ env: { ...env, ...openAIStubEnv(stub.baseURL) } }),
  ]);
});
afterAll(async () => {
  await service?.close();
  await withModel?.close();
  await stub?.close();
  await api?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  api.requests.length = 0;
});

/** The keys of a JSON answer, nested ones too. */
function keysOf(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

test("a signed-in customer's order is answered in a German sentence from the shop file's fields, without a key of the API's JSON", async () => {
  const { status, body } = await service.postChat({ message: 'Wo ist meine Bestellung BK-1001?' }, await customerTokenHeader(ADA));
  expect(status).toBe(200);
  expect(body.language).toBe('de');
  expect(body.response).toContain(SHIPPED);
  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toMatchObject({ method: 'GET', path: `/customers/${encodeURIComponent(ADA)}/orders/BK-1001/status` });

  // What the API answered, asked again directly: none of its keys is in the answer, in any case.
  const answered = await (await fetch(`${api.baseURL}/customers/${encodeURIComponent(ADA)}/orders/BK-1001/status`)).json();
  const keys = keysOf(answered);
  expect(keys).toEqual(expect.arrayContaining(['orderId', 'status', 'shipped_at', 'carrier']));
  for (const key of keys) expect(body.response.toLowerCase()).not.toContain(key.toLowerCase());
  expect(body.response).not.toContain('answered');
  expect(body.response).not.toContain('getMyOrderStatus');
});

test("an order the API does not find for the customer (404) gets the shop's not-found sentence, in German", async () => {
  const { body } = await service.postChat({ message: 'Wo ist meine Bestellung BK-1002?' }, await customerTokenHeader(ADA));
  expect(api.requests).toHaveLength(1);
  expect(body.response).toContain(BUILT_IN_WORDS.de!.order_not_found);
  for (const text of ['404', 'HTTP', 'getMyOrderStatus', 'processing', 'in these words']) expect(body.response).not.toContain(text);
});

test('a guest who names the order, then gives its e-mail address in a later message, gets the status: the API receives both', async () => {
  const first = await service.postChat({ message: 'Wo ist meine Bestellung BK-1001?' });
  expect(first.status).toBe(200);
  // Without the e-mail address nothing is called.
  expect(api.requests).toHaveLength(0);

  const second = await service.postChat({ session_id: first.body.session_id, message: `Meine E-Mail-Adresse ist ${ADA}` });
  expect(second.status).toBe(200);
  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toMatchObject({ method: 'GET', path: '/orders/BK-1001/status', query: { email: ADA } });
  expect(second.body.response).toContain(SHIPPED);
});

test('ten wrong guesses of the e-mail address reach the API at most five times; then the visitor is told to try later, in German, and the limit is logged', async () => {
  const answers: string[] = [];
  let sessionId: string | undefined;
  for (let guess = 1; guess <= 10; guess++) {
    const { status, body } = await service.postChat({ ...(sessionId && { session_id: sessionId }), message: `Bestellung BK-1001, meine E-Mail: rater${guess}@example.com` });
    expect(status).toBe(200);
    sessionId = body.session_id;
    answers.push(body.response);
  }
  expect(api.requests).toHaveLength(5);
  expect(answers.slice(0, 5).every((a) => a.includes(BUILT_IN_WORDS.de!.order_not_found))).toBe(true);
  expect(answers.slice(5).every((a) => a.includes(BUILT_IN_WORDS.de!.proof_limited))).toBe(true);

  // The limit is the visitor's (their address), not the conversation's: a new one with the right address waits too.
  const fresh = await service.postChat({ message: `Bestellung BK-1001, meine E-Mail: ${ADA}` });
  expect(fresh.body.response).toContain(BUILT_IN_WORDS.de!.proof_limited);
  expect(api.requests).toHaveLength(5);

  const logged = logLines.map((line) => JSON.parse(line) as { msg: string; tool?: string });
  expect(logged.filter((l) => l.tool === 'getOrderStatus' && /order-proof limit/.test(l.msg))).toHaveLength(6);
  // The guesses are the customer's data: no log line holds one, nor the right address.
  for (const line of logLines) expect(line).not.toMatch(/rater\d+@example\.com|ada@books\.example/);
});

test("with a model, the model receives the API's answer as it came (and, after a 404, the shop's sentence to pass on) and writes the sentence itself", async () => {
  const written = 'Ihre Bestellung BK-1001 wurde am 3. November mit DHL versandt.';
  stub.enqueueChat({ toolCalls: [{ id: 'call_1', name: 'getOrderStatus', arguments: { orderId: 'BK-1001', email: ADA } }] }, { content: written });
  const { status, body } = await withModel.postChat({ message: `Wo ist meine Bestellung BK-1001? Meine E-Mail: ${ADA}` });
  expect(status).toBe(200);
  expect(body.response).toBe(written);
  expect(api.requests).toHaveLength(1);
  expect(api.requests[0]).toMatchObject({ path: '/orders/BK-1001/status', query: { email: ADA } });
  const toolMessages = () => (stub.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
  expect(toolMessages()).toEqual([JSON.stringify({ orderId: 'BK-1001', status: 'shipped', shipped_at: '2026-11-03', carrier: 'DHL' })]);

  stub.enqueueChat({ toolCalls: [{ id: 'call_2', name: 'getOrderStatus', arguments: { orderId: 'BK-1002', email: ADA } }] }, { content: 'Nicht gefunden.' });
  await withModel.postChat({ message: `Und die Bestellung BK-1002? Meine E-Mail: ${ADA}` });
  expect(toolMessages()).toEqual([expect.stringContaining(`Tell the customer, in these words: "${BUILT_IN_WORDS.de!.order_not_found}"`)]);
});

test("with the orders API stopped, the customer reads the shop's tool_failure sentence and no instruction text", async () => {
  await api.close();
  const { status, body } = await service.postChat({ message: 'Wo ist meine Bestellung BK-1001?' }, await customerTokenHeader(ADA));
  expect(status).toBe(200);
  expect(body.response).toContain(TOOL_FAILURE);
  for (const text of ['Tell the customer', 'in these words', 'getMyOrderStatus', 'could not reach', '"']) expect(body.response).not.toContain(text);
});
