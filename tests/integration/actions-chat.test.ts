import fs from 'node:fs/promises';
import { ChatOpenAI } from '@langchain/openai';
import type { StructuredTool } from '@langchain/core/tools';
import { compileSupportGraph } from '../../src/agent/graph';
import { SIGN_IN_HINT } from '../../src/agent/tools/conversation-customer';
import { ChatService } from '../../src/chat/chat-service';
import { HUMAN_HANDOFF_OFFER } from '../../src/chat/escalation';
import { loadConfig } from '../../src/config';
import { loadActionTools } from '../../src/connectors/actions';
import { actionSchema } from '../../src/connectors/connector-config';
import { cutMarker } from '../../src/connectors/guarded-tool';
import { connectMcpServers, type McpToolSource } from '../../src/connectors/mcp-servers';
import { NetworkGuard } from '../../src/connectors/network-guard';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL } from '../../src/knowledge/embeddings';
import { createRetriever } from '../../src/knowledge/retriever';
import { ExtractiveSummarizer } from '../../src/memory/summarizer';
import { TokenCounter } from '../../src/memory/tokens';
import { NO_TRACING } from '../../src/observability/langfuse';
import { createLogger } from '../../src/observability/logger';
import { Metrics } from '../../src/observability/metrics';
import { Redactor } from '../../src/privacy/redaction';
import { IdentityStore } from '../../src/store/identity-store';
import type { SqlDatabase } from '../../src/store/database';
import type { SqlStore } from '../../src/store/sql-store';
import { openTestStore } from '../support/database';
import { mcpServerSchema } from '../../src/connectors/connector-config';
import { startMcpHttpServer, type McpHttpTestServer } from '../support/mcp-http-server';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { makeTempDir } from '../support/test-service';

/**
 * A shop that is not the sample one (Bramble Books), its orders API on loopback
 * described by its own OpenAPI document, answered by the real ChatOpenAI client
 * against the loopback model stub, through the real graph and chat service, with
 * the turns stored in PGlite.
 */
const ADA = 'ada@books.example';
const GRACE = 'grace@books.example';
const TOKEN = 'bramble-api-token';
const MODEL = 'gpt-4o-mini';
const INSTRUCTIONS = 'You are the support agent of Bramble Books. Use the tools to answer questions about orders.';

let api: OrdersApi;
let stub: OpenAIStub;
let mcp: McpHttpTestServer;
let mcpSource: McpToolSource;
let db: SqlDatabase;
let store: SqlStore;
let chat: ChatService;
let dir: string;

beforeAll(async () => {
  [api, stub, mcp, { db, store }] = await Promise.all([startOrdersApi(), startOpenAIStub(), startMcpHttpServer(), openTestStore()]);
  dir = await makeTempDir('actions-chat-');
  const openapi = await api.writeOpenApi(dir);
  const tokenCounter = new TokenCounter(MODEL);
  const ctx = {
    shopFileDir: dir,
    env: { BRAMBLE_API_TOKEN: TOKEN },
    guard: new NetworkGuard(),
    redactor: new Redactor(['card']),
    tokenCounter,
    logger: createLogger('silent'),
    tracing: NO_TRACING,
  };
  const common = { openapi, allow_private_network: true, headers: { Authorization: 'Bearer ${BRAMBLE_API_TOKEN}' } };
  const actionTools = await loadActionTools(
    [
      actionSchema.parse({ ...common, operations: ['listMyOrders'], bind: { customerId: 'customer.id' } }),
      actionSchema.parse({ ...common, operations: ['exportOrders', 'slowReport', 'deliveryEstimate'], timeout_ms: 800, max_result_tokens: 200 }),
    ],
    ctx,
  );
  mcpSource = await connectMcpServers([mcpServerSchema.parse({ name: 'shipping', url: mcp.url, tools: ['shippingQuote'], allow_private_network: true })], ctx);
  // The agent's tools, read per run: the actions and whatever the MCP servers offer now.
  const tools = () => [...actionTools, ...mcpSource.tools()] as StructuredTool[];

  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  const embedder = { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL };
  const graph = compileSupportGraph({
    retriever: createRetriever(store, embedder, { topK: 2, minSimilarity: -1 }),
    queryRewrite: 'off',
    historyWeights: config.retrieval.history,
    chatModel: new ChatOpenAI({ model: MODEL, apiKey: 'sk-test', configuration: { baseURL: stub.baseURL }, maxRetries: 0, timeout: 5000 }),
    modelName: MODEL,
    tools,
    instructions: INSTRUCTIONS,
    escalationThreshold: 0,
    timeoutMs: 10_000,
    toolOutputMaxChars: 100_000,
    countTokens: (m) => tokenCounter.countMessage(m),
    summarizer: new ExtractiveSummarizer(tokenCounter),
    store,
    windowLimits: { maxMessages: config.history.maxMessages, maxTokens: config.history.maxTokens },
    inputMaxTokens: config.modelInputMaxTokens,
    logger,
  });
  const spec = { key: 'support', description: 'Bramble Books support', instructions: INSTRUCTIONS, tools: [] };
  chat = new ChatService({
    store,
    identity: new IdentityStore(db),
    agents: new Map([['support', { spec, graph, escalation: { threshold: 0 } }]]),
    defaultAgentType: 'support',
    tokenCounter,
    history: config.history,
    inputMaxTokens: config.modelInputMaxTokens,
    metrics: new Metrics(),
    tracing: NO_TRACING,
    logger,
  });
});
afterAll(async () => {
  await mcpSource.close();
  await Promise.all([api.close(), stub.close(), mcp.close(), db.close()]);
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  stub.reset();
  api.requests.length = 0;
});

