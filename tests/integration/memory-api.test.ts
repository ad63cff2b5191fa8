import { MAX_TOOL_ROUNDS } from '../../src/agent/nodes/generate-response';
import { SUMMARY_ACKNOWLEDGEMENT, SUMMARY_INTRO } from '../../src/memory/strategies';
import { startOpenAIStub, type OpenAIStub, type RecordedRequest } from '../support/openai-stub';
import { customerTokenHeader, makeTempDir, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

/**
 * Memory strategies end to end: the real service over HTTP, the real ChatOpenAI
 * client against the loopback OpenAI-compatible server, whose recorded requests
 * show exactly what the model was sent.
 */
const SUMMARY_MODEL = 'stub-summary-model';
// ZX-14440 (5th) is the one whose lookup is longer than TOOL_OUTPUT_MAX_CHARS.
const LONG_ORDERS = ['ZX-31586', 'ZX-17496', 'ZX-59197', 'ZX-19608', 'ZX-14440', 'ZX-20918'];
/** The delivery postcode on each order: an anonymous conversation proves its orders with it. */
const POSTCODES: Record<string, string> = {
  'ZX-31586': 'VLT 1010',
  'ZX-17496': '5003',
  'ZX-59197': 'T12 RX38',
  'ZX-19608': 'N1 9GU',
  'ZX-14440': 'T12 RX38',
  'ZX-20918': '80-831',
  'ZX-43466': '40121',
};

let stub: OpenAIStub;
let service: TestService;
let dataDir: string;

const env = () => ({
  OPENAI_API_KEY: 'sk-test',
  OPENAI_BASE_URL: stub.baseURL,
  OPENAI_TIMEOUT_MS: '3000',
  OPENAI_MAX_RETRIES: '0',
  SUMMARY_MODEL,
  // The stub's vectors are pseudo-random: keep every nearest passage, escalate nothing.
  RETRIEVAL_MIN_SIMILARITY: '-1',
  ESCALATION_CONFIDENCE_THRESHOLD: '0',
});

beforeAll(async () => {
  stub = await startOpenAIStub();
  dataDir = await makeTempDir();
  service = await startTestService({ env: env(), dataDir });
});
afterAll(async () => {
  await service.close();
  await stub.close();
});

/** Forgets recorded requests (keeps the scripted replies). */
const forgetRequests = () => {
  stub.requests.length = 0;
};

interface SentMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}
const answerRequests = () => stub.chatRequests().filter((r) => r.body.model !== SUMMARY_MODEL);
const summaryRequests = () => stub.chatRequests().filter((r) => r.body.model === SUMMARY_MODEL);
/** The messages of an answer's request, without this turn's knowledge passages (the system message before the question). */
const sentMessages = (request = answerRequests().at(-1)!) =>
  (request.body.messages as SentMessage[]).filter((m, i) => !(i > 0 && m.role === 'system' && (m.content ?? '').startsWith('Knowledge passages')));

/** Every tool call the model is sent has its result right after it, and every result its call. */
function expectIntactToolPairs(messages: SentMessage[]): void {
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const results = messages.slice(i + 1, i + 1 + m.tool_calls.length);
      expect(results.map((r) => [r.role, r.tool_call_id])).toEqual(m.tool_calls.map((c) => ['tool', c.id]));
    }
    if (m.role === 'tool') {
      const call = messages.slice(0, i).reverse().find((c) => c.role === 'assistant' && c.tool_calls?.length);
      expect(call?.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id);
    }
  });
  expect(messages.find((m) => m.role !== 'system')?.role).toBe('user');
}

/** One customer turn where the model first looks the order up, then answers. */
async function orderTurn(sessionId: string, orderId: string, turn: number, memoryStrategy?: object) {
  stub.enqueueChat(
    { toolCalls: [{ id: `call_${turn}`, name: 'lookup_order', arguments: { order_id: orderId, postcode: POSTCODES[orderId] } }] },
    { content: `Order ${orderId} is on its way (answer ${turn}).` },
  );
  const response = await service.postChat({
    message: `Where is my order ${orderId}? Postcode ${POSTCODES[orderId]}`,
    session_id: sessionId,
    ...(memoryStrategy && { memory_strategy: memoryStrategy }),
  });
  expect(response.status).toBe(200);
  return response.body;
}

