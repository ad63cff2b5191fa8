import { HUMAN_HANDOFF_OFFER } from '../../src/chat/escalation';
import { OFFLINE_NOTICE } from '../../src/models/extractive-chat-model';
import { startTestService, type TestService } from '../support/test-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

describe('POST /api/v1/chat on the embedded default (offline model)', () => {
  it('starts a session when none is given and answers from the help center with sources', async () => {
    const { status, body } = await service.postChat({ message: 'Can I pay with Klarna?' });
    expect(status).toBe(200);
    expect(body.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.message_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.response.startsWith(OFFLINE_NOTICE)).toBe(true);
    expect(body.response).toMatch(/Klarna/);
    expect(body.sources[0]).toEqual({ title: expect.any(String), source: 'knowledge/help-center/payments.md', score: expect.any(Number) });
    expect(new Set(body.sources.map((s: { source: string }) => s.source)).size).toBe(body.sources.length);
    expect(body.confidence).toBe(body.sources[0].score);
    expect(body.escalated).toBe(false);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.history).toEqual({ messages: 0, tokens: 0 });
  });

  it('continues a client-chosen session and sends the model the earlier turns', async () => {
    const first = await service.postChat({ message: 'How do I reset my password?', session_id: 'session-123', user_id: 'lukas@example.com' });
    expect(first.status).toBe(200);
    expect(first.body.session_id).toBe('session-123');
    const second = await service.postChat({ message: 'And how long is the reset link valid?', session_id: 'session-123' });
    expect(second.status).toBe(200);
    expect(second.body.history.messages).toBe(2);
    expect(second.body.history.tokens).toBeGreaterThan(0);
  });

  it('marks a low-confidence answer as escalated and offers a human', async () => {
    const { body } = await service.postChat({ message: 'Who won the football world cup?' });
    expect(body.confidence).toBeLessThan(service.config.retrieval.escalationThreshold);
    expect(body.escalated).toBe(true);
    expect(body.response).toContain(HUMAN_HANDOFF_OFFER);
    const session = await service.deps.store.getSession(body.session_id);
    expect(session!.escalated).toBe(true);
  });
});

