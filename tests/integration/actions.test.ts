import fs from 'node:fs/promises';
import type { StructuredTool } from '@langchain/core/tools';
import { SIGN_IN_HINT, type ConversationIdentity } from '../../src/agent/tools/conversation-customer';
import { loadActionTools, RETRY_WAIT_MS } from '../../src/connectors/actions';
import { actionSchema, ShopFileError, type ActionConfig } from '../../src/connectors/connector-config';
import type { ConnectorContext } from '../../src/connectors/connector-context';
import { cutMarker, responseByteCap } from '../../src/connectors/guarded-tool';
import { NetworkGuard } from '../../src/connectors/network-guard';
import { TokenCounter } from '../../src/memory/tokens';
import { createTracing, NO_TRACING, type Tracing } from '../../src/observability/langfuse';
import { createLogger } from '../../src/observability/logger';
import { Redactor } from '../../src/privacy/redaction';
import { startLangfuseReceiver } from '../support/langfuse-receiver';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { makeTempDir } from '../support/test-service';

const ADA = 'ada@books.example';
const GRACE = 'grace@books.example';
const TOKEN = 'secret-token-from-the-environment';
const tokenCounter = new TokenCounter('gpt-4o-mini');

let api: OrdersApi;
let dir: string;
let openapi: string;

beforeAll(async () => {
  api = await startOrdersApi();
  dir = await makeTempDir('actions-test-');
  openapi = await api.writeOpenApi(dir);
});
afterAll(async () => {
  await api.close();
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.requests.length = 0;
});

function context(env: Record<string, string> = { BOOKSHOP_API_TOKEN: TOKEN }, tracing: Tracing = NO_TRACING): ConnectorContext {
  return {
    shopFileDir: dir,
    env,
    guard: new NetworkGuard(),
    redactor: new Redactor(['card']),
    tokenCounter,
    logger: createLogger('silent'),
    tracing,
  };
}

/** An action as the shop file would give it (defaults applied). */
function action(fields: Record<string, unknown>): ActionConfig {
  return actionSchema.parse({
    openapi,
    allow_private_network: true,
    headers: { Authorization: 'Bearer ${BOOKSHOP_API_TOKEN}' },
    bind: { customerId: 'customer.id' },
    ...fields,
  });
}

function asCustomer(customerId: string | null, email: string | null = null): { configurable: { identity: ConversationIdentity } } {
  return {
    configurable: {
      identity: { verifiedCustomerId: customerId, verifiedCustomerEmail: email, sessionId: 'actions-test', clientAddress: null, stopTurn: (error) => { throw error; } },
    },
  };
}

async function toolsOf(fields: Record<string, unknown>): Promise<Map<string, StructuredTool>> {
  const tools = await loadActionTools([action(fields)], context());
  return new Map(tools.map((t) => [t.name, t]));
}