describe('compact: a long tool-heavy conversation through the HTTP API', () => {
  const sessionId = 'compact-http';
  const strategy = { mode: 'compact', compact_keep: 2, compact_trigger_turns: 2 };
  let last: any;
  /** The model requests of the 7th turn: the lookup call, then the answer after the result. */
  let seventhTurn: RecordedRequest[];

  beforeAll(async () => {
    stub.reset();
    for (const [i, orderId] of LONG_ORDERS.entries()) last = await orderTurn(sessionId, orderId, i + 1, strategy);
    forgetRequests();
    last = await orderTurn(sessionId, 'ZX-43466', 7, strategy);
    seventhTurn = answerRequests();
  });

  it('sends placeholders for the tool results of all but the last two turns, with names and call ids kept', () => {
    const messages = sentMessages(seventhTurn[0]);
    const toolResults = messages.filter((m) => m.role === 'tool');
    expect(toolResults.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2', 'call_3', 'call_4', 'call_5', 'call_6']);
    for (const [i, result] of toolResults.slice(0, 4).entries()) {
      expect(result.content).toBe(`⟦removed: tool output for lookup_order (call_id=call_${i + 1}); reason=context_compaction⟧`);
    }
    for (const result of toolResults.slice(4)) expect(result.content).toContain('"tracking_events"');
    expectIntactToolPairs(messages);
  });

  it('keeps the tool calls themselves, and this turn’s own lookup whole', () => {
    const followUp = sentMessages(seventhTurn[1]);
    const calls = followUp.filter((m) => m.tool_calls?.length).flatMap((m) => m.tool_calls!);
    expect(calls.map((c) => c.id)).toEqual(['call_1', 'call_2', 'call_3', 'call_4', 'call_5', 'call_6', 'call_7']);
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ order_id: 'ZX-31586', postcode: 'VLT 1010' });
    expect(followUp.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_7' });
    expect(followUp.at(-1)!.content).toContain('"order_id": "ZX-43466"');
    expectIntactToolPairs(followUp);
  });

  it('reports what it saved', () => {
    expect(last.memory).toMatchObject({ strategy: 'compact', compacted_items: 4, summarized: false, trimmed_turns: 0, source: 'request' });
    expect(last.memory.triggered_by).toBe('compact_trigger_turns');
    expect(last.memory.tokens_after).toBeLessThan(last.memory.tokens_before * 0.6);
  });

  it('caps a long tool result in the model’s context but stores it whole', async () => {
    const first = sentMessages(seventhTurn[0]).filter((m) => m.role === 'tool');
    const history = await service.getHistory(sessionId, '?limit=500');
    const stored = history.body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_5');
    const sent = first[4]!.content!;
    expect(stored.content.length).toBeGreaterThan(service.config.toolOutputMaxChars);
    expect(JSON.parse(stored.content).order_id).toBe('ZX-14440');
    expect(sent).toContain(`[truncated: showing the first ${service.config.toolOutputMaxChars} of ${stored.content.length} characters]`);
  });

  it('still returns every original message, tool payloads in full, from the history endpoint', async () => {
    const history = await service.getHistory(sessionId, '?limit=500');
    expect(history.body.total).toBe(7 * 4);
    expect(history.body.messages.map((m: any) => m.role).slice(0, 4)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const toolMessages = history.body.messages.filter((m: any) => m.role === 'tool');
    expect(toolMessages).toHaveLength(7);
    for (const m of toolMessages) {
      expect(m.content).not.toContain('⟦removed');
      expect(m.name).toBe('lookup_order');
      expect(JSON.parse(m.content).tracking_events.length).toBeGreaterThan(0);
    }
    expect(history.body.messages[1].tool_calls).toEqual([{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'ZX-31586', postcode: 'VLT 1010' } }]);
  });

  it('counts the compacted items and the tokens before and after in /metrics', async () => {
    const metrics = await fetch(`${service.baseURL}/metrics`).then((r) => r.text());
    const compacted = Number(/memory_compaction_items_total\{tool="lookup_order"\} (\d+)/.exec(metrics)?.[1]);
    expect(compacted).toBeGreaterThanOrEqual(4 + 3 + 2 + 1);
    expect(metrics).toMatch(/memory_tokens_before_after_count\{stage="before",strategy="compact"\} 7/);
    expect(metrics).toMatch(/memory_tokens_before_after_count\{stage="after",strategy="compact"\} 7/);
  });
});

