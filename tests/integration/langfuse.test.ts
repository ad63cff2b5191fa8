import { FEEDBACK_SCORE_NAME } from '../../src/http/routes/feedback';
import { startLangfuseReceiver, TRACES_PATH, type LangfuseReceiver, type ReceivedSpan } from '../support/langfuse-receiver';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { postStream } from '../support/sse';
import { customerTokenHeader, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

/**
 * The real Langfuse SDK (span processor, OTLP exporter, score client) pointed at
 * a receiver on loopback: what reaches "Langfuse" for each request, and that a
 * Langfuse which is slow, failing or down changes nothing for the customer.
 *
 * The services run one after the other: the SDK's tracer provider is one per process.
 */
const CHAT_MODEL = 'gpt-4o-mini';
const SUMMARY_MODEL = 'stub-summary-model';

let stub: OpenAIStub;
beforeAll(async () => {
  stub = await startOpenAIStub();
});
afterAll(async () => {
  await stub.close();
});
beforeEach(() => stub.reset());

function openaiEnv(): Record<string, string> {
  return {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: stub.baseURL,
    OPENAI_MODEL: CHAT_MODEL,
    SUMMARY_MODEL,
    OPENAI_TIMEOUT_MS: '5000',
    OPENAI_MAX_RETRIES: '0',
    RETRIEVAL_MIN_SIMILARITY: '-1',
    ESCALATION_CONFIDENCE_THRESHOLD: '0',
  };
}

function langfuseEnv(receiver: LangfuseReceiver, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LANGFUSE_PUBLIC_KEY: 'pk-lf-test',
    LANGFUSE_SECRET_KEY: 'sk-lf-test',
    LANGFUSE_BASE_URL: receiver.baseUrl,
    ...extra,
  };
}

/** The spans of one trace, and its root (the one without a parent). */
function traceOf(receiver: LangfuseReceiver, traceId: string) {
  const spans = receiver.spans.filter((s) => s.traceId === traceId);
  const roots = spans.filter((s) => s.parentSpanId === null);
  const byName = (name: string) => spans.filter((s) => s.name === name);
  const parentOf = (span: ReceivedSpan) => spans.find((s) => s.spanId === span.parentSpanId);
  return { spans, roots, byName, parentOf };
}

function usageOf(span: ReceivedSpan): Record<string, number> {
  return JSON.parse(String(span.attributes['langfuse.observation.usage_details']));
}

/** The trace id stored with an answer (what feedback finds), read from the database. */
async function storedTraceId(service: TestService, messageId: string): Promise<string> {
  const [row] = await service.db.query<{ trace_id: string | null }>(
    "select metadata->>'trace_id' as trace_id from chat_messages where id = $1",
    [messageId],
  );
  return row!.trace_id!;
}

