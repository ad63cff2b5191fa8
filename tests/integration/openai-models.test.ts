import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startTestService, type TestService } from '../support/test-service';

/**
 * The real ChatOpenAI and OpenAIEmbeddings clients, configured as in production
 * through OPENAI_BASE_URL, against an OpenAI-compatible server on loopback.
 */
const HISTORY_BUDGET = 80;

let stub: OpenAIStub;
let service: TestService;

beforeAll(async () => {
  stub = await startOpenAIStub();
  service = await startTestService({
    env: {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: stub.baseURL,
      OPENAI_TIMEOUT_MS: '1500',
      OPENAI_MAX_RETRIES: '0',
      CONVERSATION_HISTORY_MAX_TOKENS: String(HISTORY_BUDGET),
      // The stub's vectors are pseudo-random: keep every nearest passage, escalate nothing.
      RETRIEVAL_MIN_SIMILARITY: '-1',
      ESCALATION_CONFIDENCE_THRESHOLD: '0',
    },
  });
});
afterAll(async () => {
  await service.close();
  await stub.close();
});
beforeEach(() => {
  stub.reset();
});

type SentMessage = { role: string; content: string };
const lastChatRequest = () => stub.chatRequests().at(-1)!.body as { model: string; messages: SentMessage[] };

describe('with OPENAI_API_KEY: the real OpenAI clients', () => {
  it('embedded the sample help center through the embeddings endpoint at start', async () => {
    const [row] = await service.db.query<{ n: number; models: string[] }>(
      'select count(*)::int as n, array_agg(distinct embedding_model) as models from documents',
    );
    expect(row!.n).toBeGreaterThan(10);
    expect(row!.models).toEqual(['text-embedding-3-small']);
  });

  it('sends the model the instructions, then the passages with sources, then the question last, and reports its token usage', async () => {
    stub.enqueueChat({ content: 'Refunds take 5–7 business days.', usage: { prompt_tokens: 321, completion_tokens: 12 } });
    const { status, body } = await service.postChat({ message: 'How long does a refund take?', session_id: 'openai-1' });
    expect(status).toBe(200);
    expect(body.response).toBe('Refunds take 5–7 business days.');
    expect(body.usage).toEqual({ prompt_tokens: 321, completion_tokens: 12, total_tokens: 333, cached_tokens: 0, by_purpose: { answer: { prompt_tokens: 321, completion_tokens: 12, total_tokens: 333, cached_tokens: 0, calls: 1 } } });

    const sent = lastChatRequest();
    expect(sent.model).toBe('gpt-4o-mini');
    // Cache order: the stable instructions first, this turn's passages just before the question.
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(sent.messages[0]!.content).toContain('customer-support assistant');
    expect(sent.messages[0]!.content).not.toContain('<passage');
    const passages = sent.messages[1]!.content.match(/<passage index="\d+" title="[^"]+" source="knowledge\/help-center\/[a-z-]+\.md">/g);
    expect(passages).toHaveLength(service.config.retrieval.topK);
    expect(sent.messages[2]!.content).toBe('How long does a refund take?');
    // The question was embedded with the configured model.
    expect(stub.embeddingRequests().at(-1)!.body).toMatchObject({ model: 'text-embedding-3-small', input: 'How long does a refund take?' });
  });

  it('sends exactly the newest turns that fit the token budget, cut in steps to the low-water mark, as role messages', async () => {
    const sessionId = 'openai-window';
    const questions = ['Do you ship to Norway?', 'What does express cost?', 'Which carrier do you use for Sweden?', 'Is there a cut-off time?', 'What if my parcel is held at the depot?'];
    for (const [i, question] of questions.entries()) {
      stub.enqueueChat({ content: `Answer number ${i + 1}, with a little detail so that it costs some tokens.` });
      expect((await service.postChat({ message: question, session_id: sessionId })).status).toBe(200);
    }

    // What the window should hold, computed independently from the stored rows.
    const stored = await service.db.query<{ seq: number; role: string; content: string; token_count: number }>(
      'select seq, role, content, token_count from chat_messages where session_id = $1 order by seq',
      [sessionId],
    );
    const previous = stored.slice(0, -2); // the last turn's request saw only the turns before it
    // The default low-water mark (60%): cut points every 40% of the budget from the start of the
    // conversation; the window keeps what lies after the last one it must pass to fit.
    const total = previous.reduce((sum, m) => sum + m.token_count, 0);
    const step = HISTORY_BUDGET - Math.floor(HISTORY_BUDGET * 0.6);
    const limit = total > HISTORY_BUDGET ? total - Math.ceil((total - HISTORY_BUDGET) / step) * step : HISTORY_BUDGET;
    const expected: typeof previous = [];
    let used = 0;
    for (const m of [...previous].reverse()) {
      if (used + m.token_count > limit) break;
      used += m.token_count;
      expected.unshift(m);
    }
    while (expected.length > 0 && expected[0]!.role !== 'user') expected.shift();
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(previous.length); // the budget really cut something

    const sent = lastChatRequest().messages;
    expect(sent[0]!.role).toBe('system');
    expect(sent.slice(1, -2)).toEqual(expected.map((m) => ({ role: m.role, content: m.content })));
    expect(sent.at(-2)!.content).toContain('Knowledge passages');
    expect(sent.at(-1)).toEqual({ role: 'user', content: questions.at(-1) });
  });

  it('answers 502 when the model fails, and stores nothing of the turn', async () => {
    const before = await service.countRows('chat_messages');
    stub.enqueueChat({ status: 401, error: 'Incorrect API key provided: sk-abc***xyz' });
    const { status, body } = await service.postChat({ message: 'How long does delivery take?', session_id: 'openai-fail' });
    expect(status).toBe(502);
    expect(body.error.code).toBe('model_unavailable');
    // The upstream text stays in the log: it can carry internals, here part of a key.
    expect(body.error.message).not.toMatch(/sk-|Incorrect/);
    expect(await service.countRows('chat_messages')).toBe(before);
    expect(await service.deps.store.getSession('openai-fail')).toBeNull();
  });

  it('answers 502 when the model returns an empty answer, and stores nothing', async () => {
    const before = await service.countRows('chat_messages');
    stub.enqueueChat({ content: '   ' });
    const { status, body } = await service.postChat({ message: 'How long does delivery take?', session_id: 'openai-empty' });
    expect(status).toBe(502);
    expect(body.error.message).toMatch(/empty answer/);
    expect(await service.countRows('chat_messages')).toBe(before);
  });

  it('answers 504 when the model does not answer within OPENAI_TIMEOUT_MS, and stores nothing', async () => {
    const before = await service.countRows('chat_messages');
    stub.enqueueChat({ delayMs: 5000, content: 'too late' });
    const { status, body } = await service.postChat({ message: 'How long does delivery take?', session_id: 'openai-slow' });
    expect(status).toBe(504);
    expect(body.error.code).toBe('model_timeout');
    expect(await service.countRows('chat_messages')).toBe(before);
  });

  it('answers without the knowledge base when the embeddings fail, marked as such and escalated', async () => {
    stub.setEmbeddingsFailure(503);
    stub.enqueueChat({ content: 'I could not look that up just now.' });
    const { status, body } = await service.postChat({ message: 'How long does delivery take?', session_id: 'openai-embed-fail' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ degraded: ['knowledge_unavailable'], confidence: 0, sources: [] });
    expect(stub.chatRequests()).toHaveLength(1);
    expect(lastChatRequest().messages.at(-2)!.content).toContain('none matched');
  });

  it('cancels the model request when the client hangs up, and stores nothing', async () => {
    const before = await service.countRows('chat_messages');
    stub.enqueueChat({ delayMs: 1000, content: 'nobody is listening' });
    const client = new AbortController();
    const request = fetch(`${service.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'How long does delivery take?', session_id: 'openai-hangup' }),
      signal: client.signal,
    });
    await waitFor(() => stub.chatRequests().length === 1);
    client.abort();
    await expect(request).rejects.toThrow();
    await waitFor(() => stub.chatRequests()[0]!.aborted);
    await new Promise((resolve) => setTimeout(resolve, 1200)); // past the reply's delay
    expect(await service.countRows('chat_messages')).toBe(before);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