describe('summarize: a rolling summary made once, extended, and kept across a restart', () => {
  const sessionId = 'summarize-http';
  const strategy = { mode: 'summarize', context_limit: 4, keep_last_n_turns: 2 };
  const questions = [
    'Hi, my name is Lukas Brandt and my order number is ZX-14440.',
    'Please call me after 6pm if anything changes.',
    'Ship any replacement to my office in Cork.',
    'Does the air fryer have a warranty?',
    'How do I clean the basket?',
  ];

  beforeAll(() => {
    stub.reset();
    let summariesWritten = 0;
    stub.setDefaultChat((body) =>
      body.model === SUMMARY_MODEL
        ? { content: `- Customer: Lukas Brandt, order ZX-14440, call after 6pm (summary ${++summariesWritten}).` }
        : { content: 'Here is what I found.' },
    );
  });

  it('summarizes the older turns when the trigger fires and sends the summary as a user/assistant pair before the verbatim tail', async () => {
    let body: any;
    for (const message of questions) {
      const response = await service.postChat({ message, session_id: sessionId, memory_strategy: strategy });
      expect(response.status).toBe(200);
      body = response.body;
    }
    // Turn 5 sees 4 earlier user turns: context_limit fires, the first 2 turns are folded.
    expect(summaryRequests()).toHaveLength(1);
    const summarizerPrompt = JSON.stringify(summaryRequests()[0]!.body.messages);
    expect(summarizerPrompt).toContain('my order number is ZX-14440');
    expect(summarizerPrompt).not.toContain('Ship any replacement');

    const sent = sentMessages();
    expect(sent[1]).toEqual({ role: 'user', content: `${SUMMARY_INTRO}\n- Customer: Lukas Brandt, order ZX-14440, call after 6pm (summary 1).` });
    expect(sent[2]).toEqual({ role: 'assistant', content: SUMMARY_ACKNOWLEDGEMENT });
    expect(sent.slice(3).map((m) => m.content)).toEqual([questions[2], 'Here is what I found.', questions[3], 'Here is what I found.', questions[4]]);
    expect(body.memory).toMatchObject({ strategy: 'summarize', summarized: true, triggered_by: 'context_limit' });

    const session = await service.deps.store.getSession(sessionId);
    expect(session!.summarizedThroughSeq).toBe(4);
    expect(session!.summary).toContain('(summary 1)');
  });

  it('reuses the stored summary without summarizing again until the trigger fires anew', async () => {
    forgetRequests();
    const response = await service.postChat({ message: 'Is the basket dishwasher safe?', session_id: sessionId, memory_strategy: strategy });
    expect(response.body.memory.summarized).toBe(false);
    expect(summaryRequests()).toHaveLength(0);
    expect(sentMessages()[1]!.content).toContain('(summary 1)');
  });

  it('continues from the stored summary after a restart, and extends it incrementally', async () => {
    const token = service.sessionToken(sessionId)!;
    await service.close();
    service = await startTestService({ env: env(), dataDir });
    forgetRequests();

    const afterRestart = await service.postChat(
      { message: 'When will the replacement ship?', session_id: sessionId, memory_strategy: strategy },
      { 'x-session-token': token },
    );
    expect(afterRestart.status).toBe(200);
    // 4 user turns after the summary again: the summary is extended with the previous one merged in.
    expect(summaryRequests()).toHaveLength(1);
    const summarizerPrompt = JSON.stringify(summaryRequests()[0]!.body.messages);
    expect(summarizerPrompt).toContain('(summary 1)');
    expect(summarizerPrompt).toContain('Ship any replacement');
    expect(summarizerPrompt).not.toContain('my order number is ZX-14440');
    expect(sentMessages()[1]!.content).toContain('(summary 2)');
    const session = await service.deps.store.getSession(sessionId);
    expect(session!.summarizedThroughSeq).toBe(8);
  });

  it('falls back to trimming when the summarizer fails, and never sends or stores error text', async () => {
    const failing = 'summarize-failing';
    forgetRequests();
    stub.setDefaultChat((body) => (body.model === SUMMARY_MODEL ? { status: 500, error: 'summarizer exploded' } : { content: 'Fine.' }));
    let body: any;
    for (const message of questions) {
      const response = await service.postChat({ message, session_id: failing, memory_strategy: strategy });
      expect(response.status).toBe(200);
      body = response.body;
    }
    expect(summaryRequests().length).toBeGreaterThan(0);
    expect(body.memory).toMatchObject({ summarized: false, trimmed_turns: 2 });
    const sent = sentMessages();
    expect(sent.slice(1).map((m) => m.content)).toEqual([questions[2], 'Fine.', questions[3], 'Fine.', questions[4]]);
    expect(JSON.stringify(sent)).not.toContain('exploded');
    const history = await service.getHistory(failing, '?limit=500');
    expect(JSON.stringify(history.body)).not.toContain('exploded');
    expect((await service.deps.store.getSession(failing))!.summary).toBeNull();
  });
});

