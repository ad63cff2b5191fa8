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
import { offlineActionCall, offlineActionsOf, quoteToolAnswer } from '../../src/models/offline-actions';
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
    operations: ['getInvoice', 'getMyOrder', 'listMyOrders', 'searchOrders', 'cancelOrder', 'orderByNumber'],
    allow_writes: ['cancelOrder'],
    allow_private_network: true,
    bind: { customerId: 'customer.id' },
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
  ]);
});

test("a verified customer's order number calls the first operation whose parameter takes it, written as the shop writes it", () => {
  const actions = offlineActionsOf(tools);
  // getInvoice comes first, but its pattern refuses an order number.
  expect(offlineActionCall('Where is my order bk 1001, please?', actions, FORMAT, true)).toEqual({ name: 'getMyOrder', args: { orderId: 'BK-1001' } });
  expect(offlineActionCall('order #BK1001', actions, FORMAT, true)).toEqual({ name: 'getMyOrder', args: { orderId: 'BK-1001' } });
});

test('nothing is called without a verified customer, without an order number format, or without a number in the message', () => {
  const actions = offlineActionsOf(tools);
  expect(offlineActionCall('Where is my order BK-1001?', actions, FORMAT, false)).toBeNull();
  expect(offlineActionCall('Where is my order BK-1001?', actions, null, true)).toBeNull();
  expect(offlineActionCall('Where is my order?', actions, FORMAT, true)).toBeNull();
  expect(offlineActionCall('Where is my order BK-10012?', actions, FORMAT, true)).toBeNull();
  expect(offlineActionCall('Where is my order BK-1001?', [], FORMAT, true)).toBeNull();
});

test("an action's JSON answer is quoted field by field; a sentence is passed on as it is", () => {
  expect(quoteToolAnswer('getMyOrder', '{"orderId":"BK-1001","status":"shipped","items":[{"sku":"A1"}]}')).toBe(
    'getMyOrder answered:\n> orderId: BK-1001\n> status: shipped\n> items: [{"sku":"A1"}]',
  );
  const refusal = "getMyOrder failed: the shop's system answered HTTP 404 (not found), so nothing could be looked up.";
  expect(quoteToolAnswer('getMyOrder', refusal)).toBe(refusal);
});
