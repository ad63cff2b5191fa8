/**
 * Issue 34, items 1, 3 and 8, on the action wrapper against the loopback orders API:
 * a bound name reaches the API only as the verified customer (path and body alike,
 * nested bodies by a dotted bind), what the model adds to a body beyond its schema
 * is dropped, the call's record says what was sent, and a document whose
 * references multiply is refused at start, quickly.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ToolMessage } from '@langchain/core/messages';
import type { StructuredTool } from '@langchain/core/tools';
import type { ConversationIdentity } from '../../src/agent/tools/conversation-customer';
import { loadActionTools } from '../../src/connectors/actions';
import { actionSchema, ShopFileError, type ActionConfig } from '../../src/connectors/connector-config';
import type { ConnectorContext } from '../../src/connectors/connector-context';
import { isSentToolCall } from '../../src/connectors/guarded-tool';
import { NetworkGuard } from '../../src/connectors/network-guard';
import { TokenCounter } from '../../src/memory/tokens';
import { NO_TRACING } from '../../src/observability/langfuse';
import { createLogger } from '../../src/observability/logger';
import { Redactor } from '../../src/privacy/redaction';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { makeTempDir } from '../support/test-service';

const ADA = 'ada';
const VICTIM = 'VICTIM';
const tokenCounter = new TokenCounter('gpt-4o-mini');

let api: OrdersApi;
let dir: string;
let openapi: string;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  api = await startOrdersApi();
  dir = await makeTempDir('actions-binding-');
  openapi = await api.writeOpenApi(dir);
});
afterAll(async () => {
  await api.close();
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.requests.length = 0;
  logLines.length = 0;
});

function context(): ConnectorContext {
  return {
    shopFileDir: dir,
    env: {},
    guard: new NetworkGuard(),
    redactor: new Redactor([]),
    tokenCounter,
    logger: createLogger('info', { write: (line: string) => logLines.push(JSON.parse(line)) }),
    tracing: NO_TRACING,
  };
}

function action(fields: Record<string, unknown>): ActionConfig {
  return actionSchema.parse({ openapi, allow_private_network: true, ...fields });
}

function asCustomer(customerId: string | null): { configurable: { identity: ConversationIdentity } } {
  return { configurable: { identity: { verifiedCustomerId: customerId, verifiedCustomerEmail: null, sessionId: 'binding-test', clientAddress: null, stopTurn: (e) => { throw e; } } } };
}

async function toolNamed(fields: Record<string, unknown>, name: string): Promise<StructuredTool> {
  const tools = await loadActionTools([action(fields)], context());
  return tools.find((t) => t.name === name)!;
}

describe('a bound name is written wherever the operation takes it (item 1)', () => {
  it('POST /customers/{customerId}/tickets whose body also has customerId: the path and the body both carry the verified customer', async () => {
    const openTicket = await toolNamed({ operations: ['openTicket'], allow_writes: ['openTicket'], bind: { customerId: 'customer.id' } }, 'openTicket');
    // The model is offered neither: not the path parameter, not the body property.
    const schema = openTicket.schema as { properties: Record<string, { properties?: object }> };
    expect(Object.keys(schema.properties)).toEqual(['body']);
    expect(Object.keys(schema.properties.body!.properties!)).toEqual(['subject']);

    await openTicket.invoke({ customerId: VICTIM, body: { subject: 'hi', customerId: VICTIM } }, asCustomer(ADA));
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.path).toBe('/customers/ada/tickets');
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ subject: 'hi', customerId: ADA });
  });

  it('drops body properties the schema does not declare, at any depth, and logs the drop', async () => {
    const openTicket = await toolNamed({ operations: ['openTicket'], allow_writes: ['openTicket'], bind: { customerId: 'customer.id' } }, 'openTicket');
    await openTicket.invoke({ body: { subject: 'hi', customer_id: VICTIM, owner: { id: VICTIM } } }, asCustomer(ADA));
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ subject: 'hi', customerId: ADA });
    const warning = logLines.find((l) => l.tool === 'openTicket' && l.level === 40);
    expect(warning?.dropped).toEqual(['body.customer_id', 'body.owner']);
  });

  it('a dotted bind (body.customer.id) fills a nested body property, hidden from the model, whatever it sent there', async () => {
    const openTicketFor = await toolNamed({ operations: ['openTicketFor'], allow_writes: ['openTicketFor'], bind: { 'body.customer.id': 'customer.id' } }, 'openTicketFor');
    const body = (openTicketFor.schema as { properties: { body: { properties: { customer: { properties: object; required?: string[] } } } } }).properties.body;
    expect(Object.keys(body.properties.customer.properties)).toEqual(['name']);
    expect(body.properties.customer.required).toEqual([]);

    await openTicketFor.invoke({ body: { subject: 'hi', customer: { id: VICTIM, name: 'Eve', role: 'admin' } } }, asCustomer(ADA));
    expect(api.requests[0]!.path).toBe('/tickets');
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ subject: 'hi', customer: { id: ADA, name: 'Eve' } });
    // Without a customer object at all, one is made for the bound id.
    await openTicketFor.invoke({ body: { subject: 'again' } }, asCustomer(ADA));
    expect(JSON.parse(api.requests[1]!.body)).toEqual({ subject: 'again', customer: { id: ADA } });
    // And an anonymous conversation calls nothing.
    await openTicketFor.invoke({ body: { subject: 'hi', customer: { id: VICTIM } } }, asCustomer(null));
    expect(api.requests).toHaveLength(2);
  });

  it('a dotted bind that names no body property is a shop-file problem with its path', async () => {
    const error = await loadActionTools([action({ operations: ['openTicketFor'], allow_writes: ['openTicketFor'], bind: { 'body.client.id': 'customer.id' } })], context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopFileError);
    expect((error as ShopFileError).problems).toEqual([{ path: 'actions[0].bind.body.client.id', message: 'no listed operation has a request body property at body.client.id' }]);
  });
});

describe('the record of a call says what was sent (item 3)', () => {
  it('the ToolMessage carries the arguments as sent, the bound names, and the model’s own arguments', async () => {
    const openTicket = await toolNamed({ operations: ['openTicket'], allow_writes: ['openTicket'], bind: { customerId: 'customer.id' } }, 'openTicket');
    const modelArguments = { customerId: VICTIM, body: { subject: 'hi', customerId: VICTIM, extra: 1 } };
    const message = await openTicket.invoke({ type: 'tool_call', id: 'call-1', name: 'openTicket', args: modelArguments }, asCustomer(ADA));
    expect(message).toBeInstanceOf(ToolMessage);
    const artifact = (message as ToolMessage).artifact;
    expect(isSentToolCall(artifact)).toBe(true);
    expect(artifact).toEqual({
      kind: 'sent_tool_call',
      sent_arguments: { customerId: ADA, body: { subject: 'hi', customerId: ADA } },
      bound: ['customerId'],
      model_arguments: modelArguments,
      outcome: 'answered',
    });
    // In an anonymous conversation nothing was sent, and the record says so.
    const refused = await openTicket.invoke({ type: 'tool_call', id: 'call-2', name: 'openTicket', args: modelArguments }, asCustomer(null));
    expect((refused as ToolMessage).artifact).toEqual({ kind: 'sent_tool_call', sent_arguments: null, bound: [], model_arguments: modelArguments, outcome: 'sign_in' });
  });
});

describe('$ref expansion (item 8)', () => {
  /** 20 levels, each referencing the next twice: 2^20 leaves when expanded naively. */
  function doubling(levels: number): string {
    const schemas = [`    L${levels}: { type: string }`];
    for (let i = levels - 1; i >= 0; i--) schemas.push(`    L${i}: { type: object, properties: { a: { $ref: '#/components/schemas/L${i + 1}' }, b: { $ref: '#/components/schemas/L${i + 1}' } } }`);
    return `openapi: 3.0.3
info: { title: Doubling, version: '1' }
servers: [{ url: ${api.baseURL} }]
paths:
  /things:
    post:
      operationId: makeThing
      requestBody: { required: true, content: { application/json: { schema: { $ref: '#/components/schemas/L0' } } } }
      responses: { '200': { description: ok } }
  /small:
    post:
      operationId: makeSmall
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/L17' } } } }
      responses: { '200': { description: ok } }
components:
  schemas:
${schemas.join('\n')}
`;
  }

  it('resolves each reference once, and refuses a tool schema over 32 KB at start, naming the operation', async () => {
    await fs.writeFile(path.join(dir, 'doubling.yaml'), doubling(20));
    const startedAt = Date.now();
    const error = await loadActionTools([action({ openapi: 'doubling.yaml', operations: ['makeThing', 'makeSmall'], allow_writes: ['makeThing', 'makeSmall'] })], context()).catch((e: unknown) => e);
    const tookMs = Date.now() - startedAt;
    expect(error).toBeInstanceOf(ShopFileError);
    expect((error as ShopFileError).problems).toEqual([
      { path: 'actions[0].operations[0]', message: "makeThing's arguments take more than 32 KB of JSON schema (references that multiply?): simplify its parameters or request body" },
    ]);
    expect(tookMs).toBeLessThan(5000);
  });

  it('keeps a schema under the cap whole, its shared parts expanded in full', async () => {
    await fs.writeFile(path.join(dir, 'doubling-small.yaml'), doubling(20));
    const [small] = await loadActionTools([action({ openapi: 'doubling-small.yaml', operations: ['makeSmall'], allow_writes: ['makeSmall'] })], context());
    const body = (small!.schema as { properties: { body: unknown } }).properties.body;
    // L17 -> L20: three levels of doubling, eight string leaves.
    expect(JSON.stringify(body).match(/"type":"string"/g)).toHaveLength(8);
  });
});

