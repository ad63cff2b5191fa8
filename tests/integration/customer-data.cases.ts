/**
 * The customer-data lifecycle over HTTP (export, erasure of a customer and of one
 * conversation, the audit), as one set of cases that runs on PGlite
 * (customer-data.test.ts) and on the real PostgreSQL server with two instances
 * (customer-data-postgres.test.ts), where an answer in flight on one instance races
 * an erasure on the other for real.
 */
import { createHmac } from 'node:crypto';
import { signCustomerToken } from '../../src/identity/customer-token';
import { openEventStream } from '../support/event-stream';
import type { OpenAIStub } from '../support/openai-stub';
import { TEST_AGENT_KEY, TEST_CUSTOMER_SECRET } from '../support/test-service';

export interface CustomerDataHarness {
  /** One or two instances of the service on one database. */
  baseURLs: string[];
  stub: OpenAIStub;
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
}

const agent = { authorization: `Bearer ${TEST_AGENT_KEY}` };

async function call(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined && { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, headers: response.headers };
}

const signedIn = async (customerId: string) => ({ 'x-customer-token': await signCustomerToken(TEST_CUSTOMER_SECRET, customerId) });

export function customerDataCases(harness: () => CustomerDataHarness): void {
  const base = (i = 0) => harness().baseURLs[i % harness().baseURLs.length]!;
  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}, i = 0) =>
    call(`${base(i)}/api/v1/chat`, { method: 'POST', body, headers });

  it('a customer with two conversations, memory and feedback is exported whole, erased (every kind counted), and erased again (zeros)', async () => {
    const { stub, query } = harness();
    const lukas = await signedIn('lukas@example.com');
    const first = await chat({ message: 'Where is my air fryer order?', session_id: 'life-lukas-1' }, lukas);
    expect(first.status).toBe(200);
    const firstToken = { ...lukas, 'x-session-token': first.body.session_token };
    expect((await chat({ message: 'Can I return it instead?', session_id: 'life-lukas-1' }, firstToken, 1)).status).toBe(200);
    // Cross-session memory of the first conversation, as the summarize strategy files it.
    await query(`select save_session_summary($1, $2, 2, true)`, ['life-lukas-1', 'Lukas asked where his Vesper air fryer order is']);
    const rated = await call(`${base()}/api/v1/chat/feedback`, {
      method: 'POST',
      body: { session_id: 'life-lukas-1', message_id: first.body.message_id, rating: 'down', comment: 'Too vague' },
      headers: { 'x-session-token': first.body.session_token },
    });
    expect(rated.status).toBe(200);
    // The second conversation gets the first one's memory.
    const second = await chat({ message: 'Do you sell kettles?', session_id: 'life-lukas-2', memory_injection: true }, lukas);
    expect(second.status).toBe(200);
    expect(JSON.stringify(stub.chatRequests().at(-1)!.body.messages)).toContain('Vesper air fryer order');
    const other = await chat({ message: 'Is my kettle shipped?', session_id: 'life-priya-1' }, await signedIn('priya.raman@example.com'));
    expect(other.status).toBe(200);

    const exported = await call(`${base(1)}/api/v1/customers/${encodeURIComponent('lukas@example.com')}/export`, { headers: agent });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('application/json');
    const doc = exported.body;
    expect(doc.customer_id).toBe('lukas@example.com');
    expect(doc.profile.name).toBe('Lukas Brandt');
    expect(doc.orders.map((o: any) => o.order_id)).toEqual(expect.arrayContaining(['ZX-14440', 'ZX-59197']));
    expect(doc.memory.map((m: any) => m.summary)).toEqual(['Lukas asked where his Vesper air fryer order is']);
    expect(doc.conversations.map((c: any) => c.session_id)).toEqual(['life-lukas-1', 'life-lukas-2']);
    const [stored] = await query<{ n: number }>(`select count(*)::int as n from chat_messages where session_id like 'life-lukas-%'`);
    expect(doc.conversations.flatMap((c: any) => c.messages)).toHaveLength(stored!.n);
    const conversation = doc.conversations[0];
    expect(conversation.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content)).toEqual(['Where is my air fryer order?', 'Can I return it instead?']);
    expect(conversation.messages.every((m: any) => typeof m.created_at === 'string' && Array.isArray(m.sources) && typeof m.metadata === 'object')).toBe(true);
    expect(conversation.summary).toBe('Lukas asked where his Vesper air fryer order is');
    expect(conversation.feedback).toEqual([expect.objectContaining({ message_id: first.body.message_id, rating: 'down', comment: 'Too vague' })]);
    expect(JSON.stringify(doc)).not.toContain('life-priya-1');
    // The customer gets the same for themselves.
    const mine = await call(`${base()}/api/v1/me/export`, { headers: lukas });
    expect(mine.status).toBe(200);
    expect(mine.body.conversations.map((c: any) => c.session_id)).toEqual(['life-lukas-1', 'life-lukas-2']);

    const erased = await call(`${base()}/api/v1/customers/${encodeURIComponent('Lukas@Example.com')}`, { method: 'DELETE', headers: agent });
    expect(erased.status).toBe(200);
    expect(erased.body.erased).toEqual({
      conversations: 2,
      messages: stored!.n,
      summaries: 1,
      memory: 1,
      feedback: 1,
      idempotency_records: 0,
      order_proofs: 0,
      bindings: 2,
      rate_limit_counters: expect.any(Number),
    });
    for (const sessionId of ['life-lukas-1', 'life-lukas-2']) {
      expect((await call(`${base(1)}/api/v1/chat/history/${sessionId}`, { headers: agent })).status).toBe(404);
    }
    expect((await call(`${base(1)}/api/v1/chat/history/life-priya-1`, { headers: agent })).body.messages).toHaveLength(2);
    // A new conversation of theirs carries no memory of the old ones.
    const fresh = await chat({ message: 'Hello again', session_id: 'life-lukas-3', memory_injection: true }, lukas, 1);
    expect(fresh.status).toBe(200);
    expect(JSON.stringify(stub.chatRequests().at(-1)!.body.messages)).not.toContain('Vesper air fryer order');
    // Erasing again (the new conversation goes too), then once more: zeros.
    expect((await call(`${base()}/api/v1/customers/lukas%40example.com`, { method: 'DELETE', headers: agent })).body.erased.conversations).toBe(1);
    const again = await call(`${base(1)}/api/v1/customers/lukas%40example.com`, { method: 'DELETE', headers: agent });
    expect(again.status).toBe(200);
    expect(Object.values(again.body.erased).every((n) => n === 0)).toBe(true);
  });

  it('a customer erases their own conversation with its token; a stranger gets 403; an answer in flight does not bring it back; open streams end with `erased`', async () => {
    const { stub, query } = harness();
    const own = await chat({ message: 'How long does a refund take?', session_id: 'life-own' });
    const stranger = await chat({ message: 'Do you ship abroad?', session_id: 'life-stranger' });
    const ownToken = { 'x-session-token': own.body.session_token };
    const url = (sessionId: string, i = 0) => `${base(i)}/api/v1/chat/conversation/${sessionId}`;

    expect((await call(url('life-own'), { method: 'DELETE', headers: { 'x-session-token': stranger.body.session_token } })).body.error.code).toBe('session_token_invalid');
    expect((await call(url('life-own'), { method: 'DELETE' })).status).toBe(401);
    expect((await call(url('bad%20id'), { method: 'DELETE', headers: agent })).status).toBe(400);
    expect((await call(url('life-nobody'), { method: 'DELETE', headers: agent })).status).toBe(404);
    expect((await call(url('life-own', 1), { headers: ownToken })).status).toBe(200);

    const events = await openEventStream(`${url('life-own', 1)}/events`, ownToken);
    await events.waitFor((e) => e.event === 'ready');
    // An answer is being generated (the model takes 1.5 s) when the customer erases the conversation.
    const asked = stub.chatRequests().length;
    stub.enqueueChat({ delayMs: 1500, content: 'Refunds take 5–7 business days.' });
    const inFlight = chat({ message: 'And for a gift?', session_id: 'life-own' }, ownToken);
    const until = Date.now() + 5000;
    while (stub.chatRequests().length === asked && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const erased = await call(url('life-own', 1), { method: 'DELETE', headers: ownToken });
    expect(erased.status).toBe(200);
    expect(erased.body.erased).toMatchObject({ conversations: 1, messages: 2 });
    await events.waitFor((e) => e.event === 'erased', 5000);
    expect(await events.finished).toBe('ended');

    const late = await inFlight;
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('conversation_erased');
    const [left] = await query<{ n: number }>(`select count(*)::int as n from chat_messages where session_id = 'life-own'`);
    expect(left!.n).toBe(0);
    expect((await call(`${base()}/api/v1/chat/history/life-own`, { headers: agent })).status).toBe(404);
    expect((await call(url('life-own'), { headers: ownToken })).status).toBe(404);
    // The stranger's conversation is untouched; an agent may erase it too.
    expect((await call(`${base()}/api/v1/chat/history/life-stranger`, { headers: agent })).body.messages).toHaveLength(2);
    expect((await call(url('life-stranger'), { method: 'DELETE', headers: agent })).body.erased.conversations).toBe(1);
  });

  it('the audit lists every erasure newest first, paged, with who, counts and a pseudonym, and no content or raw id', async () => {
    const page = await call(`${base()}/api/v1/audit/erasures?limit=100`, { headers: agent });
    expect(page.status).toBe(200);
    const records = page.body.erasures;
    expect(records.length).toBeGreaterThanOrEqual(5);
    const ids = records.map((r: any) => Number(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const [agentOnConversation, customerOnConversation] = records;
    expect(agentOnConversation).toMatchObject({ actor: 'agent', scope: 'conversation', counts: { conversations: 1 } });
    expect(customerOnConversation).toMatchObject({ actor: 'customer', scope: 'conversation', counts: { conversations: 1, messages: 2 } });
    const lukas = records.filter((r: any) => r.scope === 'customer');
    expect(lukas.map((r: any) => r.counts.conversations)).toEqual([0, 1, 2]);
    expect(new Set(lukas.map((r: any) => r.customer)).size).toBe(1);
    expect(lukas[0].customer).toMatch(/^c_[0-9a-f]{32}$/);
    expect(lukas[0].langfuse.status).toBe('not_configured');
    const text = JSON.stringify(page.body).toLowerCase();
    for (const personal of ['lukas', 'life-own', 'refund', 'air fryer', 'vesper']) expect({ personal, found: text.includes(personal) }).toEqual({ personal, found: false });

    const first = await call(`${base()}/api/v1/audit/erasures?limit=2`, { headers: agent });
    const next = await call(`${base(1)}/api/v1/audit/erasures?limit=2&cursor=${first.body.next_cursor}`, { headers: agent });
    expect([...first.body.erasures, ...next.body.erasures].map((r: any) => r.id)).toEqual(records.slice(0, 4).map((r: any) => r.id));
    expect((await call(`${base()}/api/v1/audit/erasures`)).status).toBe(401);
  });

  it('erasing a conversation erases the record of a message queued for a person with an Idempotency-Key: a retry with that key is new', async () => {
    const { query } = harness();
    const first = await chat({ message: 'Can a person help me?', session_id: 'life-queued' });
    expect(first.status).toBe(200);
    const token = { 'x-session-token': first.body.session_token };
    expect((await call(`${base()}/api/v1/conversations/life-queued/takeover`, { method: 'POST', body: { agent_name: 'Mia' }, headers: agent })).status).toBe(200);
    const keyed = { ...token, 'idempotency-key': 'queued-key-1' };
    const queued = await chat({ message: 'Thanks, I am waiting.', session_id: 'life-queued' }, keyed, 1);
    expect(queued.status).toBe(202);
    const replay = await chat({ message: 'Thanks, I am waiting.', session_id: 'life-queued' }, keyed);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const [record] = await query<{ n: number }>(`select count(*)::int as n from idempotency_keys where session_id = 'life-queued'`);
    expect(record!.n).toBe(1);

    const erased = await call(`${base(1)}/api/v1/chat/conversation/life-queued`, { method: 'DELETE', headers: token });
    expect(erased.status).toBe(200);
    expect(erased.body.erased).toMatchObject({ conversations: 1, messages: 4, idempotency_records: 1 });
    const [left] = await query<{ n: number }>(`select count(*)::int as n from idempotency_keys where session_id = 'life-queued'`);
    expect(left!.n).toBe(0);

    // The retry is a new request: not the stored 202, but a turn in a conversation that was just erased.
    const retry = await chat({ message: 'Thanks, I am waiting.', session_id: 'life-queued' }, keyed);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(410);
    expect(retry.body.error.code).toBe('conversation_erased');
  });

  it('once an erased id is used again (its tombstone gone), the erased conversation\'s token opens nothing: the new conversation has tokens of its own', async () => {
    const { query } = harness();
    const first = await chat({ message: 'Do you ship to Malta?', session_id: 'life-reused' });
    expect(first.status).toBe(200);
    const oldToken = { 'x-session-token': first.body.session_token };
    expect((await call(`${base()}/api/v1/chat/conversation/life-reused`, { method: 'DELETE', headers: oldToken })).status).toBe(200);
    // A day later the tombstone is pruned, and someone else starts a conversation under the same id.
    await query(`delete from erased_sessions where session_id = 'life-reused'`);
    const stranger = await chat({ message: 'My own private question', session_id: 'life-reused' }, {}, 1);
    expect(stranger.status).toBe(200);
    expect(stranger.body.session_token).not.toBe(first.body.session_token);

    const readBack = (headers: Record<string, string>, i = 0) => call(`${base(i)}/api/v1/chat/conversation/life-reused`, { headers });
    expect((await readBack(oldToken)).status).toBe(401);
    expect((await readBack(oldToken, 1)).status).toBe(401);
    expect((await chat({ message: 'Show me what they wrote', session_id: 'life-reused' }, oldToken)).body.error.code).toBe('session_token_required');
    expect((await call(`${base()}/api/v1/chat/conversation/life-reused`, { method: 'DELETE', headers: oldToken })).status).toBe(403);
    const own = await readBack({ 'x-session-token': stranger.body.session_token }, 1);
    expect(own.status).toBe(200);
    expect(own.body.messages.map((m: any) => m.content)).toContain('My own private question');
  });

  it('a conversation made before session tokens were signed over a nonce keeps its token of the id alone, until it is erased', async () => {
    const { query } = harness();
    const first = await chat({ message: 'Is the kettle in stock?', session_id: 'life-legacy' });
    expect(first.status).toBe(200);
    // As a conversation stored before migration 20261126000204: no nonce, and a token of the id alone.
    await query(`update chat_sessions set token_nonce = null where session_id = 'life-legacy'`);
    const [secret] = await query<{ value: string }>(`select value from service_secrets where name = 'session_token_secret'`);
    const legacy = { 'x-session-token': createHmac('sha256', secret!.value).update('session-token:life-legacy').digest('base64url') };
    expect(first.body.session_token).toMatch(/^[0-9a-f]{32}\./);
    expect((await call(`${base(1)}/api/v1/chat/conversation/life-legacy`, { headers: legacy })).status).toBe(200);
    const next = await chat({ message: 'And the toaster?', session_id: 'life-legacy' }, legacy);
    expect(next.status).toBe(200);
    expect((await call(`${base()}/api/v1/chat/conversation/life-legacy`, { method: 'DELETE', headers: legacy })).status).toBe(200);
    await query(`delete from erased_sessions where session_id = 'life-legacy'`);
    expect((await chat({ message: 'Someone else', session_id: 'life-legacy' }, {}, 1)).status).toBe(200);
    expect((await call(`${base()}/api/v1/chat/conversation/life-legacy`, { headers: legacy })).status).toBe(401);
  });

  it('a session whose turn failed after binding its customer and proving an order has no conversation, yet is erased by id (200, counted), then unknown (404)', async () => {
    const { stub, query } = harness();
    // Signed in, the model proves someone else's order by its e-mail address, then fails: nothing of the turn is stored.
    stub.enqueueChat(
      { toolCalls: [{ id: 'proof_1', name: 'lookup_order', arguments: { order_id: 'ZX-14440', email: 'lukas@example.com' } }] },
      { status: 500, error: 'model down' },
    );
    const failed = await chat({ message: 'Where is order ZX-14440? The email is lukas@example.com', session_id: 'life-unstored' }, await signedIn('priya.raman@example.com'));
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const rows = async () =>
      (
        await query<{ sessions: number; bindings: number; proofs: number }>(
          `select (select count(*)::int from chat_sessions where session_id = 'life-unstored') as sessions,
                  (select count(*)::int from session_customers where session_id = 'life-unstored') as bindings,
                  (select count(*)::int from session_order_proofs where session_id = 'life-unstored') as proofs`,
        )
      )[0]!;
    expect(await rows()).toEqual({ sessions: 0, bindings: 1, proofs: 1 });

    const url = `${base(1)}/api/v1/chat/conversation/life-unstored`;
    const erased = await call(url, { method: 'DELETE', headers: agent });
    expect(erased.status).toBe(200);
    expect(erased.body.erased).toMatchObject({ conversations: 0, messages: 0, bindings: 1, order_proofs: 1 });
    expect(await rows()).toEqual({ sessions: 0, bindings: 0, proofs: 0 });
    expect((await call(url, { method: 'DELETE', headers: agent })).status).toBe(404);
  });
}