describe('with Langfuse keys set (and LANGFUSE_CAPTURE_PERSONAL_DATA on)', () => {
  let receiver: LangfuseReceiver;
  let service: TestService;

  beforeAll(async () => {
    receiver = await startLangfuseReceiver();
    service = await startTestService({ env: { ...openaiEnv(), ...langfuseEnv(receiver, { LANGFUSE_CAPTURE_PERSONAL_DATA: 'true' }) } });
  });
  afterAll(async () => {
    await service.close();
    await receiver.close();
  });

  it('sends one trace per request: the session, the customer and the tags on every observation, the steps nested under one root', async () => {
    stub.enqueueChat({ content: 'Refunds take 5–7 business days.', usage: { prompt_tokens: 321, completion_tokens: 45 } });
    const first = await service.postChat({ message: 'How long does a refund take?', session_id: 'lf-session-1', user_id: 'lukas@example.com' });
    stub.enqueueChat({ content: 'Yes, Klarna is accepted.', usage: { prompt_tokens: 400, completion_tokens: 12 } });
    const second = await service.postChat({ message: 'Can I pay with Klarna?', session_id: 'lf-session-1' });
    expect([first.status, second.status]).toEqual([200, 200]);

    const traceIds = [await storedTraceId(service, first.body.message_id), await storedTraceId(service, second.body.message_id)];
    expect(traceIds[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIds[1]).not.toBe(traceIds[0]);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => traceIds.every((id) => traceOf(receiver, id).roots.length === 1));

    for (const traceId of traceIds) {
      const { spans, roots, byName, parentOf } = traceOf(receiver, traceId);
      expect(roots.map((r) => r.name)).toEqual(['chat']);
      const root = roots[0]!;
      // Every observation carries the session and the customer (the second request names no user: the session's is used).
      for (const span of spans) {
        expect(span.attributes['session.id']).toBe('lf-session-1');
        expect(span.attributes['user.id']).toBe('lukas@example.com');
        expect(span.attributes['langfuse.trace.tags']).toEqual(['agent_type:support', 'memory:window']);
      }
      for (const step of ['load_history', 'retrieve', 'apply_memory', 'generate_response', 'persist']) {
        expect(byName(step)).toHaveLength(1);
        expect(parentOf(byName(step)[0]!)?.name).toBe('chat');
      }
      expect(byName('retrieve')[0]!.attributes['langfuse.observation.type']).toBe('retriever');
      const memory = JSON.parse(String(byName('apply_memory')[0]!.attributes['langfuse.observation.output']));
      expect(memory.tokens_before).toBeGreaterThan(0);
      expect(memory.tokens_after).toBeGreaterThan(0);
      const generation = byName('model')[0]!;
      expect(parentOf(generation)?.name).toBe('generate_response');
      expect(generation.attributes['langfuse.observation.type']).toBe('generation');
      expect(generation.attributes['langfuse.observation.model.name']).toBe(CHAT_MODEL);
      expect(JSON.parse(String(root.attributes['langfuse.observation.input']))).toHaveProperty('message');
    }
    expect(usageOf(traceOf(receiver, traceIds[0]!).byName('model')[0]!)).toEqual({ input: 321, output: 45, total: 366 });
    expect(usageOf(traceOf(receiver, traceIds[1]!).byName('model')[0]!)).toEqual({ input: 400, output: 12, total: 412 });
    // The second turn loaded the first from the window.
    const loaded = JSON.parse(String(traceOf(receiver, traceIds[1]!).byName('load_history')[0]!.attributes['langfuse.observation.output']));
    expect(loaded.messages).toBe(2);
    // The SDK authenticates with the project's keys.
    const auth = receiver.requests.find((r) => r.path === TRACES_PATH)!.authorization;
    expect(auth).toBe(`Basic ${Buffer.from('pk-lf-test:sk-lf-test').toString('base64')}`);
  });

  it("records the answer's confidence and escalated as scores on its trace", async () => {
    const answer = await service.postChat({ message: 'Do you ship to Norway?', session_id: 'lf-scores' });
    expect(answer.status).toBe(200);
    const traceId = await storedTraceId(service, answer.body.message_id);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => receiver.scores.filter((s) => s.traceId === traceId).length >= 2);
    const scores = receiver.scores.filter((s) => s.traceId === traceId);
    expect(scores.find((s) => s.name === 'confidence')).toMatchObject({ value: answer.body.confidence, dataType: 'NUMERIC' });
    expect(scores.find((s) => s.name === 'escalated')).toMatchObject({ value: 0, dataType: 'BOOLEAN' });
  });

  it('gives a streamed answer its generation with the token usage of the stream', async () => {
    stub.enqueueChat({ content: 'Refunds are paid to the original payment method.', usage: { prompt_tokens: 250, completion_tokens: 9 } });
    const streamed = await postStream(`${service.baseURL}/api/v1/chat/stream`, { message: 'Where does my refund go?', session_id: 'lf-stream' });
    const done = streamed.events.at(-1)!;
    expect(done.event).toBe('done');
    // The model was asked to stream, with usage in its last chunk.
    expect(stub.chatRequests()[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    const traceId = await storedTraceId(service, done.data.message_id);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => traceOf(receiver, traceId).roots.length === 1);
    const { roots, byName } = traceOf(receiver, traceId);
    expect(roots[0]!.name).toBe('chat.stream');
    expect(roots[0]!.attributes['langfuse.trace.tags']).toEqual(['agent_type:support', 'memory:window', 'streamed']);
    expect(usageOf(byName('model')[0]!)).toEqual({ input: 250, output: 9, total: 259 });
    expect(done.data.usage).toEqual({ prompt_tokens: 250, completion_tokens: 9, total_tokens: 259, cached_tokens: 0, by_purpose: { answer: { prompt_tokens: 250, completion_tokens: 9, total_tokens: 259, cached_tokens: 0, calls: 1 } } });
  });

  it('shows a tool round as a tool observation and each model call as its own generation', async () => {
    stub.enqueueChat(
      { toolCalls: [{ id: 'call-1', name: 'lookup_order', arguments: { order_id: 'ZX-14440' } }], usage: { prompt_tokens: 300, completion_tokens: 20 } },
      // The second call's prompt starts with the first's: the provider served 256 of its tokens from its cache.
      { content: 'Your order ZX-14440 has shipped.', usage: { prompt_tokens: 520, completion_tokens: 15, cached_tokens: 256 } },
    );
    const answer = await service.postChat({ message: 'Where is my order ZX-14440?', session_id: 'lf-tools' });
    expect(answer.body.usage).toEqual({ prompt_tokens: 820, completion_tokens: 35, total_tokens: 855, cached_tokens: 256, by_purpose: { answer: { prompt_tokens: 820, completion_tokens: 35, total_tokens: 855, cached_tokens: 256, calls: 2 } } });
    expect(answer.status).toBe(200);
    const traceId = await storedTraceId(service, answer.body.message_id);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => traceOf(receiver, traceId).roots.length === 1);
    const { byName, parentOf } = traceOf(receiver, traceId);
    const tool = byName('lookup_order')[0]!;
    expect(tool.attributes['langfuse.observation.type']).toBe('tool');
    expect(parentOf(tool)?.name).toBe('tools');
    expect(JSON.parse(String(tool.attributes['langfuse.observation.input']))).toEqual({ order_id: 'ZX-14440' });
    expect(String(tool.attributes['langfuse.observation.output'])).toContain('ZX-14440');
    // Cached input is its own usage type (Langfuse prices it as cached input); input is the uncached rest.
    expect(byName('model').map(usageOf).sort((a, b) => a.input! - b.input!)).toEqual([
      { input: 264, input_cached_tokens: 256, output: 15, total: 535 },
      { input: 300, output: 20, total: 320 },
    ]);
  });

  it("shows the rolling summary's model call as a generation of its own, with the summary model's token usage, under apply_memory", async () => {
    stub.setDefaultChat((body) =>
      body.model === SUMMARY_MODEL
        ? { content: '- Customer: order ZX-14440 arrived damaged.', usage: { prompt_tokens: 610, completion_tokens: 14 } }
        : { content: 'Noted.', usage: { prompt_tokens: 90, completion_tokens: 2 } },
    );
    const strategy = { mode: 'summarize', context_limit: 2, keep_last_n_turns: 1 };
    let summarizedTurn: { message_id: string } | undefined;
    for (const message of ['My order ZX-14440 arrived damaged.', 'I would like a replacement.', 'Please ship it to my office.']) {
      const answer = await service.postChat({ message, session_id: 'lf-summary', memory_strategy: strategy });
      expect(answer.status).toBe(200);
      if (answer.body.memory.summarized) summarizedTurn = answer.body;
    }
    expect(summarizedTurn).toBeDefined();

    const traceId = await storedTraceId(service, summarizedTurn!.message_id);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => traceOf(receiver, traceId).roots.length === 1);
    const { byName, parentOf } = traceOf(receiver, traceId);
    const summary = byName('summary_model');
    expect(summary).toHaveLength(1);
    expect(parentOf(summary[0]!)?.name).toBe('apply_memory');
    expect(summary[0]!.attributes['langfuse.observation.type']).toBe('generation');
    expect(summary[0]!.attributes['langfuse.observation.model.name']).toBe(SUMMARY_MODEL);
    expect(usageOf(summary[0]!)).toEqual({ input: 610, output: 14, total: 624 });
    // The answer's own generation is separate, with its own model and usage.
    expect(byName('model').map((g) => [g.attributes['langfuse.observation.model.name'], usageOf(g)])).toEqual([
      [CHAT_MODEL, { input: 90, output: 2, total: 92 }],
    ]);
  });

  it("shows a follow-up's query rewrite as a generation of its own under rewrite_query, and the query the search used", async () => {
    stub.setDefaultChat((body) =>
      String(body.messages?.[0]?.content).startsWith('You turn a customer')
        ? { content: 'How long does the refund process take?', usage: { prompt_tokens: 250, completion_tokens: 9 } }
        : { content: 'Five to seven business days.', usage: { prompt_tokens: 90, completion_tokens: 6 } },
    );
    await service.postChat({ message: 'What is your refund policy?', session_id: 'lf-rewrite' });
    const followUp = await service.postChat({ message: 'How long does the process take?', session_id: 'lf-rewrite' });
    expect(followUp.status).toBe(200);

    const traceId = await storedTraceId(service, followUp.body.message_id);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => traceOf(receiver, traceId).roots.length === 1);
    const { byName, parentOf } = traceOf(receiver, traceId);
    const rewrite = byName('rewrite_model');
    expect(rewrite).toHaveLength(1);
    expect(parentOf(rewrite[0]!)?.name).toBe('rewrite_query');
    expect(rewrite[0]!.attributes['langfuse.observation.type']).toBe('generation');
    expect(usageOf(rewrite[0]!)).toEqual({ input: 250, output: 9, total: 259 });
    const searched = JSON.parse(String(byName('rewrite_query')[0]!.attributes['langfuse.observation.output']));
    expect(searched).toEqual({ text: 'How long does the refund process take?', method: 'model' });
    expect(byName('retrieve')[0]!.attributes['langfuse.observation.input']).toContain('How long does the refund process take?');
  });

  it("sends a customer's rating as a score on the answer's trace, and a new rating replaces it", async () => {
    const answer = await service.postChat({ message: 'How long does a refund take?', session_id: 'lf-feedback' });
    const traceId = await storedTraceId(service, answer.body.message_id);
    const rate = (rating: string, comment?: string) =>
      fetch(`${service.baseURL}/api/v1/chat/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-token': answer.body.session_token },
        body: JSON.stringify({ session_id: 'lf-feedback', message_id: answer.body.message_id, rating, ...(comment && { comment }) }),
      });
    expect((await rate('up')).status).toBe(200);
    expect((await rate('down', 'It did not say when the money arrives.')).status).toBe(200);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => receiver.scores.filter((s) => s.name === FEEDBACK_SCORE_NAME && s.traceId === traceId).length === 2);
    const feedback = receiver.scores.filter((s) => s.name === FEEDBACK_SCORE_NAME && s.traceId === traceId);
    expect(feedback.map((s) => [s.value, s.dataType, s.comment])).toEqual([
      [1, 'BOOLEAN', undefined],
      [0, 'BOOLEAN', 'It did not say when the money arrives.'],
    ]);
    // The same score id both times: Langfuse keeps the newer one.
    expect(feedback[0]!.id).toBe(feedback[1]!.id);
  });
});

describe('with Langfuse keys set and LANGFUSE_CAPTURE_PERSONAL_DATA off (the default)', () => {
  let receiver: LangfuseReceiver;
  let service: TestService;

  beforeAll(async () => {
    receiver = await startLangfuseReceiver();
    service = await startTestService({ env: { ...openaiEnv(), ...langfuseEnv(receiver) } });
  });
  afterAll(async () => {
    await service.close();
    await receiver.close();
  });

  it("sends the trace's shape, usage and tool names, but nothing of the order, the profile, the customer's words or id", async () => {
    stub.enqueueChat(
      { toolCalls: [{ id: 'call-p', name: 'get_user_profile', arguments: {} }, { id: 'call-o', name: 'lookup_order', arguments: { order_id: 'ZX-14440' } }], usage: { prompt_tokens: 300, completion_tokens: 20 } },
      { content: 'Lukas, your parcel is held at the DPD depot in Cork.', usage: { prompt_tokens: 900, completion_tokens: 15 } },
    );
    const question = 'Where is my order ZX-14440? I moved, my phone is +353 87 555 0142';
    const answer = await service.postChat({ message: question, session_id: 'lf-private' }, await customerTokenHeader('lukas@example.com'));
    expect(answer.status).toBe(200);
    // The tools did answer with Lukas's data: it reached the model, as it should.
    expect(JSON.stringify(stub.chatRequests().at(-1)!.body.messages)).toContain('Brandt');

    const traceId = await storedTraceId(service, answer.body.message_id);
    const rated = await fetch(`${service.baseURL}/api/v1/chat/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-token': answer.body.session_token },
      body: JSON.stringify({ session_id: 'lf-private', message_id: answer.body.message_id, rating: 'down', comment: 'I am Lukas Brandt from Cork.' }),
    });
    expect(rated.status).toBe(200);
    await service.deps.tracing.flush();
    await receiver.waitFor(() => traceOf(receiver, traceId).roots.length === 1 && receiver.scores.some((s) => s.traceId === traceId && s.name === FEEDBACK_SCORE_NAME));

    const { spans, byName } = traceOf(receiver, traceId);
    const sent = JSON.stringify([spans.map((s) => s.attributes), receiver.scores.filter((s) => s.traceId === traceId)]);
    for (const personal of ['lukas@example.com', 'Lukas', 'Brandt', 'Cork', '+353', 'held_at_depot', 'Vesper', 'I moved']) {
      expect({ personal, sent: sent.includes(personal) }).toEqual({ personal, sent: false });
    }
    // The customer is there as a pseudonym (a keyed hash), the same on every trace of theirs, never as the id.
    for (const span of spans) expect(span.attributes['user.id']).toMatch(/^c_[0-9a-f]{32}$/);
    // What is still there: the steps, the tools by name, the token usage, the scores.
    expect(byName('lookup_order')).toHaveLength(1);
    expect(byName('get_user_profile')).toHaveLength(1);
    expect(String(byName('lookup_order')[0]!.attributes['langfuse.observation.output'])).toMatch(/withheld: \d+ characters/);
    expect(byName('model').map(usageOf).sort((a, b) => a.input! - b.input!)).toEqual([
      { input: 300, output: 20, total: 320 },
      { input: 900, output: 15, total: 915 },
    ]);
    const score = receiver.scores.find((s) => s.traceId === traceId && s.name === FEEDBACK_SCORE_NAME)!;
    expect(score.value).toBe(0);
    expect(score.comment).toBeUndefined();
  });
});

