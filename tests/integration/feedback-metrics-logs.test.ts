import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger';
import { FEEDBACK_COMMENT_MAX_CHARS } from '../../src/http/routes/feedback';
import type { OpenAIStub } from '../support/openai-stub';
import { metric } from '../support/metrics';
import { postStream } from '../support/sse';
import { startOfflineAndOnline, TEST_AGENT_KEY, type OfflineAndOnline, type TestService } from '../support/test-service';

/**
 * Answer ratings (POST /api/v1/chat/feedback), the Prometheus metrics moving as
 * requests are made, and the request logs (request id, no customer text at info).
 */
const logLines: Record<string, any>[] = [];
/** The same lines as written (parsing would hide a key written twice). */
const rawLogLines: string[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) {
      if (!line.trim()) continue;
      rawLogLines.push(line);
      logLines.push(JSON.parse(line));
    }
    done();
  },
});

let offline: TestService;
let online: TestService;
let stub: OpenAIStub;

let services: OfflineAndOnline | undefined;

beforeAll(async () => {
  services = await startOfflineAndOnline({
    offline: { env: { OFFLINE_STREAM_DELAY_MS: '0' }, logger: createLogger('info', logSink) },
    // Short enough for the timeout test's 2 s reply, long enough for the stub's embeddings on a loaded machine
    // (at 300 ms a CI run's retrievals came back empty: retrieval_hits_sum did not move).
    onlineEnv: { OPENAI_TIMEOUT_MS: '1000', SUMMARY_MODEL: 'stub-summary-model' },
  });
  ({ stub, offline, online } = services);
});
afterAll(() => services?.close());
beforeEach(() => stub.reset());

async function postFeedback(service: TestService, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.baseURL}/api/v1/chat/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}


describe('POST /api/v1/chat/feedback', () => {
  let answer: any;
  beforeAll(async () => {
    answer = (await offline.postChat({ message: 'How long does a refund take?', session_id: 'fb-1' })).body;
  });
  const token = () => ({ 'x-session-token': answer.session_token });

  it('stores a rating with the session token, replaces it with a new one, and shows it in the history and the read-back', async () => {
    const first = await postFeedback(offline, { session_id: 'fb-1', message_id: answer.message_id, rating: 'up' }, token());
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ rating: 'up', comment: null, replaced: false });

    const second = await postFeedback(
      offline,
      { session_id: 'fb-1', message_id: answer.message_id, rating: 'down', comment: '  Too vague.\nWhich bank days?  ' },
      token(),
    );
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ rating: 'down', comment: 'Too vague.\nWhich bank days?', replaced: true });
    expect(await offline.db.query('select rating, comment from answer_feedback where message_id = $1', [answer.message_id])).toEqual([
      { rating: 'down', comment: 'Too vague.\nWhich bank days?' },
    ]);

    const history = await offline.getHistory('fb-1');
    const [question, rated] = history.body.messages;
    expect(question).not.toHaveProperty('feedback');
    expect(rated.feedback).toMatchObject({ rating: 'down', comment: 'Too vague.\nWhich bank days?' });
    const readBack = await fetch(`${offline.baseURL}/api/v1/chat/conversation/fb-1`, { headers: token() });
    expect(((await readBack.json()) as any).messages[1].feedback.rating).toBe('down');
  });

  it('accepts the agent key too', async () => {
    const rated = await postFeedback(
      offline,
      { session_id: 'fb-1', message_id: answer.message_id, rating: 'up' },
      { authorization: `Bearer ${TEST_AGENT_KEY}` },
    );
    expect(rated.status).toBe(200);
  });

  it('answers 404 for a message that is not an answer of that session', async () => {
    const other = (await offline.postChat({ message: 'Can I pay with Klarna?', session_id: 'fb-2' })).body;
    const history = await offline.getHistory('fb-1');
    const questionId = history.body.messages[0].id;
    const cases = [
      { session_id: 'fb-1', message_id: questionId }, // the customer's own message
      { session_id: 'fb-1', message_id: other.message_id }, // another session's answer
      { session_id: 'fb-1', message_id: '00000000-0000-4000-8000-000000000000' },
    ];
    for (const c of cases) {
      const rated = await postFeedback(offline, { ...c, rating: 'up' }, token());
      expect([rated.status, rated.body.error.code]).toEqual([404, 'not_found']);
    }
  });

  it('answers 401 without the right token and stores nothing', async () => {
    const before = await offline.db.query('select * from answer_feedback');
    for (const headers of [{}, { 'x-session-token': 'wrong' }, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const rated = await postFeedback(offline, { session_id: 'fb-1', message_id: answer.message_id, rating: 'down' }, headers);
      expect(rated.status).toBe(401);
    }
    expect(await offline.db.query('select * from answer_feedback')).toEqual(before);
  });

  it.each([
    [{ session_id: 'fb-1', rating: 'up' }, /message_id/],
    [{ session_id: 'fb-1', message_id: 'not-a-uuid', rating: 'up' }, /message_id/],
    [{ session_id: 'fb-1', message_id: '00000000-0000-4000-8000-000000000000', rating: 'meh' }, /rating must be "up" or "down"/],
    [{ session_id: 'fb-1', message_id: '00000000-0000-4000-8000-000000000000', rating: 'up', comment: 'x'.repeat(FEEDBACK_COMMENT_MAX_CHARS + 1) }, /at most 1000/],
    [{ session_id: 'fb-1', message_id: '00000000-0000-4000-8000-000000000000', rating: 'up', comment: 'bell\u0007' }, /control characters/],
    [{ session_id: 'fb-1', message_id: '00000000-0000-4000-8000-000000000000', rating: 'up', stars: 5 }, /unknown field/],
  ])('refuses %j with 400', async (body, message) => {
    const rated = await postFeedback(offline, body, token());
    expect(rated.status).toBe(400);
    expect(rated.body.error.message).toMatch(message);
  });
});

