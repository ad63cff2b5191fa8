/**
 * The model goes down and comes back, against the real process: the service
 * (`tsx src/index.ts`, PGlite) talks to the OpenAI-compatible stub on loopback
 * through the real OpenAI client. While the stub answers 500 (or 429, 503), every
 * question is answered 502 with the JSON error (a stream ends with an `error`
 * event), nothing is stored, and the service stays up; once the stub answers
 * again, so does the service, without a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startServiceProcess, stopServiceProcess, waitUntilServing, type ServiceProcess } from '../support/processes';
import { parseSse } from '../fuzz/raw-http';
import { REPO_ROOT, TEST_AGENT_KEY } from '../support/test-service';

const figures: Record<string, unknown> = {};

describe('the model down and back (real process, OpenAI-compatible stub)', () => {
  let stub: OpenAIStub;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    stub = await startOpenAIStub();
    service = await startServiceProcess({
      OPENAI_API_KEY: 'sk-test-model-down',
      OPENAI_BASE_URL: stub.baseURL,
      OPENAI_MAX_RETRIES: '1',
      OPENAI_TIMEOUT_MS: '5000',
      MODEL_FALLBACK: 'none',
      RATE_LIMIT_PER_CLIENT: '100000',
      RATE_LIMIT_PER_SESSION: '100000',
      LOG_LEVEL: 'warn',
    });
    await waitUntilServing(service);
  }, 120_000);
  afterAll(async () => {
    await stopServiceProcess(service);
    await stub?.close();
    fs.mkdirSync(path.join(REPO_ROOT, 'test-artifacts'), { recursive: true });
    fs.writeFileSync(path.join(REPO_ROOT, 'test-artifacts/fault-model-down.json'), `${JSON.stringify(figures, null, 2)}\n`);
  });

  const post = async (p: string, body: unknown) => {
    const response = await fetch(`${service!.baseURL}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
  };

  it.each([500, 503, 429])('while the model answers %i: 502 model_unavailable with the JSON error, a stream ends with an error event, nothing stored, the service up', async (status) => {
    stub.reset();
    stub.setDefaultChat({ status, error: `stub is down (${status})` });
    const sessionId = `model-down-${status}`;

    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => post('/api/v1/chat', { message: `Where is my parcel? (${i})`, session_id: `${sessionId}-${i}` })));
    for (const answer of answers) {
      expect(answer.status).toBe(502);
      expect(answer.contentType).toContain('application/json');
      expect(JSON.parse(answer.text)).toEqual({ error: { code: 'model_unavailable', message: expect.any(String) } });
      expect(answer.text).not.toContain('stub is down');
    }
    const chatCalls = stub.chatRequests().length;
    figures[`model answering ${status}`] = { questions: answers.length, statuses: answers.map((a) => a.status), modelCalls: chatCalls };
    // Each question was sent at least once (retries on 429/5xx may add more).
    expect(chatCalls).toBeGreaterThanOrEqual(answers.length);

    const stream = await post('/api/v1/chat/stream', { message: 'Where is my parcel?', session_id: `${sessionId}-stream` });
    expect(stream.status).toBe(200);
    const last = parseSse(stream.text).at(-1);
    expect(last).toEqual({ event: 'error', data: { code: 'model_unavailable', message: expect.any(String) } });

    for (const id of [...answers.map((_, i) => `${sessionId}-${i}`), `${sessionId}-stream`]) {
      const history = await fetch(`${service!.baseURL}/api/v1/chat/history/${id}`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
      expect(history.status).toBe(404);
    }
    const health = await fetch(`${service!.baseURL}/health`);
    expect(health.status).toBe(200);
    expect(service!.child.exitCode).toBeNull();
  });

  it('answers again as soon as the model does, without a restart', async () => {
    stub.reset(); // the stub's default again: an answer echoing the question
    const answer = await post('/api/v1/chat', { message: 'Can I pay with Klarna?', session_id: 'model-back' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ session_id: 'model-back', response: expect.stringContaining('Can I pay with Klarna?') });
    const stream = await post('/api/v1/chat/stream', { message: 'Do you ship to Ireland?', session_id: 'model-back-stream' });
    expect(parseSse(stream.text).at(-1)?.event).toBe('done');
    figures['after recovery'] = { chat: answer.status, stream: parseSse(stream.text).at(-1)?.event };
  });

  it('a model that fails only now and then: every answer is 200 or 502, never anything else', async () => {
    stub.reset();
    let n = 0;
    stub.setDefaultChat((body) => (++n % 2 === 0 ? { status: 500 } : { content: `answer ${n} to ${JSON.stringify(body?.messages?.length ?? 0)}` }));
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post('/api/v1/chat', { message: `Is the blender in stock? (${i})`, session_id: `model-flaky-${i}` })));
    const statuses = answers.map((a) => a.status);
    figures['flaky model'] = { statuses };
    expect(statuses.every((s) => s === 200 || s === 502)).toBe(true);
    expect(statuses).toContain(200);
    const health = await fetch(`${service!.baseURL}/health`);
    expect(health.status).toBe(200);
  });
});