describe('cross-session memory', () => {
  it('injects a verified customer’s earlier summary into the system prompt of their new session, marked as possibly out of date', async () => {
    const asIngrid = await customerTokenHeader('ingrid.holm@example.com');
    stub.reset();
    stub.setDefaultChat((body) =>
      body.model === SUMMARY_MODEL ? { content: '- Customer prefers WhatsApp; office in Ljubljana.' } : { content: 'Noted.' },
    );
    const strategy = { mode: 'summarize', context_limit: 2, keep_last_n_turns: 1 };
    for (const message of ['I prefer WhatsApp.', 'My office is in Ljubljana.', 'I work on weekdays only.']) {
      const r = await service.postChat({ message, session_id: 'xs-old', memory_strategy: strategy, memory_injection: true }, asIngrid);
      expect(r.status).toBe(200);
    }
    expect(await service.countRows('conversation_summaries')).toBeGreaterThanOrEqual(1);

    const fresh = await service.postChat({ message: 'What do you know about me?', session_id: 'xs-new', memory_injection: true }, asIngrid);
    expect(fresh.status).toBe(200);
    const system = sentMessages()[0]!.content!;
    expect(system).toContain('Cross-session memory:');
    expect(system).toContain('may be out of date');
    expect(system).toContain('office in Ljubljana');

    const without = await service.postChat({ message: 'What do you know about me?', session_id: 'xs-other' }, asIngrid);
    expect(without.status).toBe(200);
    expect(sentMessages()[0]!.content).not.toContain('Cross-session memory:');
  });
});

