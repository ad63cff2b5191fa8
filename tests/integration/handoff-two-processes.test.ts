/**
 * The handoff done-when, over HTTP with two service processes (`src/index.ts`
 * under tsx) on one PostgreSQL server (TEST_DATABASE_URL): escalate, take over on
 * A, a customer message to B calls no model and is stored, a reply on A reaches
 * the customer's event stream on B within 2 s (B learns of it by LISTEN/NOTIFY),
 * release, and the next message is answered by the model with the person's reply
 * in its prompt. Then B shuts down: its stream ends cleanly and the customer
 * resumes on A from the last event id without missing anything.
 *
 * The server has no pgvector: the knowledge base is an empty stand-in, so every
 * bot answer is an escalation, which is where a handoff starts anyway.
 */
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { openEventStream } from '../support/event-stream';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { createTestDatabase, describeOnTestServer, migrateTestDatabaseForService, testServerHasPgvector } from '../support/postgres';
import { startServiceProcess, stopServiceProcess, waitUntilServing, type ServiceProcess } from '../support/processes';
import { openAIStubEnv, TEST_AGENT_KEY } from '../support/test-service';

const hasPgvector = testServerHasPgvector();
const agent = { authorization: `Bearer ${TEST_AGENT_KEY}`, 'content-type': 'application/json' };

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

