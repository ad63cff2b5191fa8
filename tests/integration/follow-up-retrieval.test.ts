/**
 * The seed examples of the design notes: a follow-up answers from the article the
 * conversation is about, offline (the topic method, on both offline embedders) and
 * with a model (the loopback OpenAI-compatible stub rewrites the follow-up; its
 * requests are recorded and checked).
 */
import type { RetrievalRecord } from '../../src/knowledge/retrieval-record';
import path from 'node:path';
import { Writable } from 'node:stream';
import { REWRITE_INSTRUCTIONS } from '../../src/knowledge/query-rewriter';
import { USE_LITE_EMBEDDING_MODEL, OFFLINE_EMBEDDING_MODEL } from '../../src/knowledge/embeddings';
import { createLogger } from '../../src/observability/logger';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';

jest.setTimeout(180_000);

/** The seed conversations: each turn and the article its answer must cite. */
const SEED_CONVERSATIONS = [
  [
    ['What is your refund policy?', 'refunds.md'],
    ['How long does the process take?', 'refunds.md'],
  ],
  [
    ['What shipping options do you have?', 'shipping.md'],
    ['Which one is cheaper?', 'shipping.md'],
  ],
  [
    ['Which payment methods do you accept?', 'payments.md'],
    ['Are there any fees?', 'payments.md'],
    ['What about international cards?', 'payments.md'],
  ],
] as const;

/** Sends a conversation turn by turn; each answer's cited files, escalation and stored search query. */
async function converse(service: TestService, sessionId: string, messages: readonly string[]) {
  const answers = [];
  for (const message of messages) {
    const { status, body } = await service.postChat({ message, session_id: sessionId });
    expect(status).toBe(200);
    answers.push({ cited: body.sources.map((s: { source: string }) => path.basename(s.source)) as string[], escalated: body.escalated as boolean, id: body.message_id as string });
  }
  const stored = await service.deps.store.listMessagesAfter(sessionId, 0);
  return answers.map((a) => ({ ...a, retrieval: stored.find((m) => m.id === a.id)!.metadata['retrieval'] as RetrievalRecord }));
}

describe.each([
  ['use-lite (the embedded default)', 'use-lite', USE_LITE_EMBEDDING_MODEL],
  ['hashing', 'hashing', OFFLINE_EMBEDDING_MODEL],
])('seed follow-ups offline, %s embedder', (_label, embedder, model) => {
  let service: TestService;
  /** What the service logged at warn or above while starting: a failed seed ingest says why here. */
  const startLog: string[] = [];
  beforeAll(async () => {
    const logs = new Writable({ write: (chunk, _encoding, done) => (startLog.push(String(chunk)), done()) });
    service = await startTestService({ env: { OFFLINE_EMBEDDER: embedder, OFFLINE_STREAM_DELAY_MS: '0' }, logger: createLogger('warn', logs) });
  });
  afterAll(() => service.close());

  it('seeds the help center with this embedder at start', async () => {
    expect({ models: await service.deps.store.listEmbeddingModels(), errors: startLog.filter((l) => /"level":(50|60)/.test(l)) }).toEqual({ models: [model], errors: [] });
  });

  it.each(SEED_CONVERSATIONS.map((c, i) => [i, c] as const))('conversation %i answers every turn from its article, unescalated', async (i, conversation) => {
    const answers = await converse(service, `seed-offline-${embedder}-${i}`, conversation.map(([m]) => m));
    answers.forEach((answer, turn) => {
      expect(answer.cited.slice(0, 3)).toContain(conversation[turn]![1]);
      expect(answer.escalated).toBe(false);
    });
    expect(answers[0]!.retrieval).toMatchObject({ query: conversation[0]![0], method: 'message' });
    expect(answers[0]!.retrieval.history).toBeUndefined();
    // Follow-ups are searched by their own words with the customer's earlier messages' words at
    // a reduced weight, and their vectors see the topic.
    for (const answer of answers.slice(1)) {
      expect(answer.retrieval.method).toBe('topic');
      expect(answer.retrieval.vector_query!.startsWith(conversation[0]![0])).toBe(true);
      expect(answer.retrieval.history!.at(-1)).toEqual({ text: conversation[0]![0], weight: expect.any(Number) });
      expect(answer.retrieval.history![0]!.weight).toBe(0.5);
    }
    // Each retrieved document says which side put it there.
    expect(answers[0]!.retrieval.documents![0]).toMatchObject({ place: 1, full_text: { place: expect.any(Number) }, vectors: { place: expect.any(Number) } });
  });
});