async function problemsOf(actions: Array<Record<string, unknown>>, env?: Record<string, string>): Promise<string[]> {
  const error = await loadActionTools(actions.map(action), context(env)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ShopFileError);
  return (error as ShopFileError).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('an action built from the shop’s OpenAPI document', () => {
  it('offers each allowlisted operation as a tool named by its operationId, described by its summary and description, without the bound parameter', async () => {
    const tools = await toolsOf({ operations: ['listMyOrders', 'getOrder'] });
    expect([...tools.keys()]).toEqual(['listMyOrders', 'getOrder']);
    const list = tools.get('listMyOrders')!;
    expect(list.description).toBe("List the customer's orders\n\nEvery order of the signed-in customer, newest first, with status and total.");
    // customerId is bound: the model is not even offered it; status comes from the document.
    expect(list.schema).toEqual({
      type: 'object',
      properties: { status: { type: 'string', enum: ['processing', 'shipped', 'delivered'], description: 'Only orders in this status.' } },
    });
    expect(tools.get('getOrder')!.schema).toEqual({
      type: 'object',
      properties: { orderId: { type: 'string', description: 'The order number, like BK-1001.' } },
      required: ['orderId'],
    });
  });

  it('calls the API once, with the header from the environment and the verified customer’s id, whatever id the model sent', async () => {
    const tools = await toolsOf({ operations: ['listMyOrders'] });
    const result = await tools.get('listMyOrders')!.invoke({ customerId: GRACE, status: 'shipped' }, asCustomer(ADA));
    expect(api.requests).toHaveLength(1);
    const [request] = api.requests;
    expect(request!.path).toBe(`/customers/${encodeURIComponent(ADA)}/orders`);
    expect(request!.query).toEqual({ status: 'shipped' });
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(result as string)).toEqual({ orders: [expect.objectContaining({ orderId: 'BK-1001', customerId: ADA })] });
  });

  it('answers an anonymous conversation with the sign-in sentence and calls nothing', async () => {
    const tools = await toolsOf({ operations: ['listMyOrders'] });
    const result = await tools.get('listMyOrders')!.invoke({ customerId: GRACE }, asCustomer(null));
    expect(result).toContain(SIGN_IN_HINT);
    expect(result).toContain('not signed in');
    expect(api.requests).toHaveLength(0);
  });

  it('lets an anonymous conversation call an operation that binds nothing', async () => {
    const tools = await toolsOf({ operations: ['getOrder', 'listMyOrders'] });
    const result = await tools.get('getOrder')!.invoke({ orderId: 'BK-1002' }, asCustomer(null));
    expect(JSON.parse(result as string)).toMatchObject({ orderId: 'BK-1002', status: 'processing' });
    expect(api.requests).toHaveLength(1);
  });

  it('reads its OpenAPI document from a URL at start, through the guard', async () => {
    const tools = await toolsOf({ openapi: `${api.baseURL}/openapi.yaml`, operations: ['getOrder'], bind: {} });
    expect([...tools.keys()]).toEqual(['getOrder']);
    expect(api.requests.map((r) => r.path)).toEqual(['/openapi.yaml']);
    const problems = await problemsOf([{ openapi: `${api.baseURL}/openapi.yaml`, operations: ['getOrder'], bind: {}, allow_private_network: false }]);
    expect(problems[0]).toMatch(/^actions\[0\]\.openapi: cannot read the OpenAPI document http:\/\/127\.0\.0\.1:\d+\/openapi\.yaml: .* a loopback or private address: refused unless allow_private_network is set$/);
  });

  it('fills a bound property of a write’s JSON body from the verified customer', async () => {
    const tools = await toolsOf({ operations: ['cancelOrder'], allow_writes: ['cancelOrder'] });
    const cancel = tools.get('cancelOrder')!;
    expect((cancel.schema as { properties: { body: { properties: object } } }).properties.body.properties).toEqual({ reason: { type: 'string' } });
    await cancel.invoke({ orderId: 'BK-1001', body: { reason: 'too late', customerId: GRACE } }, asCustomer(ADA));
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.method).toBe('POST');
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ reason: 'too late', customerId: ADA });
  });

  it('fills a parameter bound to customer.email from the token’s e-mail claim, and calls nothing when the token has none', async () => {
    const tools = await toolsOf({ operations: ['listMyOrders'], bind: { customerId: 'customer.email' } });
    const list = tools.get('listMyOrders')!;
    expect(await list.invoke({}, asCustomer('cust-1042'))).toBe("The signed-in customer's e-mail address is not known to this service, so listMyOrders was not called.");
    expect(api.requests).toHaveLength(0);
    await list.invoke({}, asCustomer('cust-1042', ADA));
    expect(api.requests.map((r) => r.path)).toEqual([`/customers/${encodeURIComponent(ADA)}/orders`]);
  });

  it('shows the model a 1 MB answer cut to max_result_tokens with the marker, and never reads it all', async () => {
    const tools = await toolsOf({ bind: {}, operations: ['exportOrders'], max_result_tokens: 300 });
    const result = (await tools.get('exportOrders')!.invoke({}, asCustomer(ADA))) as string;
    expect(result.endsWith(cutMarker(300))).toBe(true);
    expect(tokenCounter.countText(result)).toBeLessThanOrEqual(300);
    expect(tokenCounter.countText(result)).toBeGreaterThan(250);
    expect(result.startsWith('{"orders":[{"orderId":"BK-100000"')).toBe(true);
    expect(responseByteCap(300)).toBeLessThan(100 * 1024);
  });

  it('gives one plain sentence after timeout_ms when the API sleeps', async () => {
    const tools = await toolsOf({ bind: {}, operations: ['slowReport'], timeout_ms: 500 });
    const startedAt = Date.now();
    const result = await tools.get('slowReport')!.invoke({}, asCustomer(ADA));
    const took = Date.now() - startedAt;
    expect(result).toBe("slowReport did not answer within 500 ms, so nothing could be looked up; the shop's system may be busy, try again later.");
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5_000);
  });

  it('tries a GET that gets 503 once more after a short wait, then gives the sentence', async () => {
    const tools = await toolsOf({ bind: {}, operations: ['deliveryEstimate'] });
    const result = await tools.get('deliveryEstimate')!.invoke({}, asCustomer(ADA));
    expect(api.requests.map((r) => r.path)).toEqual(['/flaky', '/flaky']);
    expect(result).toBe("deliveryEstimate failed: the shop's system answered HTTP 503 (the system is failing), so nothing could be looked up.");
    expect(RETRY_WAIT_MS).toBeGreaterThan(0);
  });

  it('refuses a path parameter that would reach another path of the API (empty, "." or "..")', async () => {
    const tools = await toolsOf({ bind: {}, operations: ['getOrder'] });
    for (const orderId of ['..', '.', '%2e%2E', ' ']) {
      expect(await tools.get('getOrder')!.invoke({ orderId }, asCustomer(ADA))).toBe(`getOrder: "${orderId}" is not a valid orderId.`);
    }
    expect(api.requests).toHaveLength(0);
    await tools.get('getOrder')!.invoke({ orderId: '../export' }, asCustomer(ADA));
    expect(api.requests.map((r) => r.path)).toEqual(['/orders/..%2Fexport']);
  });

  it('tells the model that a 404 found nothing, in one sentence', async () => {
    const tools = await toolsOf({ bind: {}, operations: ['getOrder'] });
    expect(await tools.get('getOrder')!.invoke({ orderId: 'BK-9999' }, asCustomer(ADA))).toBe(
      "getOrder failed: the shop's system answered HTTP 404 (not found), so nothing could be looked up.",
    );
    expect(api.requests).toHaveLength(1);
  });

  it('gives the sentence for a refused connection', async () => {
    const closed = await startOrdersApi();
    const url = closed.baseURL;
    await closed.close();
    const tools = await toolsOf({ bind: {}, operations: ['getOrder'], base_url: url });
    expect(await tools.get('getOrder')!.invoke({ orderId: 'BK-1001' }, asCustomer(ADA))).toBe("getOrder could not reach the shop's system, so nothing could be looked up right now.");
  });

  it('redacts card numbers in a result as customer messages are redacted', async () => {
    const tools = await toolsOf({ bind: {}, operations: ['paymentMethod'] });
    const result = (await tools.get('paymentMethod')!.invoke({}, asCustomer(ADA))) as string;
    expect(result).toContain('[card ending 4242]');
    expect(result).not.toMatch(/4242 4242/);
  });
});

