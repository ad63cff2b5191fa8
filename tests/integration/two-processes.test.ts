/**
 * Two service processes (`src/index.ts` under tsx, DATABASE_URL) on one database,
 * posting to the same sessions at once, then counting rows.
 *
 * The database is PGlite served over the wire protocol, not the loopback
 * PostgreSQL server: every answer retrieves from the knowledge base, which needs
 * pgvector, and Debian's server has none. PGlite runs one statement at a time, so
 * this proves the processes keep no ordering of their own (no lost, duplicated or
 * interleaved turns between instances); the database's own concurrency is proven
 * on the real server in postgres-concurrency.test.ts.
 */
import { openPostgresDatabase } from '../../src/store/postgres';
import type { SqlDatabase } from '../../src/store/database';
import { readMigrations } from '../../src/store/migrations';
import { startPgliteServer, type PgliteServer } from '../support/postgres';
import { startServiceProcess, stopServiceProcess, waitUntilServing, type ServiceProcess } from '../support/processes';
import { TEST_AGENT_KEY } from '../support/test-service';

async function postChat(service: ServiceProcess, body: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.baseURL}/api/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { session_id: string; message_id: string } };
}

describe('two service processes on one database', () => {
  let database: PgliteServer | undefined;
  let services: ServiceProcess[] = [];
  let db: SqlDatabase;

  beforeAll(async () => {
    // Two processes with three pool connections and one listening for new messages each, and this test's own.
    database = await startPgliteServer(9);
    const url = database.url;
    db = openPostgresDatabase({ connectionString: url, poolMax: 1 });
    // Started together: both run the migrations and find the knowledge base empty.
    const env = { DATABASE_URL: url, DATABASE_POOL_MAX: '3', LOG_LEVEL: 'warn' };
    services = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    await Promise.all(services.map((s) => waitUntilServing(s)));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => stopServiceProcess(s)));
    await db?.close().catch(() => {});
    await database?.close();
  });

  it('migrated once and seeded the knowledge base once, though both started on an empty database', async () => {
    const ledger = await db.query<{ version: string }>('select version from schema_migrations order by version');
    expect(ledger.map((r) => r.version)).toEqual((await readMigrations()).map((m) => m.version));
    const [docs] = await db.query<{ sources: number; duplicates: number }>(
      `select count(distinct source)::int as sources, (count(*) - count(distinct (source, chunk_index)))::int as duplicates from documents`,
    );
    expect(docs).toEqual({ sources: 10, duplicates: 0 });
    for (const service of services) {
      expect(await (await fetch(`${service.baseURL}/health`)).json()).toMatchObject({ status: 'ok', storage: 'postgres' });
    }
  });

  it('stores every turn of 40 requests posted at once to 4 sessions through both processes, each question followed by its own answer', async () => {
    const sessions = ['two-a', 'two-b', 'two-c', 'two-d'];
    const requests = sessions.flatMap((sessionId) =>
      Array.from({ length: 10 }, (_, k) => ({ session_id: sessionId, message: `How long does a refund take? (${sessionId} question ${k})` })),
    );
    // With the agent key: a customer's first request starts the session, and every
    // later one without its token is refused (403). Which of ten simultaneous first
    // requests is "first" is a race, and this test is about storage, not access.
    const asAgent = { authorization: `Bearer ${TEST_AGENT_KEY}` };
    const responses = await Promise.all(requests.map((body, i) => postChat(services[i % 2]!, body, asAgent)));
    expect(responses.map((r) => r.status)).toEqual(requests.map(() => 200));

    for (const sessionId of sessions) {
      const rows = await db.query<{ id: string; seq: number; role: string; content: string }>(
        'select id, seq, role, content from chat_messages where session_id = $1 order by seq',
        [sessionId],
      );
      const [session] = await db.query<{ message_count: number }>('select message_count from chat_sessions where session_id = $1', [sessionId]);
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(session!.message_count).toBe(20);

      // Each stored question is directly followed by the answer its request got back.
      requests.forEach((request, i) => {
        if (request.session_id !== sessionId) return;
        const question = rows.findIndex((r) => r.content === request.message);
        expect(rows[question]).toMatchObject({ role: 'user' });
        expect(rows[question + 1]).toMatchObject({ role: 'assistant', id: responses[i]!.body.message_id });
      });
    }
  });

  it('starts one session per request that brings no session id, whichever process takes it', async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => postChat(services[i % 2]!, { message: `Can I pay with Klarna? (${i})` })));
    const ids = responses.map((r) => r.body.session_id);
    expect(new Set(ids).size).toBe(10);
    const counts = await db.query<{ message_count: number }>('select message_count from chat_sessions where session_id = any($1::text[])', [ids]);
    expect(counts.map((c) => c.message_count)).toEqual(ids.map(() => 2));
  });

  it('stores one turn for 10 requests with one Idempotency-Key sent through both processes at once, and answers all of them with it', async () => {
    const body = { session_id: 'two-idem', message: 'How long does a refund take?' };
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postChat(services[i % 2]!, body, { 'idempotency-key': 'two-processes-key' })),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    for (const r of responses) expect(r.body).toEqual(responses[0]!.body);
    const rows = await db.query<{ id: string; role: string }>('select id, role from chat_messages where session_id = $1 order by seq', ['two-idem']);
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant']);
    expect(responses[0]!.body.message_id).toBe(rows[1]!.id);
  });

  it('shows a session written by both processes in full from either one', async () => {
    for (const service of services) {
      const response = await fetch(`${service.baseURL}/api/v1/chat/history/two-a`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
      const body = (await response.json()) as { total: number; messages: Array<{ seq: number }> };
      expect(body.total).toBe(20);
      expect(body.messages.map((m) => m.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    }
  });

  it('stay up when the database goes away, and report it on /health', async () => {
    await database!.close(); // drops every connection the processes had open
    database = undefined;
    for (const service of services) {
      const response = await fetch(`${service.baseURL}/health`);
      expect({ status: response.status, body: await response.json() }).toMatchObject({ status: 503, body: { database: 'unreachable' } });
      expect(service.child.exitCode).toBeNull();
    }
  });
});
