/**
 * The database goes down and comes back while the service runs (`tsx src/index.ts`
 * with DATABASE_URL): /health (and /health/ready, where present) answers 503 while
 * it is down and 200 again once it is back, without restarting the service.
 *
 * Two databases:
 *  - a PostgreSQL server of the test's own (initdb, like .ci/postgres-server),
 *    stopped and started on the same port. Debian's server has no pgvector, so its
 *    schema is the chat part with an empty stand-in for the knowledge part
 *    (migrateTestDatabaseForService); only health (and that chat is refused cleanly
 *    while down) is asserted there;
 *  - PGlite with pgvector served on the wire (as in two-processes.test.ts), its
 *    socket server stopped and started on the same port: there chat answers
 *    before, is refused with 503 and Retry-After during, and answers again after.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_EXTENSIONS } from '../../src/store/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { openPostgresDatabase } from '../../src/store/postgres';
import { describeOnTestServer, migrateTestDatabaseForService } from '../support/postgres';
import { eventually, freePort, postgresBinDir, startPostgresCluster, startServiceProcess, stopServiceProcess, waitUntilServing, type PostgresCluster, type ServiceProcess } from '../support/processes';
import { REPO_ROOT, TEST_AGENT_KEY } from '../support/test-service';

const figures: Record<string, unknown> = {};
afterAll(() => {
  fs.mkdirSync(path.join(REPO_ROOT, 'test-artifacts'), { recursive: true });
  fs.writeFileSync(path.join(REPO_ROOT, 'test-artifacts/fault-database-down.json'), `${JSON.stringify(figures, null, 2)}\n`);
});

async function get(service: ServiceProcess, p: string, auth = false) {
  const response = await fetch(`${service.baseURL}${p}`, { headers: auth ? { authorization: `Bearer ${TEST_AGENT_KEY}` } : {} });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, retryAfter: response.headers.get('retry-after') };
}

async function postChat(service: ServiceProcess, p: string, body: unknown) {
  const response = await fetch(`${service.baseURL}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', retryAfter: response.headers.get('retry-after'), text: await response.text() };
}

/** /health/ready once the lead's readiness endpoint exists (404 before). */
async function readiness(service: ServiceProcess): Promise<number | null> {
  const ready = await get(service, '/health/ready');
  return ready.status === 404 ? null : ready.status;
}

/** Waits for /health to answer `status`; returns how long it took. */
async function healthBecomes(service: ServiceProcess, status: number, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  const reached = await eventually(async () => (await get(service, '/health')).status === status, timeoutMs, 100);
  if (!reached) throw new Error(`/health did not answer ${status} within ${timeoutMs} ms:\n${service.output().slice(-3000)}`);
  return Date.now() - started;
}