describe('an action the start refuses, naming the field', () => {
  it('an operationId that is not in the document', async () => {
    expect(await problemsOf([{ operations: ['getOrder', 'trackParcel'] }])).toEqual([`actions[0].operations[1]: no operation with operationId "trackParcel" in ${openapi}`]);
  });

  it('an unset ${VAR} in a header', async () => {
    expect(await problemsOf([{ bind: {}, operations: ['getOrder'] }], {})).toEqual(['actions[0].headers.Authorization: ${BOOKSHOP_API_TOKEN} is not set in the environment']);
  });

  it('a base_url on 127.0.0.1 without allow_private_network', async () => {
    const [problem] = await problemsOf([{ bind: {}, operations: ['getOrder'], allow_private_network: false }]);
    expect(problem).toMatch(/^actions\[0\]\.base_url: the document's first server: http:\/\/127\.0\.0\.1:\d+\/ resolves to 127\.0\.0\.1, a loopback or private address: refused unless allow_private_network is set$/);
  });

  it('a metadata address even with allow_private_network', async () => {
    const [problem] = await problemsOf([{ bind: {}, operations: ['getOrder'], base_url: 'http://169.254.169.254/latest' }]);
    expect(problem).toBe('actions[0].base_url: base_url: http://169.254.169.254/latest resolves to 169.254.169.254 (instance metadata (AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack)): refused always, even with allow_private_network');
  });

  it('a write not listed under allow_writes, and allow_writes naming an operation not in operations', async () => {
    expect(await problemsOf([{ bind: {}, operations: ['cancelOrder'], allow_writes: ['refundOrder'] }])).toEqual([
      'actions[0].allow_writes[0]: "refundOrder" is not in operations; list it there too',
      'actions[0].operations[0]: cancelOrder is a POST: only GET operations are called unless listed under allow_writes',
    ]);
  });

  it('a document that cannot be read, a bind that matches nothing, and the same operation twice, all at once', async () => {
    expect(
      await problemsOf([
        { openapi: 'missing.yaml', operations: ['getOrder'] },
        { operations: ['getOrder'], bind: { shopperId: 'customer.id' } },
        { operations: ['getOrder'], bind: {} },
      ]),
    ).toEqual([
      `actions[0].openapi: cannot read the OpenAPI document missing.yaml: no such file: ${dir}/missing.yaml`,
      'actions[1].bind.shopperId: no listed operation has a parameter or body property "shopperId"',
      'actions[2].operations[0]: a tool named "getOrder" already comes from actions[1].operations[0]',
    ]);
  });
});

describe('an action call in the Langfuse trace', () => {
  it('is a span with the operation, status, duration, size and attempts, and never a header value', async () => {
    const receiver = await startLangfuseReceiver();
    const tracing = createTracing(
      { publicKey: 'pk-lf-test', secretKey: 'sk-lf-test', baseUrl: receiver.baseUrl, exportTimeoutMs: 2000, flushTimeoutMs: 2000, capturePersonalData: false },
      createLogger('silent'),
    );
    try {
      const [list, flaky] = await loadActionTools(
        [action({ operations: ['listMyOrders'] }), action({ operations: ['deliveryEstimate'], bind: {} })],
        context(undefined, tracing),
      );
      await tracing.trace('chat', null, { sessionId: 's-1', userId: null, tags: [] }, async () => {
        await list!.invoke({}, asCustomer(ADA));
        await flaky!.invoke({}, asCustomer(ADA));
      });
      await tracing.flush();
      await receiver.waitFor(() => receiver.spans.some((s) => s.name === 'action deliveryEstimate'));
      const span = receiver.spans.find((s) => s.name === 'action listMyOrders')!;
      const metadata = (name: string) => span.attributes[`langfuse.observation.metadata.${name}`];
      expect(metadata('operation')).toBe('listMyOrders');
      expect(metadata('status')).toBe('200');
      expect(metadata('method')).toBe('GET');
      expect(Number(metadata('bytes'))).toBeGreaterThan(50);
      expect(Number(metadata('duration_ms'))).toBeGreaterThanOrEqual(0);
      const failed = receiver.spans.find((s) => s.name === 'action deliveryEstimate')!;
      expect(failed.attributes['langfuse.observation.metadata.attempts']).toBe('2');
      expect(failed.attributes['langfuse.observation.level']).toBe('WARNING');
      expect(JSON.stringify(receiver.spans)).not.toContain(TOKEN);
    } finally {
      await tracing.shutdown();
      await receiver.close();
    }
  });
});
