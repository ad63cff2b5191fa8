/**
 * Rate limits shared by every instance over one database: two instances of the
 * service (two apps, each with its own `pg` pool) on a real PostgreSQL server
 * (TEST_DATABASE_URL), requests alternating between them. The server has no
 * pgvector, so the knowledge base is an empty stand-in there and every answer is
 * an escalation without passages; what is tested is the limiter in front of chat.
 * Plus: when the counters cannot be reached, requests go through uncounted (on
 * that server with the function gone, and anywhere with no database at all).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createDependencies, type Dependencies } from '../../src/dependencies';
import { chatRateLimits } from '../../src/http/protection';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { RateLimitCounters } from '../../src/store/rate-limit-store';
import { createTestDatabase, describeOnTestServer, migrateTestDatabaseForService, testServerHasPgvector } from '../support/postgres';
import { TEST_AGENT_KEY } from '../support/test-service';

const hasPgvector = testServerHasPgvector();

/** Collects a logger's JSON lines. */
function logCollector() {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger('warn', sink) };
}

async function listen(app: express.Express): Promise<{ server: Server; baseURL: string }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describeOnTestServer('rate limits shared by two instances on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  let instances: Array<{ baseURL: string; server: Server; deps: Dependencies }> = [];
  const logs = logCollector();

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabaseForService(db, hasPgvector);
    for (const i of [0, 1]) {
      const config = loadConfig({
        LOG_LEVEL: 'warn',
        DATABASE_URL: database.url,
        DATABASE_POOL_MAX: '3',
        AGENT_API_KEY: TEST_AGENT_KEY,
        KNOWLEDGE_SEED_DIR: 'none',
        OFFLINE_STREAM_DELAY_MS: '0',
        RATE_LIMIT_STORE: 'database',
        // Windows are aligned to the clock: the longest one makes a test's requests
        // straddling two windows (and so never reaching the limit) all but impossible.
        RATE_LIMIT_WINDOW_MS: '3600000',
        RATE_LIMIT_PER_SESSION: '3',
        RATE_LIMIT_PER_CLIENT: '5',
        // Tests of who is counted tell clients apart by X-Forwarded-For; without it, the socket's address.
        TRUST_PROXY: '1',
      });
      const deps = await createDependencies(config, i === 0 ? logs.logger : createLogger('silent'));
      instances.push({ ...(await listen(createApp(deps.appParts))), deps });
    }
  }, 60_000);
  afterAll(async () => {
    for (const { server, deps } of instances) {
      await stop(server);
      await deps.close();
    }
    await db?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    await db.query('delete from rate_limit_counters');
    logs.lines.length = 0;
  });

  const sessionTokens = new Map<string, string>();
  /** POST to one instance, sending back the session's token like the widget does. */
  async function post(instance: number, body: { message: string; session_id?: string }, path = '/api/v1/chat', headers: Record<string, string> = {}) {
    const token = body.session_id ? sessionTokens.get(body.session_id) : undefined;
    const response = await fetch(`${instances[instance]!.baseURL}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token && { 'x-session-token': token }), ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text;
    if (typeof json?.session_token === 'string') sessionTokens.set(json.session_id, json.session_token);
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: json };
  }
  const count = async (sql: string, params: unknown[] = []) => (await db.query<{ n: number }>(sql, params))[0]!.n;
  const messagesOf = (sessionId: string) => count('select count(*)::int as n from chat_messages where session_id = $1', [sessionId]);

  it('refuses the 5th request into one session (limit 3 after the one that started it) though the requests alternated between instances, storing nothing of it', async () => {
    // The request that starts a session proves nothing yet (it has no token): it counts per client only.
    const answered = [];
    for (let i = 0; i < 4; i++) answered.push(await post(i % 2, { message: `Question ${i + 1}`, session_id: 'shared-session' }));
    expect(answered.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await messagesOf('shared-session')).toBe(8);

    const refused = await post(0, { message: 'Question 5', session_id: 'shared-session' });
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(3600);
    expect(refused.body).toEqual({ error: { code: 'rate_limited', message: expect.stringContaining('Please wait') } });
    expect(await count(`select hits as n from rate_limit_counters where key = 'chat-session:shared-session'`)).toBe(4);
    // The streaming endpoint counts against the same limit, on the other instance too.
    await db.query(`delete from rate_limit_counters where key like 'chat-client:%'`);
    expect((await post(1, { message: 'Question 6', session_id: 'shared-session' }, '/api/v1/chat/stream')).status).toBe(429);
    expect(await messagesOf('shared-session')).toBe(8);
    expect(await count(`select count(*)::int as n from chat_messages where content in ('Question 5', 'Question 6')`)).toBe(0);

    // Another session is not affected.
    await db.query(`delete from rate_limit_counters where key like 'chat-client:%'`);
    expect((await post(1, { message: 'Hello', session_id: 'other-session' })).status).toBe(200);
  });

  it('counts a stranger’s wrong session tokens against the stranger, never the session: 40 of them leave the owner served', async () => {
    expect((await post(0, { message: 'My order is late', session_id: 'owned-session' }, '/api/v1/chat', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    const stranger = { 'x-forwarded-for': '198.51.100.9', 'x-session-token': 'not-the-token' };
    const statuses = [];
    for (let i = 0; i < 40; i++) statuses.push((await post(i % 2, { message: 'Let me in', session_id: 'owned-session' }, '/api/v1/chat', stranger)).status);
    // 403 until the stranger's own per-client limit (5), then 429; never a word stored.
    expect(statuses.slice(0, 5)).toEqual([403, 403, 403, 403, 403]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    expect(await count(`select count(*)::int as n from chat_messages where content = 'Let me in'`)).toBe(0);
    expect(await count(`select coalesce(sum(hits), 0)::int as n from rate_limit_counters where key = 'chat-session:owned-session'`)).toBe(0);
    // The owner, from its own address, with its token, is served on both instances.
    for (const instance of [0, 1]) {
      expect((await post(instance, { message: 'Any news?', session_id: 'owned-session' }, '/api/v1/chat', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    }
  });

  it('limits wrong agent keys per client in the database, across instances: 429 after AUTH_FAILURES_PER_CLIENT (10), logged without the key', async () => {
    const guess = (instance: number, key: string, address = '192.0.2.44') =>
      fetch(`${instances[instance]!.baseURL}/api/v1/chat/sessions`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': address } }).then((r) => r.status);
    const statuses = [];
    for (let i = 0; i < 40; i++) statuses.push(await guess(i % 2, `guess-number-${i}`));
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(statuses.slice(10))).toEqual(new Set([429]));
    // Over the limit, even the right key is refused from that address: guessing teaches nothing.
    expect(await guess(0, TEST_AGENT_KEY)).toBe(429);
    // Another client with the right key is served.
    expect(await guess(1, TEST_AGENT_KEY, '192.0.2.45')).toBe(200);
    expect(await count(`select hits as n from rate_limit_counters where key like 'agent-key-failures:%192.0.2.44'`)).toBe(10);
    const events = logs.lines.filter((l) => l.security_event === 'agent_key_rejected');
    expect(events.length).toBeGreaterThan(0);
    expect(events[0]).toMatchObject({ client: '192.0.2.44', path: '/api/v1/chat/sessions' });
    expect(JSON.stringify(logs.lines)).not.toContain('guess-number-');
  });

  it('refuses a client address over its limit (5) across both instances, storing nothing of the refused request', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(i % 2, { message: `New conversation ${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const sessions = await count('select count(*)::int as n from chat_sessions');

    for (const instance of [1, 0]) {
      const refused = await post(instance, { message: 'One more' });
      expect({ status: refused.status, code: refused.body.error?.code, retryAfter: Number(refused.retryAfter) > 0 }).toEqual({
        status: 429,
        code: 'rate_limited',
        retryAfter: true,
      });
    }
    expect(await count('select count(*)::int as n from chat_sessions')).toBe(sessions);
    const [client] = await db.query<{ key: string; hits: number }>(`select key, hits from rate_limit_counters where key like 'chat-client:%'`);
    expect(client).toEqual({ key: expect.stringMatching(/^chat-client:.*127\.0\.0\.1/), hits: 7 });
  });

  it('lets requests through uncounted, with a warning, when the counters cannot be reached', async () => {
    await db.exec('alter function rate_limit_hit(text, integer) rename to rate_limit_hit_gone');
    try {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await post(i % 2, { message: `Question ${i + 1}`, session_id: 'unlimited-session' })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      expect(await messagesOf('unlimited-session')).toBe(12);
    } finally {
      await db.exec('alter function rate_limit_hit_gone(text, integer) rename to rate_limit_hit');
    }
    const warnings = logs.lines.filter((l) => /Rate limits not counted/.test(l.msg));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ level: 40, err: { message: expect.stringContaining('rate_limit_hit') } });
    expect(logs.lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('keeps the table small: each hit deletes up to 100 rows of windows that have ended, of any key', async () => {
    await db.query(`
      insert into rate_limit_counters (key, window_start, hits, reset_at)
      select 'chat-client:old-' || i, now() - interval '2 minutes', 3, now() - interval '1 minute' from generate_series(1, 150) i`);
    const counters = new RateLimitCounters(db);
    await counters.hit('chat-client:new', 3_600_000);
    expect(await count('select count(*)::int as n from rate_limit_counters')).toBe(51);
    await counters.hit('chat-client:new', 3_600_000);
    expect(await db.query('select key, hits from rate_limit_counters')).toEqual([{ key: 'chat-client:new', hits: 2 }]);
  });
});

describe('rate limits when the database cannot be reached', () => {
  it('lets every request through to the route (which answers for itself), logging a warning, never a 429 or 500', async () => {
    const logs = logCollector();
    const unreachable = openPostgresDatabase({ connectionString: 'postgres://nobody@127.0.0.1:1/none', poolMax: 1 });
    const app = express();
    app.use(express.json());
    app.post('/chat', ...chatRateLimits({ windowMs: 60_000, perClient: 1, perSession: 1 }, logs.logger, async () => true, new RateLimitCounters(unreachable)), (_req, res) => {
      res.json({ answered: true });
    });
    const { server, baseURL } = await listen(app);
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${baseURL}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Hi', session_id: 's' }) });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([200, 200, 200]);
      expect(logs.lines.filter((l) => /Rate limits not counted/.test(l.msg)).length).toBeGreaterThanOrEqual(3);
      expect(logs.lines.filter((l) => l.level >= 50)).toEqual([]);
    } finally {
      await stop(server);
      await unreachable.close();
    }
  });
});