describe('when Langfuse is slow, failing or down', () => {
  const RECEIVER_DELAY_MS = 4000;
  let receiver: LangfuseReceiver;
  let service: TestService;

  beforeAll(async () => {
    receiver = await startLangfuseReceiver();
    service = await startTestService({
      env: { ...langfuseEnv(receiver, { LANGFUSE_TIMEOUT_MS: '1000', LANGFUSE_FLUSH_TIMEOUT_MS: '500' }), OFFLINE_STREAM_DELAY_MS: '0' },
    });
    // Warm up (first-call costs: tokenizer, graph), so the timings below are the requests' own.
    expect((await service.postChat({ message: 'hello', session_id: 'lf-warm' })).status).toBe(200);
  });
  afterAll(async () => {
    await service.close();
    await receiver.close();
  });

  async function timedChat(sessionId: string) {
    const startedAt = performance.now();
    const response = await service.postChat({ message: 'How long does a refund take?', session_id: sessionId });
    return { status: response.status, body: response.body, ms: performance.now() - startedAt };
  }

  it('answers as fast with a receiver that takes seconds to answer, and a flush waits no longer than LANGFUSE_FLUSH_TIMEOUT_MS', async () => {
    receiver.setDelay(RECEIVER_DELAY_MS);
    const flushStarted = performance.now();
    await service.deps.tracing.flush(); // the warm-up trace goes out now, into the slow receiver
    expect(performance.now() - flushStarted).toBeLessThan(1500);
    for (const sessionId of ['lf-slow-1', 'lf-slow-2', 'lf-slow-3']) {
      const chat = await timedChat(sessionId);
      expect(chat.status).toBe(200);
      expect(chat.body.response).toContain('Refund');
      expect(chat.ms).toBeLessThan(RECEIVER_DELAY_MS / 2);
    }
    const streamed = await postStream(`${service.baseURL}/api/v1/chat/stream`, { message: 'How long does a refund take?', session_id: 'lf-slow-stream' });
    expect(streamed.events.at(-1)!.event).toBe('done');
    // The SDK did try to reach it.
    expect(receiver.requests.some((r) => r.path === TRACES_PATH)).toBe(true);
  });

  it('answers with a receiver that answers 500 to everything', async () => {
    receiver.setDelay(0);
    receiver.setStatus(500);
    const before = receiver.requests.length;
    const chat = await timedChat('lf-failing');
    expect(chat.status).toBe(200);
    await service.deps.tracing.flush();
    expect(receiver.requests.length).toBeGreaterThan(before);
    // A rating still works; only its score is lost.
    const rated = await fetch(`${service.baseURL}/api/v1/chat/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_AGENT_KEY}` },
      body: JSON.stringify({ session_id: 'lf-failing', message_id: chat.body.message_id, rating: 'up' }),
    });
    expect(rated.status).toBe(200);
  });

  it('answers with no receiver at all, and stops within its flush deadline', async () => {
    await receiver.close();
    for (const sessionId of ['lf-down-1', 'lf-down-2']) {
      const chat = await timedChat(sessionId);
      expect(chat.status).toBe(200);
      expect(chat.ms).toBeLessThan(RECEIVER_DELAY_MS / 2);
    }
    const stopStarted = performance.now();
    await service.deps.tracing.shutdown();
    expect(performance.now() - stopStarted).toBeLessThan(1500);
  });
});

describe('without Langfuse keys', () => {
  it('traces nothing and stores no trace id', async () => {
    const receiver = await startLangfuseReceiver();
    // Only the base URL: not enough to turn tracing on.
    const service = await startTestService({ env: { LANGFUSE_BASE_URL: receiver.baseUrl, LANGFUSE_PUBLIC_KEY: 'pk-lf-only' } });
    try {
      expect(service.deps.tracing.enabled).toBe(false);
      const chat = await service.postChat({ message: 'How long does a refund take?', session_id: 'lf-off' });
      expect(chat.status).toBe(200);
      const [row] = await service.db.query<{ metadata: Record<string, unknown> }>('select metadata from chat_messages where id = $1', [
        chat.body.message_id,
      ]);
      expect(row!.metadata).not.toHaveProperty('trace_id');
      await service.deps.tracing.flush();
      expect(receiver.requests).toEqual([]);
    } finally {
      await service.close();
      await receiver.close();
    }
  });
});
