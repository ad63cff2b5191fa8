/**
 * The offline responder's rule for the shop's actions (src/models/offline-actions.ts),
 * over real action tools built from an OpenAPI document: which operations qualify
 * (GET, allowlisted, exactly one required parameter that is not bound, a string that
 * fits its pattern) and what a message calls.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { StructuredTool } from '@langchain/core/tools';
import { actionSchema } from '../../src/connectors/connector-config';
import { loadActionTools } from '../../src/connectors/actions';
import { NetworkGuard } from '../../src/connectors/network-guard';
import { TokenCounter } from '../../src/memory/tokens';
import { describeAnswer, formatValue, offlineActionCall, offlineActionsOf, readableLabel } from '../../src/models/offline-actions';
import { NO_TRACING } from '../../src/observability/langfuse';
import { createLogger } from '../../src/observability/logger';
import { Redactor } from '../../src/privacy/redaction';

const DOCUMENT = `openapi: 3.0.3
info: { title: Orders, version: '1' }
servers: [{ url: 'http://127.0.0.1:9' }]
paths:
  /invoices/{invoiceId}:
    get:
      operationId: getInvoice
      parameters: [{ name: invoiceId, in: path, required: true, schema: { type: string, pattern: '^INV-\\d+$' } }]
  /customers/{customerId}/orders/{orderId}:
    get:
      operationId: getMyOrder
      parameters:
        - { name: customerId, in: path, required: true, schema: { type: string } }
        - { name: orderId, in: path, required: true, schema: { type: string } }
  /customers/{customerId}/orders:
    get:
      operationId: listMyOrders
      parameters:
        - { name: customerId, in: path, required: true, schema: { type: string } }
        - { name: limit, in: query, schema: { type: integer } }
  /search:
    get:
      operationId: searchOrders
      parameters:
        - { name: q, in: query, required: true, schema: { type: string } }
        - { name: page, in: query, required: true, schema: { type: integer } }
  /orders/{orderId}/cancel:
    post:
      operationId: cancelOrder
      parameters: [{ name: orderId, in: path, required: true, schema: { type: string } }]
  /orders/{orderId}/status:
    get:
      operationId: getOrderStatus
      parameters:
        - { name: orderId, in: path, required: true, schema: { type: string } }
        - { name: email, in: query, required: true, schema: { type: string, format: email } }
  /orders/by-number/{number}:
    get:
      operationId: orderByNumber
      parameters: [{ name: number, in: path, required: true, schema: { type: integer } }]
`;
const FORMAT = { prefix: 'BK', digits: 4 };

let tools: StructuredTool[];
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'offline-actions-'));
  await fs.writeFile(path.join(dir, 'orders.yaml'), DOCUMENT);
  const action = actionSchema.parse({
    openapi: './orders.yaml',
    operations: ['getInvoice', 'getMyOrder', 'listMyOrders', 'searchOrders', 'cancelOrder', 'orderByNumber', 'getOrderStatus'],
    allow_writes: ['cancelOrder'],
    allow_private_network: true,
    bind: { customerId: 'customer.id' },
    guest_proof: ['email'],
  });
  tools = await loadActionTools([action], {
    shopFileDir: dir,
    env: {},
    guard: new NetworkGuard(),
    redactor: new Redactor([]),
    tokenCounter: new TokenCounter('gpt-4o-mini'),
    logger: createLogger('silent'),
    tracing: NO_TRACING,
  });
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

test('only GET operations with exactly one required unbound string parameter qualify, in the order offered', () => {
  expect(offlineActionsOf(tools).map((a) => [a.name, a.argument, a.pattern?.source ?? null])).toEqual([
    ['getInvoice', 'invoiceId', '^INV-\\d+$'],
    ['getMyOrder', 'orderId', null],
    ['getOrderStatus', 'orderId', null],
  ]);
  expect(offlineActionsOf(tools).find((a) => a.name === 'getOrderStatus')!.proofs).toEqual([{ name: 'email', kind: 'email' }]);
});

test("a verified customer's order number calls the first operation whose parameter takes it, written as the shop writes it", () => {
  const actions = offlineActionsOf(tools);
  // getInvoice comes first, but its pattern refuses an order number.
  expect(offlineActionCall({ message: 'Where is my order bk 1001, please?' }, actions, FORMAT, true)).toEqual({ name: 'getMyOrder', args: { orderId: 'BK-1001' } });
  expect(offlineActionCall({ message: 'order #BK1001' }, actions, FORMAT, true)).toEqual({ name: 'getMyOrder', args: { orderId: 'BK-1001' } });
});

test('nothing is called without a verified customer, without an order number format, or without a number in the message', () => {
  const actions = offlineActionsOf(tools);
  expect(offlineActionCall({ message: 'Where is my order BK-1001?' }, actions, FORMAT, false)).toBeNull();
  expect(offlineActionCall({ message: 'Where is my order BK-1001?' }, actions, null, true)).toBeNull();
  expect(offlineActionCall({ message: 'Where is my order?' }, actions, FORMAT, true)).toBeNull();
  expect(offlineActionCall({ message: 'Where is my order BK-10012?' }, actions, FORMAT, true)).toBeNull();
  expect(offlineActionCall({ message: 'Where is my order BK-1001?' }, [], FORMAT, true)).toBeNull();
});

test("a guest's order number and e-mail address, in this message or earlier ones, call the operation with guest_proof; a verified customer's go to the bound one first", () => {
  const actions = offlineActionsOf(tools);
  const guest = { name: 'getOrderStatus', args: { orderId: 'BK-1001', email: 'ada@books.example' } };
  expect(offlineActionCall({ message: 'Order BK-1001, my e-mail is ada@books.example.' }, actions, FORMAT, false)).toEqual(guest);
  // The number first, the address in a later message (and the other way round).
  expect(offlineActionCall({ message: 'It is ada@books.example', earlier: ['Hello', 'Where is BK-1001?'] }, actions, FORMAT, false)).toEqual(guest);
  expect(offlineActionCall({ message: 'The order is bk1001', earlier: ['My e-mail: ada@books.example'] }, actions, FORMAT, false)).toEqual(guest);
  // Without an address, or without anything new in this message, nothing is called.
  expect(offlineActionCall({ message: 'Where is BK-1001?' }, actions, FORMAT, false)).toBeNull();
  expect(offlineActionCall({ message: 'Thanks!', earlier: ['Where is BK-1001?', 'ada@books.example'] }, actions, FORMAT, false)).toBeNull();
  expect(offlineActionCall({ message: 'Where is BK-1001? ada@books.example' }, actions, FORMAT, true)).toEqual({ name: 'getMyOrder', args: { orderId: 'BK-1001' } });
});

test("an answer is read as a sentence from every scalar field, each with a label made from its name, never a raw key", () => {
  const sentence = describeAnswer('{"orderId":"BK-1001","status":"shipped","shipped_at":"2026-11-03","items":[{"sku":"A1"}],"shipment":{"carrier":"DHL"}}', null, 'en');
  expect(sentence).toBe('Order id: BK-1001; Status: shipped; Shipped at: November 3, 2026; Carrier: DHL.');
  expect(readableLabel('shippedAt')).toBe('Shipped at');
  // Not a JSON object: nothing to describe, the caller keeps the text.
  expect(describeAnswer('Your order is on its way.', null, 'en')).toBeNull();
  // Cut while it streamed in: its string fields still read.
  expect(describeAnswer('{"status":"shipped","notes":"long', null, 'de')).toBe('Status: shipped.');
  // A list of orders: one sentence each; an empty one has nothing to read.
  expect(describeAnswer('{"orders":[{"orderId":"BK-1001","total":42},{"orderId":"BK-1003","total":7.5}]}', null, 'de')).toBe('Order id: BK-1001; Total: 42.\nOrder id: BK-1003; Total: 7,5.');
  expect(describeAnswer('{"orders":[]}', null, 'en')).toBe('');
});

test("the shop file's fields are read in its order, with its labels and value words in the customer's language", () => {
  const fields = {
    status: { label: { de: 'Stand', en: 'Status' }, values: { shipped: { de: 'versandt', en: 'shipped' } } },
    shipped_at: { label: { de: 'Versandt am' } },
    'shipment.carrier': { label: 'Versanddienst' },
    total: {},
  };
  const answer = '{"orderId":"BK-1001","total":42.5,"shipped_at":"2026-11-03","status":"shipped","shipment":{"carrier":"DHL"}}';
  expect(describeAnswer(answer, fields, 'de')).toBe('Stand: versandt; Versandt am: 3. November 2026; Versanddienst: DHL; Total: 42,5.');
  // A language without its own label gets the first one given (a word is better than a field name).
  expect(describeAnswer(answer, fields, 'fr')).toBe('Stand: versandt; Versandt am: 3 novembre 2026; Versanddienst: DHL; Total: 42,5.');
});

test('dates and times are written for the locale, a time in UTC and saying so; other values as they came', () => {
  expect(formatValue('2026-11-03T14:05:00Z', 'de')).toBe('3. November 2026 um 14:05 UTC');
  expect(formatValue('2026-11-03', 'en')).toBe('November 3, 2026');
  expect(formatValue('2026-13-45', 'en')).toBe('2026-13-45');
  expect(formatValue('BK-1001', 'xx-not-a-locale!')).toBe('BK-1001');
});
