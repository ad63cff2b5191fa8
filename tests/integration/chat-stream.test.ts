import { HUMAN_HANDOFF_OFFER } from '../../src/chat/escalation';
import type { OpenAIStub } from '../support/openai-stub';
import { postStream, type SseEvent } from '../support/sse';
import { startOfflineAndOnline, TEST_AGENT_KEY, type OfflineAndOnline, type TestService } from '../support/test-service';

/**
 * POST /api/v1/chat/stream (Server-Sent Events), the customer's read-back with a
 * session token, and the review console's session list.
 */
const SUMMARY_MODEL = 'stub-summary-model';

let offline: TestService;
let online: TestService;
let stub: OpenAIStub;

let services: OfflineAndOnline | undefined;

beforeAll(async () => {
  services = await startOfflineAndOnline({
    offline: { env: { STREAM_HEARTBEAT_MS: '100' } },
    onlineEnv: { OPENAI_TIMEOUT_MS: '5000', SUMMARY_MODEL, STREAM_HEARTBEAT_MS: '100' },
  });
  ({ stub, offline, online } = services);
});
afterAll(() => services?.close());
beforeEach(() => stub.reset());

const streamURL = (service: TestService) => `${service.baseURL}/api/v1/chat/stream`;
const names = (events: SseEvent[]) => events.map((e) => e.event);
const tokens = (events: SseEvent[]) => events.filter((e) => e.event === 'token').map((e) => e.data.delta as string);

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('POST /api/v1/chat/stream on the embedded default', () => {
  it('sends the sources, then the answer in pieces, then done with the same payload as /api/v1/chat', async () => {
    const streamed = await postStream(streamURL(offline), { message: 'How long does a refund take?', session_id: 'stream-1' });
    expect(streamed.status).toBe(200);
    expect(streamed.contentType).toMatch(/^text\/event-stream/);
    const order = names(streamed.events);
    expect(order[0]).toBe('sources');
    expect(order.at(-1)).toBe('done');
    expect(order.filter((n) => n === 'token').length).toBeGreaterThan(5);
    expect(order.slice(1, -1).every((n) => n === 'token')).toBe(true);

    const done = streamed.events.at(-1)!.data;
    expect(tokens(streamed.events).join('')).toBe(done.response);
    expect(streamed.events[0]!.data.sources).toEqual(done.sources);

    // The same question on the JSON endpoint: the same payload, field for field.
    const json = await offline.postChat({ message: 'How long does a refund take?', session_id: 'stream-json' });
    expect(Object.keys(done).sort()).toEqual(Object.keys(json.body).sort());
    expect(done.session_token).toEqual(expect.any(String));

    const history = await offline.getHistory('stream-1');
    expect(history.body.messages.map((m: any) => m.content)).toEqual(['How long does a refund take?', done.response]);
  });

  it('streams a tool-using answer: only the final answer’s text, with the lookup stored', async () => {
    const streamed = await postStream(streamURL(offline), { message: 'Where is ZX-43466? Postcode 40121', session_id: 'stream-tool', agent_type: 'orders' });
    const done = streamed.events.at(-1)!.data;
    expect(done.response).toContain('Order ZX-43466 is in transit');
    expect(tokens(streamed.events).join('')).toBe(done.response);
    // Grounded in the order lookup, so not escalated although no help-center passage matched well.
    expect(done.escalated).toBe(false);
    const history = await offline.getHistory('stream-tool');
    expect(history.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('streams the offer of a human agent too when the answer is escalated', async () => {
    const streamed = await postStream(streamURL(offline), { message: 'Who won the football world cup?' });
    const done = streamed.events.at(-1)!.data;
    expect(done.escalated).toBe(true);
    expect(done.response).toContain(HUMAN_HANDOFF_OFFER);
    expect(tokens(streamed.events).join('')).toBe(done.response);
  });

  it('answers bad input with a JSON 4xx before any stream starts, storing nothing', async () => {
    const before = await offline.countRows('chat_messages');
    const bad = await postStream(streamURL(offline), { message: '' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_request');
    expect(await offline.countRows('chat_messages')).toBe(before);
  });
});

describe('POST /api/v1/chat/stream with the real ChatOpenAI client', () => {
  it('streams the model’s own pieces and never the summarizer’s', async () => {
    stub.setDefaultChat((body) =>
      body.model === SUMMARY_MODEL ? { content: 'SECRET SUMMARY of the earlier turns' } : { content: 'Your parcel is on its way to you.' },
    );
    const strategy = { mode: 'summarize', context_limit: 2, keep_last_n_turns: 1 };
    for (const message of ['First question', 'Second question']) {
      expect((await online.postChat({ message, session_id: 'stream-summary', memory_strategy: strategy })).status).toBe(200);
    }
    stub.requests.length = 0;
    const streamed = await postStream(
      streamURL(online),
      { message: 'Third question', session_id: 'stream-summary', memory_strategy: strategy },
      { headers: { 'x-session-token': online.sessionToken('stream-summary')! } },
    );
    expect(stub.chatRequests().some((r) => r.body.model === SUMMARY_MODEL && r.body.stream === true)).toBe(true);
    const done = streamed.events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.memory.summarized).toBe(true);
    expect(tokens(streamed.events).join('')).toBe('Your parcel is on its way to you.');
    expect(tokens(streamed.events).length).toBeGreaterThan(3);
    expect(JSON.stringify(streamed.events.filter((e) => e.event === 'token'))).not.toContain('SECRET');
    expect(done.data.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('keeps what the model says beside a tool call: the pieces still add up to the answer, which keeps that text too', async () => {
    // As hosted models sometimes do: a few words, then the tool call, in one reply.
    stub.enqueueChat(
      { content: '  Let me look that order up for you. ', toolCalls: [{ id: 'call-1', name: 'lookup_order', arguments: { order_id: 'ZX-14440' } }] },
      { content: ' Order ZX-14440 is on its way.  ' },
    );
    const streamed = await postStream(streamURL(online), { message: 'Where is my order ZX-14440?', session_id: 'stream-preamble' });
    const done = streamed.events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.response).toBe('Let me look that order up for you.\n\nOrder ZX-14440 is on its way.');
    expect(tokens(streamed.events).join('')).toBe(done.data.response);
    // The stored answer is what the customer saw; the tool-call message keeps its own words.
    const history = await online.getHistory('stream-preamble');
    expect(history.body.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Where is my order ZX-14440?'],
      ['assistant', '  Let me look that order up for you. '],
      ['tool', expect.stringContaining('ZX-14440')],
      ['assistant', done.data.response],
    ]);
  });

  it('answers the JSON endpoint with the same text', async () => {
    stub.enqueueChat(
      { content: 'Checking.', toolCalls: [{ id: 'call-1', name: 'lookup_order', arguments: { order_id: 'ZX-14440' } }] },
      { content: 'It is on its way.' },
    );
    const answer = await online.postChat({ message: 'Where is my order ZX-14440?' });
    expect(answer.body.response).toBe('Checking.\n\nIt is on its way.');
  });

  it('sends heartbeats while the model is thinking', async () => {
    stub.enqueueChat({ delayMs: 450, content: 'Sorry for the wait.' });
    const streamed = await postStream(streamURL(online), { message: 'How long does delivery take?', session_id: 'stream-heartbeat' });
    expect(streamed.comments.filter((c) => c === 'ping').length).toBeGreaterThanOrEqual(2);
    expect(streamed.events.at(-1)!.event).toBe('done');
  });

  it('reports a model failure as an error event and stores nothing', async () => {
    stub.enqueueChat({ status: 500, error: 'upstream exploded' });
    const streamed = await postStream(streamURL(online), { message: 'How long does delivery take?', session_id: 'stream-fail' });
    expect(streamed.events.at(-1)).toEqual({ event: 'error', data: { code: 'model_unavailable', message: expect.any(String) } });
    expect(JSON.stringify(streamed.events)).not.toContain('exploded');
    expect(await online.deps.store.getSession('stream-fail')).toBeNull();
  });

  it('cancels the model request when the client disconnects mid-stream, and stores nothing', async () => {
    stub.enqueueChat({ delayMs: 3000, content: 'Too late.' });
    const streamed = await postStream(
      streamURL(online),
      { message: 'Where is my parcel?', session_id: 'stream-hangup' },
      { onEvent: (e) => e.event === 'sources' },
    );
    expect(names(streamed.events)).toEqual(['sources']);
    await until(() => stub.chatRequests().length === 1 && stub.chatRequests()[0]!.aborted, 'the model request to be cancelled');
    // Give the service time it would need to (wrongly) store the turn.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await online.deps.store.getSession('stream-hangup')).toBeNull();
  });
});

describe('the customer’s own conversation, by session token', () => {
  const readBack = async (sessionId: string, token?: string) => {
    const response = await fetch(`${offline.baseURL}/api/v1/chat/conversation/${sessionId}`, {
      headers: token ? { 'x-session-token': token } : {},
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('issues a token with a new session, accepts it back, and shows only the customer’s messages and the answers', async () => {
    const first = await offline.postChat({ message: 'Where is my order ZX-43466? Postcode 40121', agent_type: 'orders' });
    const { session_id: sessionId, session_token: token } = first.body;
    expect(token).toEqual(expect.any(String));

    const again = await offline.postChat({ message: 'Thanks! How do returns work?', session_id: sessionId }, { 'x-session-token': token });
    expect(again.body.session_token).toBe(token);

    const mine = await readBack(sessionId, token);
    expect(mine.status).toBe(200);
    expect(mine.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(mine.body.messages[1].content).toContain('Order ZX-43466');
    expect(JSON.stringify(mine.body)).not.toContain('tracking_events');
  });

  it('lets nobody who only knows the session id continue it, read it or get its token', async () => {
    const first = await offline.postChat({ message: 'Hello there', session_id: 'someone-else' });
    expect(first.body.session_token).toEqual(expect.any(String));
    const before = await offline.countRows('chat_messages');
    for (const token of ['', 'forged', first.body.session_token.slice(0, -1) + 'x']) {
      const intruder = await offline.postChat({ message: 'Me too', session_id: 'someone-else' }, { 'x-session-token': token });
      expect(intruder.status).toBe(403);
      expect(intruder.body.error.code).toBe('session_token_required');
      expect(JSON.stringify(intruder.body)).not.toContain(first.body.session_token);
    }
    const streamed = await postStream(streamURL(offline), { message: 'Me too', session_id: 'someone-else' });
    expect(streamed.status).toBe(403);
    expect(await offline.countRows('chat_messages')).toBe(before);

    // The agent key may continue any session (a shop's back office, the review console).
    const agent = await offline.postChat({ message: 'An agent here', session_id: 'someone-else' }, { authorization: `Bearer ${TEST_AGENT_KEY}`, 'x-session-token': '' });
    expect(agent.status).toBe(200);

    expect((await readBack('someone-else')).status).toBe(401);
    expect((await readBack('someone-else', 'forged')).status).toBe(401);
    expect((await readBack('someone-else', first.body.session_token.slice(0, -1) + 'x')).status).toBe(401);
    // A valid token for another session opens nothing here.
    const other = await offline.postChat({ message: 'Hi' });
    expect((await readBack('someone-else', other.body.session_token)).status).toBe(401);
  });
});

describe('GET /api/v1/chat/sessions (review console)', () => {
  const list = (query: string, key: string | null = TEST_AGENT_KEY) => offline.request('GET', `/api/v1/chat/sessions${query}`, undefined, key);

  beforeAll(async () => {
    for (let i = 0; i < 7; i++) {
      const { status } = await offline.postChat({ message: `Listing question number ${i} about 100%_sure refunds`, session_id: `list-${i}` });
      expect(status).toBe(200);
    }
    await offline.postChat({ message: 'Who won the football world cup?', session_id: 'list-escalated' });
  });

  it('needs the agent key', async () => {
    expect((await list('', null)).status).toBe(401);
  });

  it('lists newest activity first and pages through every session exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: any } = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.sessions.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.sessions.map((s: any) => s.session_id));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor && pages < 50);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(await offline.countRows('chat_sessions'));
    const first = await list('?limit=2');
    expect(first.body.sessions[0]).toMatchObject({ session_id: 'list-escalated', escalated: true, message_count: 2 });
    expect(first.body.sessions[1]).toMatchObject({ session_id: 'list-6', title: 'Listing question number 6 about 100%_sure refunds' });
    expect(Date.parse(first.body.sessions[0].updated_at)).toBeGreaterThanOrEqual(Date.parse(first.body.sessions[1].updated_at));
  });

  it('finds sessions by text (wildcards taken literally) and filters by escalation', async () => {
    const found = await list('?q=number%203');
    expect(found.body.sessions.map((s: any) => s.session_id)).toEqual(['list-3']);
    expect((await list('?q=100%25_sure')).body.sessions).toHaveLength(7);
    expect((await list('?q=1_0')).body.sessions).toHaveLength(0);
    const escalated = await list('?escalated=true&limit=100');
    expect(escalated.body.sessions.every((s: any) => s.escalated)).toBe(true);
    expect(escalated.body.sessions.map((s: any) => s.session_id)).toContain('list-escalated');
  });

  it.each([
    ['?limit=0', 'limit must be at least 1'],
    ['?limit=101', 'limit must be at most 100'],
    ['?cursor=not-a-cursor', 'cursor must be a next_cursor from a previous page'],
    ['?escalated=maybe', 'escalated must be true or false'],
  ])('refuses %s with a 400', async (query, message) => {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    expect(body.error.message).toContain(message);
  });
});
