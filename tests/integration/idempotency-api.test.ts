/**
 * Idempotency-Key over HTTP: two instances of the service (two apps, each with its
 * own `pg` pool) on one database, answering with the real ChatOpenAI client
 * against the loopback OpenAI-compatible stub, so model calls can be counted.
 * The database is PGlite served over the wire protocol, since every answer
 * retrieves with pgvector, which the loopback PostgreSQL server lacks; the key's
 * SQL functions under real concurrency are tested on that server in
 * idempotency-postgres.test.ts.
 */
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import { applyMigrations } from '../../src/store/migrations';
import { openPostgresDatabase } from '../../src/store/postgres';
import type { SqlDatabase } from '../../src/store/database';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startPgliteServer, type PgliteServer } from '../support/postgres';
import { postStream } from '../support/sse';
import { type AppInstance, closeAppInstances, HELP_CENTER_DIR, listenApp, TEST_AGENT_KEY } from '../support/test-service';

describe('Idempotency-Key on the chat endpoints, two instances on one database', () => {
  let database: PgliteServer;
  let stub: OpenAIStub;
  let db: SqlDatabase;
  let instances: AppInstance[] = [];

  async function startInstance(env: Record<string, string>): Promise<AppInstance> {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: '3',
      AGENT_API_KEY: TEST_AGENT_KEY,
      KNOWLEDGE_SEED_DIR: HELP_CENTER_DIR,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: stub.baseURL,
      OPENAI_MAX_RETRIES: '0',
      ...env,
    });
    const deps = await createDependencies(config, createLogger('silent'));
    return listenApp(deps);
  }

  beforeAll(async () => {
    database = await startPgliteServer(10);
    stub = await startOpenAIStub();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 1 });
    await applyMigrations(db);
    // Instance 0 lets duplicates wait for the first answer; instance 1 answers them 409 at once.
    instances = [await startInstance({}), await startInstance({ IDEMPOTENCY_WAIT_MS: '0' })];
  }, 120_000);
  afterAll(async () => {
    await closeAppInstances(instances);
    await db?.close();
    await stub?.close();
    await database?.close();
  });
  beforeEach(() => stub.reset());

  async function post(instance: number, body: unknown, key?: string) {
    const response = await fetch(`${instances[instance]!.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  }
  /** A stream, and its Idempotent-Replayed header. */
  async function postStreamWithHeaders(url: string, body: unknown, key: string) {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });
    const events = (await response.text())
      .split('\n\n')
      .filter((block) => block.startsWith('event: '))
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        return { event: eventLine!.slice('event: '.length), data: JSON.parse(dataLine!.slice('data: '.length)) };
      });
    return { events, replayed: response.headers.get('idempotent-replayed') };
  }
  const count = async (sql: string, params: unknown[] = []) => (await db.query<{ n: number }>(sql, params))[0]!.n;
  const messagesOf = (sessionId: string) => count('select count(*)::int as n from chat_messages where session_id = $1', [sessionId]);

  it('answers a retry with the stored answer: no second model call, nothing stored again', async () => {
    const body = { message: 'How long does a refund take?' }; // no session id: the first request makes one
    const first = await post(0, body, 'retry-1');
    const retry = await post(1, body, 'retry-1');

    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.body.session_token).toEqual(expect.any(String)); // the session was made for this key's request
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(stub.chatRequests()).toHaveLength(1);
    expect(await messagesOf(first.body.session_id)).toBe(2);
    expect(await count('select count(*)::int as n from chat_sessions where session_id = $1', [first.body.session_id])).toBe(1);
  });

  it('20 concurrent requests with one key across two instances: one model call, one turn, the rest the same answer or 409', async () => {
    stub.setDefaultChat({ delayMs: 400, content: 'Refunds take 5 to 10 business days.' });
    const body = { message: 'How long does a refund take?', session_id: 'idem-hot' };
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2, body, 'hot-key')));

    expect(stub.chatRequests()).toHaveLength(1);
    expect(await messagesOf('idem-hot')).toBe(2);
    const answered = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 409);
    expect(answered.length + refused.length).toBe(20);
    // Instance 0 waits for the first answer, so all its 10 requests answer; instance 1's duplicates are refused.
    expect(answered.length).toBeGreaterThanOrEqual(10);
    for (const r of answered) expect(r.body).toEqual(answered[0]!.body);
    for (const r of refused) expect(r.body.error.code).toBe('idempotency_in_progress');
    const [stored] = await db.query<{ id: string }>(`select id from chat_messages where session_id = 'idem-hot' and role = 'assistant'`);
    expect(answered[0]!.body.message_id).toBe(stored!.id);
  });

  it('refuses the same key with another body (422), and a malformed key (400), storing nothing', async () => {
    await post(0, { message: 'Can I pay with Klarna?', session_id: 'idem-reuse' }, 'reuse-1');
    const reused = await post(1, { message: 'Can I pay by invoice?', session_id: 'idem-reuse' }, 'reuse-1');
    expect(reused).toMatchObject({ status: 422, body: { error: { code: 'idempotency_key_reused' } } });

    for (const key of ['', 'has space', 'x'.repeat(256), 'quote"d']) {
      const bad = await post(0, { message: 'Hello', session_id: 'idem-bad-key' }, key);
      expect({ key, status: bad.status, code: bad.body.error?.code }).toEqual({ key, status: 400, code: 'invalid_request' });
    }
    expect(await messagesOf('idem-reuse')).toBe(2);
    expect(await messagesOf('idem-bad-key')).toBe(0);
    expect(stub.chatRequests()).toHaveLength(1);
  });

  it('lets a request that failed be retried with its key: the retry runs and stores the one turn', async () => {
    stub.enqueueChat({ status: 500 });
    const body = { message: 'Do you ship to Norway?', session_id: 'idem-fail' };
    expect((await post(0, body, 'fail-1')).status).toBe(502);
    expect(await messagesOf('idem-fail')).toBe(0);
    const retry = await post(1, body, 'fail-1');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await messagesOf('idem-fail')).toBe(2);
    expect(stub.chatRequests()).toHaveLength(2);
  });

  it('replays a streamed answer as one done event, and the same answer on /chat', async () => {
    const body = { message: 'What is your return policy?', session_id: 'idem-stream' };
    const url = `${instances[0]!.baseURL}/api/v1/chat/stream`;
    const first = await postStream(url, body, { headers: { 'idempotency-key': 'stream-1' } });
    const done = first.events.find((e) => e.event === 'done')!;
    expect(first.events.map((e) => e.event)).toContain('token');

    const replay = await postStreamWithHeaders(`${instances[1]!.baseURL}/api/v1/chat/stream`, body, 'stream-1');
    expect(replay.events).toEqual([{ event: 'done', data: done.data }]);
    expect(replay.replayed).toBe('true');
    expect((await post(0, body, 'stream-1')).body).toEqual(done.data);
    expect(stub.chatRequests()).toHaveLength(1);
    expect(await messagesOf('idem-stream')).toBe(2);
  });

  it('reports where the time of an answer went in a Server-Timing header', async () => {
    const response = await post(0, { message: 'How long does a refund take?', session_id: 'idem-timing' });
    const stages = Object.fromEntries(
      response.headers
        .get('server-timing')!
        .split(', ')
        .map((part) => part.split(';dur=') as [string, string]),
    );
    expect(Object.keys(stages)).toEqual(['session', 'window', 'rewrite', 'retrieval', 'memory', 'model', 'tools', 'persist', 'total']);
    const values = Object.values(stages).map(Number);
    expect(values.every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
    // The stages are laps of one clock: together they are the total.
    const { total, ...parts } = stages;
    expect(Object.values(parts).reduce((sum, v) => sum + Number(v), 0)).toBeCloseTo(Number(total), 0);
  });
});
