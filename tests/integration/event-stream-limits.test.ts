/**
 * The caps on open event streams (EVENT_STREAMS_PER_CLIENT, EVENT_STREAMS_PER_INSTANCE)
 * on the embedded default, through the real app over HTTP. Clients are told apart
 * by X-Forwarded-For (TRUST_PROXY=1), as behind the load balancer they would be.
 */
import type { EventStreams } from '../../src/http/routes/handoff';
import { openEventStream, type EventStreamClient } from '../support/event-stream';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

describe('event stream caps (PGlite)', () => {
  let service: TestService;
  let streams: EventStreams;
  let sessionId: string;
  let token: string;
  const opened: EventStreamClient[] = [];

  beforeAll(async () => {
    service = await startTestService({
      env: { EVENT_STREAMS_PER_CLIENT: '2', EVENT_STREAMS_PER_INSTANCE: '4', TRUST_PROXY: '1', STREAM_HEARTBEAT_MS: '200' },
    });
    streams = service.deps.appParts.handoff.streams;
    const answer = await service.postChat({ message: 'How long does shipping take?' });
    sessionId = answer.body.session_id;
    token = answer.body.session_token;
  }, 60_000);
  afterEach(async () => {
    for (const stream of opened.splice(0)) stream.close();
    await until(() => streams.held === 0);
  });
  afterAll(() => service?.close());

  const url = () => `${service.baseURL}/api/v1/chat/conversation/${sessionId}/events`;
  const headersOf = (client: string | null): Record<string, string> =>
    client === null ? { authorization: `Bearer ${TEST_AGENT_KEY}` } : { 'x-session-token': token, 'x-forwarded-for': client };

  /** Opens a stream as `client` (null: the console, with the agent key) and waits for `ready`. */
  async function open(client: string | null): Promise<EventStreamClient> {
    const stream = await openEventStream(url(), headersOf(client));
    opened.push(stream);
    expect(stream.status).toBe(200);
    await stream.waitFor((e) => e.event === 'ready');
    return stream;
  }

  /** A refused stream: status, Retry-After and the JSON error. */
  async function refused(client: string | null): Promise<{ status: number; retryAfter: string | null; body: any }> {
    const response = await fetch(url(), { headers: { accept: 'text/event-stream', ...headersOf(client) } });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
  }

  it('refuses a client its third stream with 429 too_many_streams, while another client still gets one', async () => {
    await open('203.0.113.1');
    await open('203.0.113.1');
    const third = await refused('203.0.113.1');
    expect(third.status).toBe(429);
    expect(third.retryAfter).toBe('5');
    expect(third.body.error.code).toBe('too_many_streams');
    expect(third.body.error.message).toContain('EVENT_STREAMS_PER_CLIENT');
    expect(streams.heldBy('203.0.113.1')).toBe(2);

    await open('203.0.113.2');
    expect(streams.held).toBe(3);
  });

  it('gives the slot back when the client hangs up, so it may open another', async () => {
    const first = await open('203.0.113.3');
    await open('203.0.113.3');
    expect((await refused('203.0.113.3')).status).toBe(429);

    first.close();
    await until(() => streams.heldBy('203.0.113.3') === 1);
    const again = await open('203.0.113.3');
    expect(again.events[0]!.event).toBe('ready');
    expect(streams.heldBy('203.0.113.3')).toBe(2);
  });

  it('refuses streams beyond the instance cap with 503 streams_full and Retry-After, and keeps answering everything else', async () => {
    await open('198.51.100.1');
    await open('198.51.100.2');
    await open('198.51.100.3');
    await open(null); // the console's stream counts against the instance, not a client
    expect(streams.held).toBe(4);

    for (const client of ['198.51.100.4', null]) {
      const full = await refused(client);
      expect(full).toMatchObject({ status: 503, retryAfter: '5', body: { error: { code: 'streams_full' } } });
    }
    // The instance is full of streams, not fallen over: chat and health answer.
    expect((await service.request('GET', '/health', undefined, null)).status).toBe(200);
    expect((await service.postChat({ message: 'Can I return an opened item?' })).status).toBe(200);

    opened[0]!.close();
    await until(() => streams.held === 3);
    await open('198.51.100.4');
  });

  it('does not count agent-key streams against a client', async () => {
    await open(null);
    await open(null);
    await open(null);
    expect(streams.held).toBe(3);
  });

  it('gives the slot back when the stream is refused for another reason', async () => {
    const unknown = await fetch(`${service.baseURL}/api/v1/chat/conversation/no-such-session/events`, { headers: headersOf(null) });
    expect(unknown.status).toBe(404);
    const badToken = await fetch(url(), { headers: { 'x-session-token': 'wrong', 'x-forwarded-for': '192.0.2.9' } });
    expect(badToken.status).toBe(401);
    expect(streams.held).toBe(0);
    expect(streams.heldBy('192.0.2.9')).toBe(0);
  });
});

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
