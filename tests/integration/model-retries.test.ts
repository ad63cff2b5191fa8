/**
 * OPENAI_MAX_RETRIES through the real ChatOpenAI and OpenAIEmbeddings clients
 * against the loopback OpenAI-compatible stub: a 429 is retried with backoff
 * like a 5xx, with or without a Retry-After header; a used-up quota and other
 * 4xx are not retried.
 */
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';

let stub: OpenAIStub;
let service: TestService;

beforeAll(async () => {
  stub = await startOpenAIStub();
  // One retry, and a deadline long enough for its backoff (about 1–2 s).
  service = await startTestService({ env: openAIStubEnv(stub.baseURL, { OPENAI_MAX_RETRIES: '1', OPENAI_TIMEOUT_MS: '15000' }) });
});
afterAll(async () => {
  await service.close();
  await stub.close();
});
beforeEach(() => stub.reset());

describe('retries of the chat model', () => {
  it.each([
    ['a 429 without Retry-After', 429],
    ['a 500', 500],
    ['a 503', 503],
  ])('retries %s, then answers', async (_, status) => {
    stub.enqueueChat({ status, error: 'Rate limit reached, slow down' }, { content: 'Refunds take 5–7 business days.' });
    const answer = await service.postChat({ message: 'How long does a refund take?' });
    expect(answer.status).toBe(200);
    expect(answer.body.response).toBe('Refunds take 5–7 business days.');
    expect(stub.chatRequests()).toHaveLength(2);
  });

  it.each([
    ['a 429 that says the quota is used up', 429, 'You exceeded your current quota, please check your plan and billing details.'],
    ['a 400', 400, 'Invalid request'],
    ['a 401', 401, 'Incorrect API key provided'],
  ])('does not retry %s: 502 after one request, nothing stored', async (_, status, error) => {
    stub.setDefaultChat({ status, error });
    const answer = await service.postChat({ message: 'How long does a refund take?', session_id: `no-retry-${status}` });
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe('model_unavailable');
    expect(stub.chatRequests()).toHaveLength(1);
    const history = await service.request('GET', `/api/v1/chat/history/no-retry-${status}`);
    expect(history.status).toBe(404);
  });
});

describe('retries of the embeddings', () => {
  it('retries a 429 on the question’s embedding, then answers without knowledge when it stays down', async () => {
    stub.setEmbeddingsFailure(429);
    stub.setDefaultChat({ content: 'I could not look that up right now.' });
    const answer = await service.postChat({ message: 'How long does a refund take?' });
    expect(answer.status).toBe(200);
    expect(answer.body.degraded).toEqual(['knowledge_unavailable']);
    // The first attempt and one retry.
    expect(stub.embeddingRequests()).toHaveLength(2);
  });
});