/** The tool results the model was sent in the last chat request. */
function toolResultsSent(): string[] {
  const last = stub.chatRequests().at(-1)!;
  return (last.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
}

describe('a shop’s action called by the model', () => {
  it('reaches the API once with the environment’s header and the verified customer’s id, and the result is stored in the history', async () => {
    stub.enqueueChat({ toolCalls: [{ id: 'call_1', name: 'listMyOrders', arguments: { customerId: GRACE } }] }, { content: 'Your order BK-1001 has shipped.' });
    const { answer } = await chat.answer({ message: 'Where is my order?', customerId: ADA });
    expect(answer.response).toBe('Your order BK-1001 has shipped.');
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.path).toBe(`/customers/${encodeURIComponent(ADA)}/orders`);
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(toolResultsSent()).toEqual([JSON.stringify({ orders: [{ orderId: 'BK-1001', customerId: ADA, status: 'shipped', total: '42.00' }] })]);

    const stored = await db.query<{ role: string; name: string | null; content: string; tool_calls: unknown }>(
      `select role, name, content, tool_calls from chat_messages where session_id = $1 order by seq`,
      [answer.session_id],
    );
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stored[1]!.tool_calls).toEqual([expect.objectContaining({ name: 'listMyOrders' })]);
    expect(stored[2]).toMatchObject({ name: 'listMyOrders', content: toolResultsSent()[0] });
  });

  it('offers the model only the allowlisted operations, and the MCP server’s listed tool', async () => {
    stub.enqueueChat({ content: 'Hello.' });
    await chat.answer({ message: 'What can you look up for me?' });
    const offered = (stub.chatRequests()[0]!.body.tools as Array<{ function: { name: string; parameters: { properties: object } } }>).map((t) => t.function);
    expect(offered.map((f) => f.name)).toEqual(['listMyOrders', 'exportOrders', 'slowReport', 'deliveryEstimate', 'shippingQuote']);
    // cancelOrder, getOrder and paymentMethod are in the document but not in the allowlist; the bound customerId is not an argument.
    expect(Object.keys(offered[0]!.parameters.properties)).toEqual(['status']);
    expect(JSON.stringify(stub.chatRequests()[0]!.body.messages)).toContain('Bramble Books');
  });

  it('answers an anonymous conversation’s bound action with the sign-in sentence and calls nothing', async () => {
    stub.enqueueChat({ toolCalls: [{ id: 'call_2', name: 'listMyOrders', arguments: { customerId: ADA } }] }, { content: 'Please sign in.' });
    const { answer } = await chat.answer({ message: 'Where is my order?' });
    expect(answer.response).toBe('Please sign in.');
    expect(api.requests).toHaveLength(0);
    expect(toolResultsSent()).toEqual([expect.stringContaining(SIGN_IN_HINT)]);
  });

  it('shows the model a 1 MB answer cut to max_result_tokens with the marker', async () => {
    stub.enqueueChat({ toolCalls: [{ id: 'call_3', name: 'exportOrders', arguments: {} }] }, { content: 'There are many orders.' });
    await chat.answer({ message: 'All orders please', customerId: ADA });
    const [result] = toolResultsSent();
    expect(result!.endsWith(cutMarker(200))).toBe(true);
    expect(new TokenCounter(MODEL).countText(result!)).toBeLessThanOrEqual(200);
  });

  it('gives the sentence after timeout_ms when the API sleeps, and the answer completes, handed to a person as tool_failed', async () => {
    stub.enqueueChat({ toolCalls: [{ id: 'call_4', name: 'slowReport', arguments: {} }] }, { content: 'The report is not available right now.' });
    const startedAt = Date.now();
    const { answer } = await chat.answer({ message: 'The report?', customerId: ADA });
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(answer).toMatchObject({ escalated: true, escalation_reason: 'tool_failed' });
    expect(answer.response).toBe(`The report is not available right now.\n\n${HUMAN_HANDOFF_OFFER}`);
    expect(toolResultsSent()).toEqual([expect.stringMatching(/^slowReport did not answer within 800 ms/)]);
  });

  it('retries a 503 once, then gives the sentence', async () => {
    stub.enqueueChat({ toolCalls: [{ id: 'call_5', name: 'deliveryEstimate', arguments: {} }] }, { content: 'No estimate right now.' });
    const { answer } = await chat.answer({ message: 'When will it come?', customerId: ADA });
    expect(api.requests.map((r) => r.path)).toEqual(['/flaky', '/flaky']);
    expect(answer).toMatchObject({ escalated: true, escalation_reason: 'tool_failed' });
    expect(toolResultsSent()).toEqual([expect.stringMatching(/^deliveryEstimate failed: the shop's system answered HTTP 503/)]);
  });

  it('calls an MCP server’s tool as a tool of the graph', async () => {
    stub.enqueueChat({ toolCalls: [{ id: 'call_6', name: 'shippingQuote', arguments: { postcode: '10115' } }] }, { content: 'Delivery costs 4.90.' });
    const { answer } = await chat.answer({ message: 'Shipping to 10115?' });
    expect(answer).toMatchObject({ response: 'Delivery costs 4.90.', escalated: false, escalation_reason: null });
    expect(toolResultsSent()).toEqual([JSON.stringify({ postcode: '10115', price: '4.90', days: 2 })]);
  });
});