describe('seed follow-ups with a model: the follow-up is rewritten by its own small call', () => {
  let stub: OpenAIStub;
  let service: TestService;
  /** What the stub's "rewrite model" answers, by the latest customer message. */
  const REWRITES: Record<string, string> = {
    'How long does the process take?': 'How long does the refund process take?',
    'Which one is cheaper?': 'Which shipping option is cheaper, standard or express?',
    'Are there any fees?': 'Are there payment fees for the payment methods?',
    'What about international cards?': 'Are there fees for paying with international cards, currency conversion?',
  };
  const isRewrite = (body: any) => body.messages?.[0]?.content === REWRITE_INSTRUCTIONS;
  const rewriteRequests = () => stub.chatRequests().filter((r) => isRewrite(r.body));

  beforeAll(async () => {
    stub = await startOpenAIStub();
    // The stub's embeddings are pseudo-random (they mean nothing), so the vector side of the
    // hybrid search would add noise as strong as the words: it is weighed at 0 here and the
    // full text finds the article. The offline tests above fuse both sides with real vectors.
    service = await startTestService({
      env: openAIStubEnv(stub.baseURL, { QUERY_REWRITE: 'model', QUERY_REWRITE_MODEL: 'gpt-4o-mini-rewriter', RETRIEVAL_SEMANTIC_WEIGHT: '0' }),
    });
  });
  afterAll(async () => {
    await service.close();
    await stub.close();
  });
  beforeEach(() => {
    stub.reset();
    stub.setDefaultChat((body) => {
      if (!isRewrite(body)) return { content: 'Here is what our help center says.' };
      const latest = /Latest customer message: (.*)\n/.exec(body.messages[1].content)?.[1] ?? '';
      return { content: REWRITES[latest] ?? latest, usage: { prompt_tokens: 120, completion_tokens: 12 } };
    });
  });

  it.each(SEED_CONVERSATIONS.map((c, i) => [i, c] as const))('conversation %i: first message as it is, follow-ups rewritten, each from its article', async (i, conversation) => {
    const answers = await converse(service, `seed-online-${i}`, conversation.map(([m]) => m));
    answers.forEach((answer, turn) => expect(answer.cited.slice(0, 3)).toContain(conversation[turn]![1]));
    expect(answers[0]!.retrieval).toMatchObject({ query: conversation[0]![0], method: 'message' });
    answers.slice(1).forEach((answer, k) => expect(answer.retrieval).toMatchObject({ query: REWRITES[conversation[k + 1]![0]], method: 'model' }));
    // The model's rewrite stands alone: no earlier words are added to it.
    answers.slice(1).forEach((answer) => expect(answer.retrieval.history).toBeUndefined());

    // One rewrite call per follow-up, none for the first message, on its own model, with the conversation.
    const requests = rewriteRequests();
    expect(requests).toHaveLength(conversation.length - 1);
    for (const [k, request] of requests.entries()) {
      expect(request.body.model).toBe('gpt-4o-mini-rewriter');
      const prompt = request.body.messages[1].content as string;
      expect(prompt).toContain(`Customer: ${conversation[0]![0]}`);
      expect(prompt).toContain('Agent: Here is what our help center says.');
      expect(prompt).toContain(`Latest customer message: ${conversation[k + 1]![0]}`);
    }
  });

  it('does not call the rewrite for a later question that stands alone', async () => {
    await converse(service, 'seed-online-standalone', ['What is your refund policy?', 'Do you ship to Norway?']);
    expect(rewriteRequests()).toHaveLength(0);
  });

  it("counts the rewrite's tokens in the metrics under its own purpose", async () => {
    await converse(service, 'seed-online-metrics', ['What is your refund policy?', 'How long does the process take?']);
    const metrics = await (await fetch(`${service.baseURL}/metrics`)).text();
    expect(metrics).toMatch(/llm_tokens_total\{[^}]*model="gpt-4o-mini-rewriter"[^}]*purpose="rewrite"[^}]*\} [1-9]/);
  });

  it('falls back to the topic method when the rewrite fails, and still answers from the article', async () => {
    stub.setDefaultChat((body) => (isRewrite(body) ? { status: 500 } : { content: 'Here is what our help center says.' }));
    const answers = await converse(service, 'seed-online-fallback', ['What is your refund policy?', 'How long does the process take?']);
    expect(rewriteRequests().length).toBeGreaterThan(0);
    expect(answers[1]!.retrieval).toMatchObject({
      query: 'How long does the process take?',
      vector_query: 'What is your refund policy?\nHow long does the process take?',
      history: [{ text: 'What is your refund policy?', weight: 0.5 }],
      method: 'topic',
    });
    expect(answers[1]!.cited.slice(0, 3)).toContain('refunds.md');
  });
});