describe('GET /api/v1/chat/history/:session_id', () => {
  const sessionId = 'history-check';

  beforeAll(async () => {
    for (const message of ['What does express shipping cost?', 'Do you ship to Norway?', 'Can I change my address?']) {
      const { status } = await service.postChat({ message, session_id: sessionId });
      expect(status).toBe(200);
    }
  });

  it('returns every turn in order with the assistant’s confidence, escalation and sources', async () => {
    const { status, body } = await service.getHistory(sessionId);
    expect(status).toBe(200);
    expect(body.session_id).toBe(sessionId);
    expect(body.count).toBe(6);
    expect(body.total).toBe(6);
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(body.messages.map((m: { seq: number }) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(body.messages[0]).toEqual({
      id: expect.any(String),
      seq: 1,
      role: 'user',
      content: 'What does express shipping cost?',
      author: { type: 'customer' },
      token_count: expect.any(Number),
      timestamp: expect.any(String),
    });
    expect(body.messages[1]).toMatchObject({ confidence: expect.any(Number), escalated: expect.any(Boolean), sources: expect.any(Array), author: { type: 'bot' } });
    expect(Number.isNaN(Date.parse(body.messages[0].timestamp))).toBe(false);
  });

  it('returns the newest `limit` messages, oldest first', async () => {
    const { body } = await service.getHistory(sessionId, '?limit=3');
    expect(body.messages.map((m: { seq: number }) => m.seq)).toEqual([4, 5, 6]);
    expect(body.count).toBe(3);
  });

  it('links the chat answer’s message_id to the stored assistant message', async () => {
    const { body: answer } = await service.postChat({ message: 'Thanks!', session_id: 'link-check' });
    const { body } = await service.getHistory('link-check');
    expect(body.messages[1].id).toBe(answer.message_id);
  });

  it('requires the agent key', async () => {
    const missing = await service.getHistory(sessionId, '', null);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    const wrong = await service.getHistory(sessionId, '', 'not-the-key');
    expect(wrong.status).toBe(401);
  });

  it('answers 404 for an unknown session and 400 for a malformed id or limit', async () => {
    expect((await service.getHistory('never-seen')).status).toBe(404);
    expect((await service.getHistory('never-seen')).body.error.code).toBe('not_found');
    expect((await service.getHistory('has space')).status).toBe(400);
    for (const limit of ['0', '-1', 'abc', '1.5', '100000']) {
      const { status, body } = await service.getHistory(sessionId, `?limit=${limit}`);
      expect({ limit, status, code: body.error?.code }).toEqual({ limit, status: 400, code: 'invalid_request' });
    }
  });
});

describe('bad input gets a 4xx JSON error and stores nothing', () => {
  const cases: Array<{ name: string; body: unknown; headers?: Record<string, string>; status: number; code: string; mentions?: RegExp }> = [
    { name: 'malformed JSON', body: '{"message": "hi"', status: 400, code: 'invalid_json' },
    { name: 'missing message', body: { session_id: 'bad-input' }, status: 400, code: 'invalid_request', mentions: /message is required/ },
    { name: 'empty message', body: { message: '' }, status: 400, code: 'invalid_request', mentions: /must not be empty/ },
    { name: 'whitespace-only message', body: { message: ' \n\t ' }, status: 400, code: 'invalid_request', mentions: /must not be empty/ },
    { name: 'number as message', body: { message: 42 }, status: 400, code: 'invalid_request', mentions: /must be a string/ },
    { name: 'null message', body: { message: null }, status: 400, code: 'invalid_request' },
    { name: 'array as message', body: { message: ['hi'] }, status: 400, code: 'invalid_request' },
    { name: 'message over the limit', body: { message: 'x'.repeat(4001) }, status: 400, code: 'invalid_request', mentions: /at most 4000/ },
    { name: 'body over 100 kb', body: { message: 'x'.repeat(200_000) }, status: 413, code: 'payload_too_large' },
    { name: 'session id with a slash', body: { message: 'hi', session_id: '../etc/passwd' }, status: 400, code: 'invalid_request', mentions: /session_id/ },
    { name: 'session id with a space', body: { message: 'hi', session_id: 'a b' }, status: 400, code: 'invalid_request' },
    { name: 'empty session id', body: { message: 'hi', session_id: '' }, status: 400, code: 'invalid_request' },
    { name: 'session id over 128 characters', body: { message: 'hi', session_id: 's'.repeat(129) }, status: 400, code: 'invalid_request' },
    { name: 'numeric session id', body: { message: 'hi', session_id: 123 }, status: 400, code: 'invalid_request' },
    { name: 'user id with a control character', body: { message: 'hi', user_id: 'a\u0000b' }, status: 400, code: 'invalid_request', mentions: /user_id/ },
    { name: 'unknown field', body: { message: 'hi', mood: 'happy' }, status: 400, code: 'invalid_request', mentions: /unknown field\(s\): mood/ },
    { name: 'JSON array body', body: '[{"message":"hi"}]', status: 400, code: 'invalid_request', mentions: /JSON object/ },
    { name: 'JSON string body', body: '"hi"', status: 400, code: 'invalid_json' },
    { name: 'text/plain body', body: 'message=hi', headers: { 'content-type': 'text/plain' }, status: 415, code: 'unsupported_media_type' },
  ];

  it.each(cases)('$name → $status $code', async ({ body, headers, status, code, mentions }) => {
    const before = [await service.countRows('chat_messages'), await service.countRows('chat_sessions')];
    const response = await service.postChat(body, headers);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: { code, message: expect.any(String) } });
    if (mentions) expect(response.body.error.message).toMatch(mentions);
    expect([await service.countRows('chat_messages'), await service.countRows('chat_sessions')]).toEqual(before);
  });

  it('answers unknown routes with the same JSON error shape', async () => {
    const response = await fetch(`${service.baseURL}/api/v1/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'No route for GET /api/v1/nope' } });
  });
});

describe('GET /health', () => {
  it('reports the database and the models in use', async () => {
    const response = await fetch(`${service.baseURL}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      database: 'ok',
      storage: 'pglite',
      model: 'offline-extractive',
      embedding_model: 'offline-hashing-v1',
      knowledge_sync: { status: 'ok' },
    });
  });
});

describe('tools and compaction on the embedded default (offline model)', () => {
  it('looks an order number up with lookup_order, and the orders agent compacts old lookups', async () => {
    const sessionId = 'offline-orders';
    // Each with the delivery postcode on it: the conversation is anonymous.
    const orders: Array<[string, string]> = [
      ['ZX-31586', 'VLT 1010'],
      ['ZX-17496', '5003'],
      ['ZX-59197', 'T12 RX38'],
      ['ZX-19608', 'N1 9GU'],
      ['ZX-20918', '80-831'],
    ];
    let body: any;
    for (const [orderId, postcode] of orders) {
      const response = await service.postChat({ message: `Where is my order ${orderId}? Postcode ${postcode}`, session_id: sessionId, agent_type: 'orders' });
      expect(response.status).toBe(200);
      body = response.body;
      expect(body.response.startsWith(OFFLINE_NOTICE)).toBe(true);
      expect(body.response).toContain(`Order ${orderId} is`);
    }
    // The orders agent compacts once more than 3 user turns came before, keeping the last 2:
    // the 5th question sees 4 earlier turns, so the 2 oldest lookups are placeholders.
    expect(body.memory).toMatchObject({ strategy: 'compact', source: 'agent', compacted_items: 2, triggered_by: 'compact_trigger_turns' });
    expect(body.memory.tokens_after).toBeLessThan(body.memory.tokens_before);

    const history = await service.getHistory(sessionId, '?limit=100');
    expect(history.body.messages.map((m: { role: string }) => m.role)).toEqual(
      orders.flatMap(() => ['user', 'assistant', 'tool', 'assistant']),
    );
    expect(history.body.messages[2]).toMatchObject({ role: 'tool', name: 'lookup_order' });
    expect(JSON.parse(history.body.messages[2].content).order_id).toBe('ZX-31586');
  });

  it('does not call a tool when the question has no order number', async () => {
    const { body } = await service.postChat({ message: 'How long does standard shipping take?', session_id: 'offline-no-tool' });
    const history = await service.getHistory(body.session_id);
    expect(history.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  });
});