describe('configuration: request > conversation > agent > window default', () => {
  const sessionId = 'precedence';

  beforeAll(async () => {
    stub.reset();
    expect((await service.postChat({ message: 'Hello', session_id: sessionId })).status).toBe(200);
  });
  beforeEach(forgetRequests);

  it('uses the window default for the support agent when nothing is set', async () => {
    const { body } = await service.postChat({ message: 'Hi again', session_id: sessionId });
    expect(body.memory).toMatchObject({ strategy: 'window', source: 'agent' });
    expect(body.agent_type).toBe('support');
  });

  it('takes the agent’s default strategy from its spec', async () => {
    const { body } = await service.postChat({ message: 'Where is my parcel?', agent_type: 'orders' });
    expect(body.memory).toMatchObject({ strategy: 'compact', source: 'agent' });
    expect(body.memory.settings).toMatchObject({ compact_keep: 2, compact_trigger_turns: 3 });
    // The console's view of that session says the same, with the options as the spec sets them.
    const view = await service.request('GET', `/api/v1/conversations/${body.session_id}/memory`);
    expect(view.body).toMatchObject({
      memory_strategy: null,
      effective: { memory_strategy: { mode: 'compact', compact_keep: 2, compact_trigger_turns: 3 }, source: 'agent', memory_injection: false },
    });
  });

  it('stores a conversation’s strategy with PATCH (agent key only) and applies it to later messages', async () => {
    const path = `/api/v1/conversations/${sessionId}/memory`;
    expect((await service.request('PATCH', path, { mode: 'trim', max_turns: 4 }, null)).status).toBe(401);
    expect((await service.request('PATCH', path, { mode: 'trim', max_turns: 4 }, 'wrong-key')).status).toBe(401);
    expect((await service.request('PATCH', '/api/v1/conversations/nobody/memory', { mode: 'trim' })).status).toBe(404);

    const patched = await service.request('PATCH', path, { mode: 'trim', max_turns: 4, keep_last_n_turns: 2, memory_injection: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ memory_strategy: { mode: 'trim', max_turns: 4, keep_last_n_turns: 2 }, memory_injection: false });
    expect((await service.request('GET', path)).body.memory_strategy).toEqual({ mode: 'trim', max_turns: 4, keep_last_n_turns: 2 });
    expect(patched.body.effective).toEqual({
      memory_strategy: { mode: 'trim', max_turns: 4, keep_last_n_turns: 2 },
      source: 'conversation',
      memory_injection: false,
    });

    const { body } = await service.postChat({ message: 'And now?', session_id: sessionId });
    expect(body.memory).toMatchObject({ strategy: 'trim', source: 'conversation' });
    expect(body.memory.settings.max_turns).toBe(4);
  });

  it('lets a request override the conversation’s setting for that message only', async () => {
    // `none` is for server-to-server callers (the agent key); the widget may not ask for it.
    const { body } = await service.postChat(
      { message: 'Everything please', session_id: sessionId, memory_strategy: { mode: 'none' } },
      { authorization: `Bearer ${TEST_AGENT_KEY}` },
    );
    expect(body.memory).toMatchObject({ strategy: 'none', source: 'request' });
    const next = await service.postChat({ message: 'Back to normal', session_id: sessionId });
    expect(next.body.memory).toMatchObject({ strategy: 'trim', source: 'conversation' });
  });

  it('clears the conversation’s setting with DELETE', async () => {
    const path = `/api/v1/conversations/${sessionId}/memory`;
    expect((await service.request('DELETE', path)).status).toBe(204);
    // What the next message gets now: the support agent's default.
    expect((await service.request('GET', path)).body).toMatchObject({
      memory_strategy: null,
      effective: { memory_strategy: { mode: 'window' }, source: 'agent', memory_injection: false },
    });
    const { body } = await service.postChat({ message: 'Default again?', session_id: sessionId });
    expect(body.memory).toMatchObject({ strategy: 'window', source: 'agent' });
  });

  it.each([
    [{ memory_strategy: { mode: 'forgetful' } }, 'memory_strategy.mode must be one of'],
    [{ memory_strategy: { mode: 'compact', compact_kep: 2 } }, 'unknown field(s) in memory_strategy: compact_kep'],
    [{ memory_strategy: { mode: 'compact', compact_keep: -1 } }, 'memory_strategy.compact_keep must be at least 0'],
    [{ memory_strategy: { mode: 'compact', token_remaining_pct: 20 } }, 'memory_strategy.token_remaining_pct must be below 1'],
    [{ memory_strategy: { mode: 'trim', max_turns: 2, keep_last_n_turns: 5 } }, 'keep_last_n_turns must not be larger than max_turns'],
    [{ memory_strategy: 'compact' }, 'memory_strategy'],
    [{ memory_injection: 'yes' }, 'memory_injection must be true or false'],
    [{ agent_type: 'sales' }, 'agent_type must be one of: support, orders'],
  ])('refuses %j with a 400 naming the field, storing nothing', async (extra, message) => {
    const before = await service.countRows('chat_messages');
    const { status, body } = await service.postChat({ message: 'Hello', session_id: 'bad-memory', ...extra });
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain(message);
    expect(await service.countRows('chat_messages')).toBe(before);
    expect(answerRequests()).toHaveLength(0);
  });

  it('refuses a bad conversation setting with a 400 and keeps the stored one', async () => {
    const path = `/api/v1/conversations/${sessionId}/memory`;
    await service.request('PATCH', path, { mode: 'compact' });
    const bad = await service.request('PATCH', path, { mode: 'compact', compact_keep: 'two' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('compact_keep must be a number');
    expect((await service.request('GET', path)).body.memory_strategy).toEqual({ mode: 'compact' });
  });
});

describe('the tool loop', () => {
  it('lets the model call tools for at most MAX_TOOL_ROUNDS rounds, then asks it to answer without tools', async () => {
    stub.reset();
    let call = 0;
    stub.setDefaultChat((body) =>
      body.tools ? { toolCalls: [{ id: `loop_${++call}`, name: 'lookup_order', arguments: { order_id: 'ZX-43466' } }] } : { content: 'Final answer.' },
    );
    const { status, body } = await service.postChat({ message: 'Keep looking', session_id: 'tool-loop' });
    expect(status).toBe(200);
    expect(body.response).toBe('Final answer.');
    const requests = answerRequests();
    expect(requests).toHaveLength(MAX_TOOL_ROUNDS + 1);
    expect(requests.slice(0, -1).every((r) => Array.isArray(r.body.tools))).toBe(true);
    expect(requests.at(-1)!.body.tools).toBeUndefined();
    const history = await service.getHistory('tool-loop');
    expect(history.body.messages.map((m: any) => m.role)).toEqual([
      'user',
      ...Array.from({ length: MAX_TOOL_ROUNDS }, () => ['assistant', 'tool']).flat(),
      'assistant',
    ]);
  });

  it('sums the token usage of every model call in the turn', async () => {
    stub.reset();
    stub.enqueueChat(
      { toolCalls: [{ id: 'u1', name: 'lookup_order', arguments: { order_id: 'ZX-43466' } }], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: 'It is in Bologna.', usage: { prompt_tokens: 700, completion_tokens: 20 } },
    );
    const { body } = await service.postChat({ message: 'Where is ZX-43466?', session_id: 'tool-usage' });
    expect(body.usage).toEqual({ prompt_tokens: 800, completion_tokens: 30, total_tokens: 830, cached_tokens: 0, by_purpose: { answer: { prompt_tokens: 800, completion_tokens: 30, total_tokens: 830, cached_tokens: 0, calls: 2 } } });
  });
});
