/**
 * An answer cites what the model found with search_knowledge_base as well as what
 * the graph's own retrieval found: in the JSON answer, in the stored answer, and
 * in the stream (a second, complete `sources` event after the search). The real
 * ChatOpenAI client against the loopback OpenAI-compatible stub.
 */
import { parseKnowledge } from '../../src/agent/prompts';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { postStream } from '../support/sse';
import { openAIStubEnv, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

let stub: OpenAIStub;
let service: TestService;

beforeAll(async () => {
  stub = await startOpenAIStub();
  // One passage per search, so the graph's retrieval and the model's search find different articles.
  service = await startTestService({ env: openAIStubEnv(stub.baseURL, { RETRIEVAL_TOP_K: '1' }) });
});
afterAll(async () => {
  await service.close();
  await stub.close();
});
beforeEach(() => stub.reset());

const QUESTION = 'Can I pay by invoice?';
const SEARCH = 'warranty claim for a broken lamp';

function searchThenAnswer(): void {
  stub.enqueueChat(
    { toolCalls: [{ id: 'call-search', name: 'search_knowledge_base', arguments: { query: SEARCH } }] },
    { content: 'Yes; and a broken lamp is covered by the warranty.' },
  );
}

/** What the graph retrieved (the first model request's knowledge message, the system message before the question) and what the search found (the tool message the model was sent next). */
function foundSources(): { retrieved: string[]; searched: string[] } {
  const [first, second] = stub.chatRequests();
  const system = first!.body.messages.findLast((m: { role: string }) => m.role === 'system').content as string;
  const toolMessage = second!.body.messages.find((m: { role: string }) => m.role === 'tool').content as string;
  return { retrieved: parseKnowledge(system).map((p) => p.source), searched: parseKnowledge(toolMessage).map((p) => p.source) };
}

it('cites the passages the search tool found besides the retrieved ones, in the answer and in the stored answer', async () => {
  searchThenAnswer();
  const answer = await service.postChat({ message: QUESTION, session_id: 'search-sources' });
  expect(answer.status).toBe(200);

  const { retrieved, searched } = foundSources();
  expect(retrieved).toHaveLength(1);
  expect(searched).toHaveLength(1);
  expect(searched).not.toEqual(retrieved); // else this test would prove nothing
  expect(answer.body.sources.map((s: { source: string }) => s.source)).toEqual([...retrieved, ...searched]);

  const history = await service.request('GET', '/api/v1/chat/history/search-sources', undefined, TEST_AGENT_KEY);
  const stored = history.body.messages.at(-1);
  expect(stored.role).toBe('assistant');
  expect(stored.sources).toEqual(answer.body.sources);
});

it('streams the sources again, whole, once the search has added some; the last equals done', async () => {
  searchThenAnswer();
  const streamed = await postStream(`${service.baseURL}/api/v1/chat/stream`, { message: QUESTION, session_id: 'search-sources-stream' });
  const { retrieved, searched } = foundSources();
  const sourceEvents = streamed.events.filter((e) => e.event === 'sources').map((e) => e.data.sources.map((s: { source: string }) => s.source));
  expect(sourceEvents).toEqual([retrieved, [...retrieved, ...searched]]);
  const done = streamed.events.at(-1)!;
  expect(done.event).toBe('done');
  expect(done.data.sources.map((s: { source: string }) => s.source)).toEqual([...retrieved, ...searched]);
  // Both sources events come before the first piece of text.
  const names = streamed.events.map((e) => e.event);
  expect(names.lastIndexOf('sources')).toBeLessThan(names.indexOf('token'));
});

it('sends sources once when the model searches nothing', async () => {
  stub.enqueueChat({ content: 'Yes, invoices are possible.' });
  const streamed = await postStream(`${service.baseURL}/api/v1/chat/stream`, { message: QUESTION, session_id: 'no-search' });
  expect(streamed.events.filter((e) => e.event === 'sources')).toHaveLength(1);
});