describeOnTestServer('human takeover across two service processes on one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  let stub: OpenAIStub;
  let a: ServiceProcess;
  let b: ServiceProcess;

  beforeAll(async () => {
    stub = await startOpenAIStub();
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabaseForService(db, hasPgvector);
    const env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: '3', LOG_LEVEL: 'warn', KNOWLEDGE_SEED_DIR: 'none', ...openAIStubEnv(stub.baseURL, { ESCALATION_CONFIDENCE_THRESHOLD: '1' }) };
    [a, b] = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    await Promise.all([waitUntilServing(a), waitUntilServing(b)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([stopServiceProcess(a), stopServiceProcess(b)]);
    await db?.close();
    await database?.drop();
    await stub?.close();
  });

  it('hands a conversation to a person on A and back, with the customer on B, keeping count, seq and history consistent', async () => {
    const sessionId = 'two-process-handoff';
    // 1. The customer's question is escalated (answered by B).
    const first = await post(`${b.baseURL}/api/v1/chat`, { session_id: sessionId, message: 'My sofa arrived with a torn cover.' }, {});
    expect(first.status).toBe(200);
    expect(first.body.escalated).toBe(true);
    const customer = { 'x-session-token': first.body.session_token as string };

    // The customer's widget listens on B.
    const stream = await openEventStream(`${b.baseURL}/api/v1/chat/conversation/${sessionId}/events`, customer);
    try {
      expect(stream.status).toBe(200);
      await stream.waitFor((e) => e.event === 'ready');

      // 2. Maria takes over on A; B's stream says so.
      const taken = await post(`${a.baseURL}/api/v1/conversations/${sessionId}/takeover`, { agent_name: 'Maria' }, agent);
      expect(taken).toEqual({ status: 200, body: { session_id: sessionId, handler: 'human', agent_name: 'Maria' } });
      await stream.waitFor((e) => e.event === 'handler' && e.data.handoff.agent_name === 'Maria', 2000);

      // 3. The customer writes to B: stored, no model called.
      const modelCalls = stub.chatRequests().length;
      const queued = await post(`${b.baseURL}/api/v1/chat`, { session_id: sessionId, message: 'Can I get a new cover?' }, customer);
      expect(queued).toEqual({ status: 202, body: { session_id: sessionId, handler: 'human', agent_name: 'Maria', message_id: expect.any(String) } });
      expect(stub.chatRequests().length).toBe(modelCalls);

      // 4. Maria's reply on A reaches the customer's stream on B within 2 s.
      const reply = await post(`${a.baseURL}/api/v1/conversations/${sessionId}/replies`, { content: 'Yes: a new cover ships tomorrow, reference NW-42.' }, agent);
      expect(reply.status).toBe(201);
      const sentAt = Date.now();
      const delivered = await stream.waitFor((e) => e.event === 'message' && e.data.id === reply.body.id, 2000);
      expect(delivered.data).toMatchObject({ author: { type: 'human', name: 'Maria' }, content: 'Yes: a new cover ships tomorrow, reference NW-42.' });
      console.log(`reply on A reached the stream on B after ${delivered.at - sentAt} ms`);

      // 5. Release on A; the next message to B is answered by the model, with the reply in its prompt.
      expect(await post(`${a.baseURL}/api/v1/conversations/${sessionId}/release`, {}, agent)).toEqual({ status: 200, body: { session_id: sessionId, handler: 'bot' } });
      const answered = await post(`${b.baseURL}/api/v1/chat`, { session_id: sessionId, message: 'Great, and the old one?' }, customer);
      expect(answered.status).toBe(200);
      const prompt = JSON.stringify(stub.chatRequests().at(-1)!.body.messages);
      expect(prompt).toContain('Yes: a new cover ships tomorrow, reference NW-42.');
      expect(prompt).toContain('Can I get a new cover?');
      await stream.waitFor((e) => e.data?.id === answered.body.message_id, 2000);

      // 6. Count, seq and history agree, from either process.
      const rows = await db.query<{ seq: number; role: string }>('select seq, role from chat_messages where session_id = $1 order by seq', [sessionId]);
      const [session] = await db.query<{ message_count: number; handler: string }>('select message_count, handler from chat_sessions where session_id = $1', [sessionId]);
      expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'system', 'user', 'assistant', 'system', 'user', 'assistant']);
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(session).toEqual({ message_count: 8, handler: 'bot' });
      for (const service of [a, b]) {
        const history = (await (await fetch(`${service.baseURL}/api/v1/chat/history/${sessionId}`, { headers: agent })).json()) as any;
        expect(history.total).toBe(8);
        expect(history.messages.map((m: any) => m.author.type)).toEqual(['customer', 'bot', 'system', 'customer', 'human', 'system', 'customer', 'bot']);
      }
      // The stream got every message after the escalation once, in order.
      expect(stream.events.filter((e) => e.id).map((e) => Number(e.id))).toEqual([3, 4, 5, 6, 7, 8]);
    } finally {
      stream.close();
    }
  });

  it("ends the customer's stream cleanly when its process shuts down, and the customer resumes on the other without a gap", async () => {
    const sessionId = 'two-process-shutdown';
    const first = await post(`${a.baseURL}/api/v1/chat`, { session_id: sessionId, message: 'Where is my order?' }, {});
    const customer = { 'x-session-token': first.body.session_token as string };
    await post(`${a.baseURL}/api/v1/conversations/${sessionId}/takeover`, { agent_name: 'Jonas' }, agent);
    const stream = await openEventStream(`${b.baseURL}/api/v1/chat/conversation/${sessionId}/events?after_seq=2`, customer);
    await stream.waitFor((e) => e.id === '3');

    const stopped = stopServiceProcess(b);
    expect(await stream.finished).toBe('ended');
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'shutdown' } });
    await stopped;
    expect((await b.exited).code).toBe(0);

    // Meanwhile Jonas replied; the customer reconnects to A from the last id it saw.
    const reply = await post(`${a.baseURL}/api/v1/conversations/${sessionId}/replies`, { content: 'It left the warehouse this morning.' }, agent);
    const lastId = stream.events.filter((e) => e.id).at(-1)!.id!;
    const resumed = await openEventStream(`${a.baseURL}/api/v1/chat/conversation/${sessionId}/events`, { ...customer, 'last-event-id': lastId });
    try {
      const got = await resumed.waitFor((e) => e.data?.id === reply.body.id, 2000);
      expect(got.data.author).toEqual({ type: 'human', name: 'Jonas' });
      expect(resumed.events.filter((e) => e.id).map((e) => e.id)).toEqual(['4']);
    } finally {
      resumed.close();
    }
  });
});