describe('guest_proof (issue 43, item 3)', () => {
  it('a name also bound, a name no operation takes, and an operation that also takes a bound one are mistakes of the shop file', async () => {
    const load = (fields: Record<string, unknown>) => loadActionTools([action(fields)], context()).then(() => null, (error: unknown) => error);
    const both = await load({ operations: ['getOrderStatus'], guest_proof: ['email'], bind: { email: 'customer.email' } });
    expect(both).toBeInstanceOf(ShopFileError);
    expect((both as ShopFileError).problems).toContainEqual({ path: 'actions[0].guest_proof[0]', message: expect.stringContaining('"email" is also in bind') });
    const unknown = await load({ operations: ['getOrderStatus'], guest_proof: ['postcode'] });
    expect((unknown as ShopFileError).problems).toEqual([{ path: 'actions[0].guest_proof[0]', message: 'no listed operation has a parameter or body property "postcode"' }]);
    const mixed = await load({ operations: ['getMyOrderStatus', 'getOrderStatus'], guest_proof: ['orderId'], bind: { customerId: 'customer.id' } });
    expect((mixed as ShopFileError).problems).toEqual([{ path: 'actions[0].operations[0]', message: expect.stringContaining('a guest cannot give the bound ones') }]);
  });

  it('in a service without the order-proof limit, a guest calls nothing, even with the proof', async () => {
    const getOrderStatus = await toolNamed({ operations: ['getOrderStatus'], guest_proof: ['email'] }, 'getOrderStatus');
    const message = (await getOrderStatus.invoke({ type: 'tool_call', id: 'call-1', name: 'getOrderStatus', args: { orderId: 'BK-1001', email: 'ada@books.example' } }, asCustomer(null))) as ToolMessage;
    expect(message.text).toContain('getOrderStatus was not called');
    expect(message.artifact).toMatchObject({ sent_arguments: null, outcome: 'sign_in' });
    expect(api.requests).toHaveLength(0);
  });
});