describe('GET /metrics', () => {
  it('moves with requests: duration by route and status, tokens by model, history window, retrieval, time to first token, feedback', async () => {
    const route = { method: 'POST', route: '/api/v1/chat', status: '200' };
    const before = {
      requests: await metric(online, 'http_request_duration_seconds_count', route),
      prompt: await metric(online, 'llm_tokens_total', { model: 'gpt-4o-mini', kind: 'prompt', purpose: 'answer' }),
      completion: await metric(online, 'llm_tokens_total', { model: 'gpt-4o-mini', kind: 'completion', purpose: 'answer' }),
      window: await metric(online, 'chat_history_window_messages_count'),
      windowSum: await metric(online, 'chat_history_window_messages_sum'),
      retrievals: await metric(online, 'retrieval_duration_seconds_count'),
      hits: await metric(online, 'retrieval_hits_sum'),
      ttft: await metric(online, 'chat_time_to_first_token_seconds_count', { agent_type: 'support' }),
      badRequests: await metric(online, 'http_request_duration_seconds_count', { ...route, status: '400' }),
    };
    stub.enqueueChat({ content: 'Five to seven days.', usage: { prompt_tokens: 100, completion_tokens: 10 } });
    stub.enqueueChat({ content: 'Yes.', usage: { prompt_tokens: 200, completion_tokens: 3 } });
    await online.postChat({ message: 'How long does a refund take?', session_id: 'm-1' });
    await online.postChat({ message: 'And for Klarna?', session_id: 'm-1' });
    await online.postChat({ message: '' });
    stub.enqueueChat({ content: 'Streamed answer.', usage: { prompt_tokens: 50, completion_tokens: 2 } });
    await postStream(`${online.baseURL}/api/v1/chat/stream`, { message: 'Streaming?', session_id: 'm-2' });

    expect(await metric(online, 'http_request_duration_seconds_count', route)).toBe(before.requests + 2);
    expect(await metric(online, 'http_request_duration_seconds_count', { ...route, status: '400' })).toBe(before.badRequests + 1);
    expect(await metric(online, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/chat/stream', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(await metric(online, 'llm_tokens_total', { model: 'gpt-4o-mini', kind: 'prompt', purpose: 'answer' })).toBe(before.prompt + 350);
    expect(await metric(online, 'llm_tokens_total', { model: 'gpt-4o-mini', kind: 'completion', purpose: 'answer' })).toBe(before.completion + 15);
    expect(await metric(online, 'chat_history_window_messages_count')).toBe(before.window + 3);
    // The second turn of m-1 was sent the first (question and answer).
    expect(await metric(online, 'chat_history_window_messages_sum')).toBe(before.windowSum + 2);
    expect(await metric(online, 'retrieval_duration_seconds_count')).toBe(before.retrievals + 3);
    expect(await metric(online, 'retrieval_hits_sum')).toBeGreaterThan(before.hits);
    expect(await metric(online, 'chat_time_to_first_token_seconds_count', { agent_type: 'support' })).toBe(before.ttft + 1);
    // The memory metrics are still there.
    expect(await metric(online, 'memory_tokens_before_after_count', { stage: 'after', strategy: 'window' })).toBeGreaterThanOrEqual(3);
  });

  it('counts the rolling summary\'s tokens under its own model and purpose, apart from the answers\'', async () => {
    const summaryTokens = (kind: string) => metric(online, 'llm_tokens_total', { model: 'stub-summary-model', kind, purpose: 'summary' });
    const answerPrompt = () => metric(online, 'llm_tokens_total', { model: 'gpt-4o-mini', kind: 'prompt', purpose: 'answer' });
    const before = { prompt: await summaryTokens('prompt'), completion: await summaryTokens('completion'), answer: await answerPrompt() };
    stub.setDefaultChat((body) =>
      body.model === 'stub-summary-model'
        ? { content: '- Customer: order ZX-14440 arrived damaged.', usage: { prompt_tokens: 700, completion_tokens: 30 } }
        : { content: 'Noted.', usage: { prompt_tokens: 40, completion_tokens: 1 } },
    );
    const strategy = { mode: 'summarize', context_limit: 2, keep_last_n_turns: 1 };
    let summaries = 0;
    for (const message of ['My order ZX-14440 arrived damaged.', 'I would like a replacement.', 'Please ship it to my office.']) {
      const answer = await online.postChat({ message, session_id: 'm-summary', memory_strategy: strategy });
      expect(answer.status).toBe(200);
      if (answer.body.memory.summarized) summaries += 1;
    }
    expect(summaries).toBeGreaterThan(0);
    expect(await summaryTokens('prompt')).toBe(before.prompt + 700 * summaries);
    expect(await summaryTokens('completion')).toBe(before.completion + 30 * summaries);
    expect(await answerPrompt()).toBe(before.answer + 40 * 3);
  });

  it('counts model errors by kind', async () => {
    const unavailable = await metric(online, 'model_errors_total', { kind: 'unavailable' });
    const timeout = await metric(online, 'model_errors_total', { kind: 'timeout' });
    stub.enqueueChat({ status: 500 });
    expect((await online.postChat({ message: 'Fail please' })).status).toBe(502);
    stub.enqueueChat({ delayMs: 2000 });
    expect((await online.postChat({ message: 'Too slow' })).status).toBe(504);
    expect(await metric(online, 'model_errors_total', { kind: 'unavailable' })).toBe(unavailable + 1);
    expect(await metric(online, 'model_errors_total', { kind: 'timeout' })).toBe(timeout + 1);
  });

  it('counts escalations and ratings', async () => {
    const escalations = await metric(offline, 'chat_escalations_total', { agent_type: 'support' });
    const downs = await metric(offline, 'answer_feedback_total', { rating: 'down' });
    // Nothing in the help center is about this: low confidence, escalated.
    const escalated = await offline.postChat({ message: 'Quantum chromodynamics lattice gauge', session_id: 'm-esc' });
    expect(escalated.body.escalated).toBe(true);
    expect(await metric(offline, 'chat_escalations_total', { agent_type: 'support' })).toBe(escalations + 1);
    const rated = await postFeedback(
      offline,
      { session_id: 'm-esc', message_id: escalated.body.message_id, rating: 'down' },
      { 'x-session-token': escalated.body.session_token },
    );
    expect(rated.status).toBe(200);
    expect(await metric(offline, 'answer_feedback_total', { rating: 'down' })).toBe(downs + 1);
  });
});

describe('request logs', () => {
  const SECRET_WORDS = 'my neighbour Zebediah-4711 says';

  it('carry the request id on every line of the request and in X-Request-Id, and no customer text at info', async () => {
    logLines.length = 0;
    rawLogLines.length = 0;
    const response = await fetch(`${offline.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-abc.123' },
      body: JSON.stringify({ message: `${SECRET_WORDS} refunds take long?`, session_id: 'log-1' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req-abc.123');
    const answered = ((await response.json()) as any).response as string;
    await new Promise((r) => setTimeout(r, 50));

    const mine = logLines.filter((l) => l.request_id === 'req-abc.123');
    const messages = mine.map((l) => l.msg);
    expect(messages).toContain('Retrieved 0 conversation messages for agent (~0 tokens) from session log-1');
    expect(messages).toContain('Answered chat message');
    expect(messages).toContain('POST /api/v1/chat 200');
    // Every line written meanwhile is the request's, and names it once.
    expect(logLines.filter((l) => l.msg !== undefined && l.request_id === undefined)).toEqual([]);
    const raw = JSON.stringify(logLines);
    expect(raw).not.toContain('Zebediah');
    expect(raw).not.toContain(answered.slice(0, 40));
    for (const line of rawLogLines) expect(line.match(/"request_id":/g) ?? []).toHaveLength(1);
    const completed = mine.find((l) => l.msg === 'POST /api/v1/chat 200')!;
    expect(completed.req).toEqual({ method: 'POST', path: '/api/v1/chat' });
    expect(completed.res).toEqual({ status: 200 });
    expect(completed.responseTime).toEqual(expect.any(Number));
  });

  it('makes a new id for a missing or unsafe X-Request-Id, and logs no secrets from headers', async () => {
    logLines.length = 0;
    const ids = [];
    for (const given of [undefined, 'has spaces in it', 'x'.repeat(200)]) {
      const response = await fetch(`${offline.baseURL}/api/v1/chat/history/log-1`, {
        headers: { authorization: `Bearer ${TEST_AGENT_KEY}`, ...(given && { 'x-request-id': given }) },
      });
      expect(response.status).toBe(200);
      ids.push(response.headers.get('x-request-id'));
    }
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(3);
    await new Promise((r) => setTimeout(r, 50));
    expect(JSON.stringify(logLines)).not.toContain(TEST_AGENT_KEY);
    // The access line names the route's pattern, not the session id in the path.
    expect(logLines.filter((l) => l.msg === 'GET /api/v1/chat/history/:session_id 200').map((l) => l.request_id)).toEqual(ids);
  });

  it('keeps the id on the lines of a request refused before any route (malformed JSON)', async () => {
    logLines.length = 0;
    const response = await fetch(`${offline.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'bad-json-1' },
      body: '{"message": ',
    });
    expect(response.status).toBe(400);
    await new Promise((r) => setTimeout(r, 50));
    const rejected = logLines.find((l) => l.msg === 'Request rejected');
    expect(rejected).toMatchObject({ request_id: 'bad-json-1', code: 'invalid_json' });
  });
});
