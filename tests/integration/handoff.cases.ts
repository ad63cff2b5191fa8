/**
 * Human takeover over HTTP, as one set of cases that runs on PGlite
 * (handoff.test.ts) and on the real PostgreSQL server (handoff-postgres.test.ts):
 * the same API, the same SQL functions, two very different databases (the server
 * shows real concurrency, PGlite runs one statement at a time).
 */
import type { OpenAIStub } from '../support/openai-stub';
import { openEventStream } from '../support/event-stream';
import { postStream } from '../support/sse';
import { TEST_AGENT_KEY } from '../support/test-service';

export interface HandoffHarness {
  /** One or two instances of the service on one database (a customer may land on either). */
  baseURLs: string[];
  stub: OpenAIStub;
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Ends the event streams of the first instance, as its shutdown does. */
  endStreams(): void;
}

const agent = { authorization: `Bearer ${TEST_AGENT_KEY}` };

async function call(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined && { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  const result = { status: response.status, body } as { status: number; body: any; headers: Headers };
  // Not enumerable: tests compare { status, body } whole.
  Object.defineProperty(result, 'headers', { value: response.headers, enumerable: false });
  return result;
}

export function handoffCases(harness: () => HandoffHarness): void {
  const base = (i = 0) => harness().baseURLs[i % harness().baseURLs.length]!;
  const tokens = new Map<string, string>();
  let counter = 0;

  /** A customer's message, with the session's token once it has one, on instance `i`. */
  const customer = async (sessionId: string, message: string, i = 0) => {
    const token = tokens.get(sessionId);
    const r = await call(`${base(i)}/api/v1/chat`, { method: 'POST', body: { session_id: sessionId, message }, headers: token ? { 'x-session-token': token } : {} });
    if (typeof r.body?.session_token === 'string') tokens.set(sessionId, r.body.session_token);
    return r;
  };
  const conversationCall = (sessionId: string, action: string, body?: unknown, i = 0, headers = agent) =>
    call(`${base(i)}/api/v1/conversations/${sessionId}/${action}`, { method: 'POST', body, headers });
  const rows = (sessionId: string) =>
    harness().query<{ seq: number; role: string; content: string; metadata: any }>(
      'select seq, role, content, metadata from chat_messages where session_id = $1 order by seq',
      [sessionId],
    );
  const messageCount = async (sessionId: string) =>
    (await harness().query<{ message_count: number }>('select message_count from chat_sessions where session_id = $1', [sessionId]))[0]!.message_count;
  /** A new session with one escalated bot turn (the knowledge base finds nothing good enough). */
  const escalatedSession = async () => {
    const sessionId = `handoff-${Date.now().toString(36)}-${++counter}`;
    const first = await customer(sessionId, 'My parcel arrived broken, I want to speak to a person.');
    expect(first.status).toBe(200);
    expect(first.body.escalated).toBe(true);
    return sessionId;
  };
  const expectConsistent = async (sessionId: string) => {
    const stored = await rows(sessionId);
    expect(stored.map((r) => r.seq)).toEqual(stored.map((_, i) => i + 1));
    expect(await messageCount(sessionId)).toBe(stored.length);
    return stored;
  };

  it('lists an escalated conversation as waiting until a person takes it over, then as held by that person', async () => {
    const sessionId = await escalatedSession();
    const waiting = await call(`${base()}/api/v1/chat/sessions?waiting=true&limit=100`, { headers: agent });
    const listed = waiting.body.sessions.find((s: any) => s.session_id === sessionId);
    expect(listed).toMatchObject({ handler: 'bot', agent_name: null, waiting: true });
    expect(Date.parse(listed.waiting_since)).toBeLessThanOrEqual(Date.now());

    const taken = await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' });
    expect(taken).toEqual({ status: 200, body: { session_id: sessionId, handler: 'human', agent_name: 'Maria' } });

    const stillWaiting = await call(`${base()}/api/v1/chat/sessions?waiting=true&limit=100`, { headers: agent });
    expect(stillWaiting.body.sessions.map((s: any) => s.session_id)).not.toContain(sessionId);
    const held = await call(`${base()}/api/v1/chat/sessions?handler=human&limit=100`, { headers: agent });
    expect(held.body.sessions.find((s: any) => s.session_id === sessionId)).toMatchObject({ handler: 'human', agent_name: 'Maria', waiting: false });
    const bots = await call(`${base()}/api/v1/chat/sessions?handler=bot&limit=100`, { headers: agent });
    expect(bots.body.sessions.map((s: any) => s.session_id)).not.toContain(sessionId);
    expect((await call(`${base()}/api/v1/chat/sessions?handler=robot`, { headers: agent })).status).toBe(400);
    expect((await call(`${base()}/api/v1/chat/sessions?waiting=maybe`, { headers: agent })).status).toBe(400);
  });

  it('stores a customer message to a held conversation without calling the model: 202 on /chat, a queued event on /chat/stream', async () => {
    const sessionId = await escalatedSession();
    await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' });
    const modelCalls = harness().stub.chatRequests().length;

    const queued = await customer(sessionId, 'Hello? Is anyone there?', 1);
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ session_id: sessionId, handler: 'human', agent_name: 'Maria', message_id: expect.any(String) });

    const streamed = await postStream(`${base()}/api/v1/chat/stream`, { session_id: sessionId, message: 'The box was crushed.' }, {
      headers: { 'x-session-token': tokens.get(sessionId)! },
    });
    expect(streamed.status).toBe(202);
    expect(streamed.events).toEqual([{ event: 'queued', data: { session_id: sessionId, handler: 'human', agent_name: 'Maria', message_id: expect.any(String) } }]);
    expect(harness().stub.chatRequests().length).toBe(modelCalls);

    const stored = await expectConsistent(sessionId);
    expect(stored.slice(-2).map((r) => [r.role, r.content])).toEqual([
      ['user', 'Hello? Is anyone there?'],
      ['user', 'The box was crushed.'],
    ]);
    // Without the session's token, a held conversation is no more open than any other.
    expect((await call(`${base()}/api/v1/chat`, { method: 'POST', body: { session_id: sessionId, message: 'hi' } })).status).toBe(403);
  });

  it('stores a message retried with one Idempotency-Key on a held conversation once, however many retries come at once and on whichever instance', async () => {
    const sessionId = await escalatedSession();
    await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' });
    const before = (await rows(sessionId)).length;
    const headers = { 'x-session-token': tokens.get(sessionId)!, 'idempotency-key': `held-${sessionId}` };
    const send = (i: number) => call(`${base(i)}/api/v1/chat`, { method: 'POST', body: { session_id: sessionId, message: 'Hello? Anyone?' }, headers });

    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(i)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(202));
    const messageId = results[0]!.body.message_id;
    for (const r of results) expect(r.body).toEqual({ session_id: sessionId, handler: 'human', agent_name: 'Maria', message_id: messageId });
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);

    // A later retry, on the stream endpoint too, gets the same message back and stores nothing.
    const again = await send(1);
    expect(again).toMatchObject({ status: 202, body: { message_id: messageId } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const streamed = await postStream(`${base()}/api/v1/chat/stream`, { session_id: sessionId, message: 'Hello? Anyone?' }, { headers });
    expect(streamed.events).toEqual([{ event: 'queued', data: { session_id: sessionId, handler: 'human', agent_name: 'Maria', message_id: messageId } }]);
    const stored = await expectConsistent(sessionId);
    expect(stored).toHaveLength(before + 1);
    expect(stored.at(-1)).toMatchObject({ role: 'user', content: 'Hello? Anyone?', metadata: { queued_for: 'Maria' } });
  });

  it('does not store a bot answer whose conversation a person took over while it was being made: the customer is told it is queued for them', async () => {
    const sessionId = await escalatedSession();
    const token = tokens.get(sessionId)!;
    /** Waits until the model has been asked (the answer is being made), then a person takes over. */
    const takeOverWhileAnswering = async (modelCalls: number, agentName: string) => {
      for (let i = 0; i < 400 && harness().stub.chatRequests().length === modelCalls; i++) await new Promise((r) => setTimeout(r, 10));
      expect(harness().stub.chatRequests().length).toBeGreaterThan(modelCalls);
      expect((await conversationCall(sessionId, 'takeover', { agent_name: agentName, force: true }, 1)).status).toBe(200);
    };

    // POST /chat: 202 with the queued message, as for a message sent after the takeover.
    let modelCalls = harness().stub.chatRequests().length;
    harness().stub.enqueueChat({ delayMs: 800, content: 'A late bot answer.' });
    const answering = customer(sessionId, 'Can I get a refund?');
    await takeOverWhileAnswering(modelCalls, 'Maria');
    const answered = await answering;
    expect(answered.status).toBe(202);
    expect(answered.body).toEqual({ session_id: sessionId, handler: 'human', agent_name: 'Maria', message_id: expect.any(String) });

    // POST /chat/stream with an Idempotency-Key: the stream (already open) ends with `queued` instead of `done`.
    await conversationCall(sessionId, 'release');
    modelCalls = harness().stub.chatRequests().length;
    harness().stub.enqueueChat({ delayMs: 800, content: 'Another late bot answer.' });
    const headers = { 'x-session-token': token, 'idempotency-key': `late-${sessionId}` };
    const streaming = postStream(`${base()}/api/v1/chat/stream`, { session_id: sessionId, message: 'Still there?' }, { headers });
    await takeOverWhileAnswering(modelCalls, 'Jonas');
    const streamed = await streaming;
    expect(streamed.status).toBe(200);
    expect(streamed.events.map((e) => e.event)).not.toContain('done');
    expect(streamed.events.at(-1)).toEqual({ event: 'queued', data: { session_id: sessionId, handler: 'human', agent_name: 'Jonas', message_id: expect.any(String) } });
    const queuedId = (streamed.events.at(-1)!.data as { message_id: string }).message_id;
    // Its retry gets the same answer, and neither calls the model nor stores anything again.
    const retried = await call(`${base(1)}/api/v1/chat`, { method: 'POST', body: { session_id: sessionId, message: 'Still there?' }, headers });
    expect(retried).toMatchObject({ status: 202, body: { message_id: queuedId, agent_name: 'Jonas' } });

    const stored = await expectConsistent(sessionId);
    expect(stored.map((r) => r.content)).not.toContain('A late bot answer.');
    expect(stored.map((r) => r.content)).not.toContain('Another late bot answer.');
    expect(stored.slice(2).map((r) => [r.role, r.metadata.queued_for ?? r.metadata.handoff?.agent_name ?? null])).toEqual([
      ['system', 'Maria'],
      ['user', 'Maria'],
      ['system', null],
      ['system', 'Jonas'],
      ['user', 'Jonas'],
    ]);
    expect(stored.filter((r) => r.role === 'user').map((r) => r.content)).toEqual([
      'My parcel arrived broken, I want to speak to a person.',
      'Can I get a refund?',
      'Still there?',
    ]);
  });

  it("stores a person's reply as an assistant message with its author, shown in the history and sent on the customer's event stream", async () => {
    const sessionId = await escalatedSession();
    const token = tokens.get(sessionId)!;
    const stream = await openEventStream(`${base(1)}/api/v1/chat/conversation/${sessionId}/events`, { 'x-session-token': token });
    try {
      expect(stream.status).toBe(200);
      const ready = await stream.waitFor((e) => e.event === 'ready');
      expect(ready.data).toMatchObject({ session_id: sessionId, handler: 'bot', agent_name: null, after_seq: 2 });

      await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' });
      const joined = await stream.waitFor((e) => e.event === 'handler');
      expect(joined.data).toMatchObject({ seq: 3, role: 'system', handoff: { handler: 'human', agent_name: 'Maria' }, author: { type: 'system' } });
      expect(joined.id).toBe('3');

      const reply = await conversationCall(sessionId, 'replies', { content: 'Hi, I am Maria. Sorry about the parcel!' });
      expect(reply.status).toBe(201);
      expect(reply.body).toMatchObject({ session_id: sessionId, seq: 4, role: 'assistant', author: { type: 'human', name: 'Maria' } });
      const delivered = await stream.waitFor((e) => e.event === 'message' && e.data.id === reply.body.id);
      expect(delivered).toMatchObject({ id: '4', data: { content: 'Hi, I am Maria. Sorry about the parcel!', author: { type: 'human', name: 'Maria' } } });

      const history = await call(`${base()}/api/v1/chat/history/${sessionId}`, { headers: agent });
      expect(history.body.messages.map((m: any) => m.author)).toEqual([
        { type: 'customer' },
        { type: 'bot' },
        { type: 'system' },
        { type: 'human', name: 'Maria' },
      ]);
      expect(history.body.total).toBe(4);
      const readBack = await call(`${base()}/api/v1/chat/conversation/${sessionId}`, { headers: { 'x-session-token': token } });
      expect(readBack.body).toMatchObject({ handler: 'human', agent_name: 'Maria' });
      expect(readBack.body.messages.at(-1)).toMatchObject({ content: 'Hi, I am Maria. Sorry about the parcel!', author: { type: 'human', name: 'Maria' } });
    } finally {
      stream.close();
    }
  });

  it('resumes an event stream after Last-Event-ID or after_seq, so nothing is missed or repeated across reconnects', async () => {
    const sessionId = await escalatedSession();
    const token = tokens.get(sessionId)!;
    await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' }); // seq 3
    await conversationCall(sessionId, 'replies', { content: 'First reply' }); // seq 4
    await customer(sessionId, 'Thanks'); // seq 5
    await conversationCall(sessionId, 'replies', { content: 'Second reply' }); // seq 6

    const resumed = await openEventStream(`${base()}/api/v1/chat/conversation/${sessionId}/events`, { 'x-session-token': token, 'last-event-id': '4' });
    const fromQuery = await openEventStream(`${base(1)}/api/v1/chat/conversation/${sessionId}/events?after_seq=2`, { 'x-session-token': token });
    try {
      await resumed.waitFor((e) => e.id === '6');
      await fromQuery.waitFor((e) => e.id === '6');
      expect(resumed.events.filter((e) => e.id).map((e) => [e.id, e.data.content])).toEqual([
        ['5', 'Thanks'],
        ['6', 'Second reply'],
      ]);
      expect(fromQuery.events.filter((e) => e.id).map((e) => e.id)).toEqual(['3', '4', '5', '6']);
    } finally {
      resumed.close();
      fromQuery.close();
    }
    const bad = await openEventStream(`${base()}/api/v1/chat/conversation/${sessionId}/events?after_seq=-1`, { 'x-session-token': token });
    expect(bad.status).toBe(400);
    const noToken = await openEventStream(`${base()}/api/v1/chat/conversation/${sessionId}/events`);
    expect(noToken.status).toBe(401);
    const unknown = await openEventStream(`${base()}/api/v1/chat/conversation/no-such-session/events`, agent);
    expect(unknown.status).toBe(404);
  });

  it('lets one of two people taking over at once win and tells the other (409), unless forced', async () => {
    const sessionId = await escalatedSession();
    const [a, b] = await Promise.all([
      conversationCall(sessionId, 'takeover', { agent_name: 'Maria' }, 0),
      conversationCall(sessionId, 'takeover', { agent_name: 'Jonas' }, 1),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    const winner = a.status === 200 ? a : b;
    expect(loser.body.error.code).toBe('conversation_held');
    expect(loser.body.error.message).toContain(winner.body.agent_name);

    // The one who lost cannot reply in the other's name; the winner can.
    const loserName = winner.body.agent_name === 'Maria' ? 'Jonas' : 'Maria';
    expect((await conversationCall(sessionId, 'replies', { content: 'Me too', agent_name: loserName })).body.error.code).toBe('conversation_held');
    expect((await conversationCall(sessionId, 'replies', { content: 'On it', agent_name: winner.body.agent_name })).status).toBe(201);

    // Taking over again what one holds changes nothing; force takes it from the other.
    expect((await conversationCall(sessionId, 'takeover', { agent_name: winner.body.agent_name })).status).toBe(200);
    const forced = await conversationCall(sessionId, 'takeover', { agent_name: loserName, force: true });
    expect(forced).toEqual({ status: 200, body: { session_id: sessionId, handler: 'human', agent_name: loserName } });
    const stored = await expectConsistent(sessionId);
    // One note per change of hands: the first takeover and the forced one.
    expect(stored.filter((r) => r.role === 'system').map((r) => r.metadata.handoff.agent_name)).toEqual([winner.body.agent_name, loserName]);
  });

  it('keeps seq and message_count consistent when the customer writes while the person replies', async () => {
    const sessionId = await escalatedSession();
    await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' });
    const writes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0 ? customer(sessionId, `customer message ${i}`, i) : conversationCall(sessionId, 'replies', { content: `reply ${i}` }, i),
      ),
    );
    expect(writes.map((w) => w.status).sort()).toEqual([...Array(6).fill(201), ...Array(6).fill(202)]);
    const stored = await expectConsistent(sessionId);
    expect(stored.length).toBe(2 + 1 + 12);
  });

  it("after release the bot answers the customer's next message once, with the person's reply and the unanswered message in its prompt", async () => {
    const sessionId = await escalatedSession();
    await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' });
    await conversationCall(sessionId, 'replies', { content: 'Maria here: a replacement is on its way, order NW-777.' });
    await customer(sessionId, 'And when will it arrive?'); // unanswered when the person leaves
    const modelCalls = harness().stub.chatRequests().length;

    const released = await conversationCall(sessionId, 'release');
    expect(released).toEqual({ status: 200, body: { session_id: sessionId, handler: 'bot' } });
    expect(harness().stub.chatRequests().length).toBe(modelCalls); // nothing answered at release
    expect((await conversationCall(sessionId, 'replies', { content: 'too late' })).body.error.code).toBe('not_held');
    // Releasing again changes nothing.
    expect((await conversationCall(sessionId, 'release')).status).toBe(200);

    const answered = await customer(sessionId, 'Is the replacement the same model?', 1);
    expect(answered.status).toBe(200);
    const prompts = harness().stub.chatRequests().slice(modelCalls);
    expect(prompts.length).toBeGreaterThanOrEqual(1);
    const prompt = JSON.stringify(prompts.at(-1)!.body.messages);
    expect(prompt).toContain('Maria here: a replacement is on its way, order NW-777.');
    expect(prompt.split('And when will it arrive?').length - 1).toBe(1);
    expect(prompt).not.toContain('joined the conversation'); // notes are for people, not the model

    const stored = await expectConsistent(sessionId);
    expect(stored.filter((r) => r.role === 'assistant' && !r.metadata.author).length).toBe(2); // the escalated answer and this one
    const history = await call(`${base()}/api/v1/chat/history/${sessionId}`, { headers: agent });
    expect(history.body.messages.at(-1)).toMatchObject({ role: 'assistant', author: { type: 'bot' }, id: answered.body.message_id });
  });

  it('refuses replies to unknown conversations (404), over the size limit (413), to bot-held ones (409), without the key (401) or malformed (400), storing nothing', async () => {
    const sessionId = await escalatedSession();
    expect((await conversationCall('no-such-session', 'replies', { content: 'Hello' })).status).toBe(404);
    expect((await conversationCall('no-such-session', 'takeover', { agent_name: 'Maria' })).status).toBe(404);
    expect((await conversationCall('no-such-session', 'release')).status).toBe(404);
    expect((await conversationCall(sessionId, 'replies', { content: 'Hello' })).body.error.code).toBe('not_held');
    await conversationCall(sessionId, 'takeover', { agent_name: 'Maria' });
    const before = await rows(sessionId);

    const tooLong = await conversationCall(sessionId, 'replies', { content: 'x'.repeat(4001) });
    expect(tooLong).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect((await conversationCall(sessionId, 'replies', { content: 'Hello' }, 0, {} as typeof agent)).status).toBe(401);
    expect((await conversationCall(sessionId, 'replies', { content: '   ' })).status).toBe(400);
    expect((await conversationCall(sessionId, 'replies', { content: 'Hi', extra: 1 })).status).toBe(400);
    expect((await conversationCall(sessionId, 'takeover', {})).status).toBe(400);
    expect((await conversationCall(sessionId, 'takeover', { agent_name: 'x'.repeat(65) })).status).toBe(400);
    // A name with a bidi override or a zero-width space would display as someone else's.
    for (const disguised of ['Maria\u202Eairam', 'Ma\u200Bria']) {
      const refused = await conversationCall(sessionId, 'takeover', { agent_name: disguised });
      expect(refused).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    }
    expect((await conversationCall(sessionId, 'takeover', 'agent_name=Maria', 0, { ...agent, 'content-type': 'text/plain' } as typeof agent)).status).toBe(415);
    expect((await conversationCall('bad id!', 'replies', { content: 'Hi' })).status).toBe(400);
    expect(await rows(sessionId)).toEqual(before);
  });

  it('sends heartbeats on an open event stream, and ends it with an end event on shutdown', async () => {
    const sessionId = await escalatedSession();
    const stream = await openEventStream(`${base()}/api/v1/chat/conversation/${sessionId}/events`, { 'x-session-token': tokens.get(sessionId)! });
    await stream.waitFor((e) => e.event === 'ready');
    await new Promise((r) => setTimeout(r, 700));
    expect(stream.comments).toContain('ping');
    harness().endStreams();
    expect(await stream.finished).toBe('ended');
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'shutdown' } });
    // A closing instance sends new streams elsewhere.
    const refused = await openEventStream(`${base()}/api/v1/chat/conversation/${sessionId}/events`, { 'x-session-token': tokens.get(sessionId)! });
    expect(refused.status).toBe(503);
  });
}