/** While the database is down, a question is refused cleanly: 503 with Retry-After and the JSON error (a stream: an error event). */
async function expectChatRefusedForNow(service: ServiceProcess, sessionId: string): Promise<void> {
  const chat = await postChat(service, '/api/v1/chat', { message: 'How long does a refund take?', session_id: sessionId });
  expect({ status: chat.status, retryAfter: chat.retryAfter !== null, json: chat.contentType.includes('application/json') }).toEqual({ status: 503, retryAfter: true, json: true });
  expect(JSON.parse(chat.text)).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
  const stream = await postChat(service, '/api/v1/chat/stream', { message: 'How long does a refund take?', session_id: sessionId });
  if (stream.contentType.startsWith('text/event-stream')) {
    expect(stream.text).toMatch(/event: error\ndata: \{"code":"[a-z_]+","message":/);
    expect(stream.text).not.toContain('event: done');
  } else {
    expect(stream.status).toBe(503);
  }
}

describeOnTestServer('a PostgreSQL server stopped and started again under a running service', () => {
  let cluster: PostgresCluster | undefined;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    if (!postgresBinDir()) throw new Error('No PostgreSQL server binaries: .ci/postgres-server installs Debian\'s postgresql');
    cluster = await startPostgresCluster();
    const db = openPostgresDatabase({ connectionString: cluster.url, poolMax: 1 });
    try {
      const [{ n }] = (await db.query<{ n: number }>("select count(*)::int as n from pg_available_extensions where name = 'vector'")) as [{ n: number }];
      await migrateTestDatabaseForService(db, n > 0);
    } finally {
      await db.close();
    }
    service = await startServiceProcess({ DATABASE_URL: cluster.url, DATABASE_POOL_MAX: '3', KNOWLEDGE_SEED_DIR: 'none', LOG_LEVEL: 'warn' });
    await waitUntilServing(service);
  }, 120_000);
  afterAll(async () => {
    await stopServiceProcess(service);
    await cluster?.destroy();
  });

  it('/health answers 503 while the server is down and 200 once it is back, twice over, without a restart', async () => {
    const rounds: unknown[] = [];
    for (let round = 1; round <= 2; round++) {
      const before = await get(service!, '/health');
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({ status: 'ok', database: 'ok', storage: 'postgres' });
      expect([200, null]).toContain(await readiness(service!));

      await cluster!.stop();
      const downAfterMs = await healthBecomes(service!, 503);
      const down = await get(service!, '/health');
      expect(down.body).toMatchObject({ database: 'unreachable' });
      expect([503, null]).toContain(await readiness(service!));
      const live = await get(service!, '/health/live');
      expect([200, 404]).toContain(live.status); // 404: no liveness endpoint yet
      await expectChatRefusedForNow(service!, `pg-down-${round}`);
      expect(service!.child.exitCode).toBeNull();

      await cluster!.start();
      const upAfterMs = await healthBecomes(service!, 200);
      expect([200, null]).toContain(await readiness(service!));
      // The review endpoints read the database again.
      expect((await get(service!, '/api/v1/chat/sessions', true)).status).toBe(200);
      rounds.push({ round, downDetectedAfterMs: downAfterMs, upDetectedAfterMs: upAfterMs });
    }
    figures['PostgreSQL server stopped and started'] = rounds;
  }, 90_000);
});

describe('PGlite served on the wire, its server stopped and started again under a running service', () => {
  let pglite: PGlite;
  let socketServer: PGLiteSocketServer | undefined;
  let port: number;
  let service: ServiceProcess | undefined;

  const serve = async () => {
    socketServer = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port, maxConnections: 4 });
    await socketServer.start();
  };

  beforeAll(async () => {
    pglite = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
    port = await freePort();
    await serve();
    service = await startServiceProcess({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, DATABASE_POOL_MAX: '3', LOG_LEVEL: 'warn' });
    await waitUntilServing(service);
  }, 120_000);
  afterAll(async () => {
    await stopServiceProcess(service);
    await socketServer?.stop();
    await pglite?.close();
  });

  it('answers, refuses with 503 and Retry-After while the database is down (nothing stored), and answers again once it is back', async () => {
    const first = await postChat(service!, '/api/v1/chat', { message: 'How long does a refund take?', session_id: 'wire-down' });
    expect(first.status).toBe(200);
    const token = JSON.parse(first.text).session_token as string;

    await socketServer!.stop();
    const downAfterMs = await healthBecomes(service!, 503);
    expect([503, null]).toContain(await readiness(service!));
    await expectChatRefusedForNow(service!, 'wire-down-new');
    const continued = await fetch(`${service!.baseURL}/api/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-token': token },
      body: JSON.stringify({ message: 'And for a gift card?', session_id: 'wire-down' }),
    });
    expect(continued.status).toBe(503);
    expect(service!.child.exitCode).toBeNull();

    await serve();
    const upAfterMs = await healthBecomes(service!, 200);
    const again = await postChat(service!, '/api/v1/chat', { message: 'Can I pay with Klarna?', session_id: 'wire-back' });
    expect(again.status).toBe(200);

    // Only the answered turns were stored: two messages in wire-down, none for the refused ones.
    const rows = await pglite.query<{ session_id: string; n: number }>(
      "select session_id, count(*)::int as n from chat_messages where session_id like 'wire-%' group by session_id order by session_id",
    );
    expect(rows.rows).toEqual([
      { session_id: 'wire-back', n: 2 },
      { session_id: 'wire-down', n: 2 },
    ]);
    figures['PGlite on the wire stopped and started'] = { downDetectedAfterMs: downAfterMs, upDetectedAfterMs: upAfterMs };
  }, 90_000);
});
