/**
 * The customer's language through the whole service, with the real ChatOpenAI
 * client against the loopback OpenAI-compatible stub: a German customer's turn asks
 * the model for a German answer, the English help center is searched with the
 * question rewritten in English, a short follow-up keeps the conversation German,
 * the request's `language` overrides (the history shows the kept language), and a bad
 * `language` is refused with nothing stored.
 */
import { defaultActReply } from '../../src/chat/conversation-acts';
import type { RetrievalRecord } from '../../src/knowledge/retrieval-record';
import { REWRITE_INSTRUCTIONS } from '../../src/knowledge/query-rewriter';
import { startOpenAIStub, type OpenAIStub, type RecordedRequest } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';

jest.setTimeout(240_000);

const GERMAN_QUESTION = 'Wie lange dauert eine Rückerstattung, nachdem ich die Ware zurückgeschickt habe?';
const ENGLISH_QUERY = 'How long does the refund process take?';

let stub: OpenAIStub;
let service: TestService;
const isRewrite = (body: any) => body.messages?.[0]?.content === REWRITE_INSTRUCTIONS;
/** Everything the answering model was sent in one request, as one text. */
const promptText = (request: RecordedRequest) => (request.body.messages as { content: unknown }[]).map((m) => String(m.content)).join('\n');
const answerRequests = () => stub.chatRequests().filter((r) => !isRewrite(r.body));
const rewriteRequests = () => stub.chatRequests().filter((r) => isRewrite(r.body));

beforeAll(async () => {
  stub = await startOpenAIStub();
  // The stub's vectors mean nothing: the full text alone finds the article (as in follow-up-retrieval.test.ts).
  service = await startTestService({ env: openAIStubEnv(stub.baseURL, { QUERY_REWRITE: 'model', RETRIEVAL_SEMANTIC_WEIGHT: '0' }) });
});
afterAll(async () => {
  await service.close();
  await stub.close();
});
beforeEach(() => {
  stub.reset();
  stub.setDefaultChat((body) => (isRewrite(body) ? { content: ENGLISH_QUERY } : { content: 'Die Rückerstattung dauert 5 bis 10 Werktage.' }));
});

async function storedRetrieval(sessionId: string, messageId: string): Promise<RetrievalRecord> {
  const stored = await service.deps.store.listMessagesAfter(sessionId, 0);
  return stored.find((m) => m.id === messageId)!.metadata['retrieval'] as RetrievalRecord;
}

it("asks the model for a German answer to a German customer, and searches the English help center in English", async () => {
  expect(await service.deps.store.knowledgeLanguages()).toEqual(['en']);
  const { status, body } = await service.postChat({ message: GERMAN_QUESTION, session_id: 'lang-de' });
  expect(status).toBe(200);
  expect(body.language).toBe('de');

  // The rewrite call was asked for an English query, for a first message too.
  expect(rewriteRequests()).toHaveLength(1);
  expect(promptText(rewriteRequests()[0]!)).toContain('write the search query in English');
  expect(promptText(rewriteRequests()[0]!)).toContain(GERMAN_QUESTION);
  const retrieval = await storedRetrieval('lang-de', body.message_id);
  expect(retrieval.query).toBe(ENGLISH_QUERY);
  expect(body.sources.map((s: { source: string }) => s.source)).toContainEqual(expect.stringContaining('refunds.md'));

  // The answering model is told the customer's language.
  expect(answerRequests()).toHaveLength(1);
  expect(promptText(answerRequests()[0]!)).toContain('The customer writes in German (language code "de"). Write your whole answer in German');
  expect((await service.deps.store.getSession('lang-de'))!.language).toBe('de');
});

it('keeps the conversation German through short follow-ups, even ones that read as English', async () => {
  await service.postChat({ message: GERMAN_QUESTION, session_id: 'lang-follow-up' });
  for (const followUp of ['ok', 'Und der Versand?', 'Okay, super, thanks!']) {
    stub.reset();
    stub.setDefaultChat((body) => (isRewrite(body) ? { content: 'shipping times' } : { content: 'Gern.' }));
    const { status, body } = await service.postChat({ message: followUp, session_id: 'lang-follow-up' });
    expect(status).toBe(200);
    expect(body.language).toBe('de');
    // Small talk is answered by the conversation acts, in German and without the model; the question by the model, told German.
    if (followUp === 'Und der Versand?') expect(promptText(answerRequests()[0]!)).toContain('Write your whole answer in German');
    else expect({ requests: answerRequests().length, response: body.response }).toEqual({ requests: 0, response: defaultActReply(followUp === 'ok' ? 'acknowledgement' : 'thanks', 'de') });
  }
  expect((await service.deps.store.getSession('lang-follow-up'))!.language).toBe('de');
  // The review console's history shows it, for a person who takes over.
  const history = await service.getHistory('lang-follow-up');
  expect(history.status).toBe(200);
  expect(history.body.language).toBe('de');
});

it("lets the request's language override the message's, and keeps it", async () => {
  const { status, body } = await service.postChat({ message: GERMAN_QUESTION, session_id: 'lang-override', language: 'fr' });
  expect(status).toBe(200);
  expect(body.language).toBe('fr');
  expect(promptText(answerRequests()[0]!)).toContain('The customer writes in French (language code "fr")');
  expect((await service.deps.store.getSession('lang-override'))!.language).toBe('fr');
});

it("answers a message too short to tell in the widget's language (Accept-Language), without keeping it", async () => {
  const { body } = await service.postChat({ message: 'ok', session_id: 'lang-widget' }, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' });
  expect(body.language).toBe('de');
  expect((await service.deps.store.getSession('lang-widget'))!.language).toBeNull();
  expect((await service.getHistory('lang-widget')).body.language).toBeNull();
});

it.each([['deutsch'], ['DE'], ['de-DE'], ['xx'], [42]])('refuses language %p with 400 and stores nothing', async (language) => {
  const before = { sessions: await service.countRows('chat_sessions'), messages: await service.countRows('chat_messages') };
  const { status, body } = await service.postChat({ message: GERMAN_QUESTION, session_id: 'lang-bad', language });
  expect(status).toBe(400);
  expect(body.error.code).toBe('invalid_request');
  expect(body.error.message).toMatch(/language must be (a two-letter lowercase ISO 639-1 code|an ISO 639-1 language code|a string)/);
  expect(stub.chatRequests()).toHaveLength(0);
  expect({ sessions: await service.countRows('chat_sessions'), messages: await service.countRows('chat_messages') }).toEqual(before);
});

it('documents the language field in /openapi.json', async () => {
  const { body } = await service.request('GET', '/openapi.json', undefined, null);
  const chat = body.paths['/api/v1/chat'].post.requestBody.content['application/json'].schema;
  const schema = chat.properties ? chat : body.components.schemas[chat.$ref.split('/').pop()];
  expect(schema.properties.language).toMatchObject({ type: 'string', pattern: '^[a-z]{2}$' });
});
