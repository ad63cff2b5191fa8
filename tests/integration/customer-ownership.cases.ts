/**
 * Whose data it is follows verified identity only, and the export is read in pages:
 * one set of cases over HTTP that runs on PGlite (customer-ownership.test.ts) and on
 * the real PostgreSQL server with two instances (customer-ownership-postgres.test.ts).
 * Both services run with CUSTOMER_EXPORTS_PER_HOUR=3.
 */
import { seedBulkCustomer } from '../../scripts/lib/bulk-customer';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { EXPORT_PAGE_SIZES, writeCustomerExport } from '../../src/privacy/export';
import type { SqlQueryable } from '../../src/store/database';
import { customerTokenHeader, TEST_AGENT_KEY } from '../support/test-service';

export interface CustomerOwnershipHarness {
  /** One or two instances of the service on one database. */
  baseURLs: string[];
  db: SqlQueryable;
}

/** The services' CUSTOMER_EXPORTS_PER_HOUR. */
export const EXPORTS_PER_HOUR = 3;

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

export function customerOwnershipCases(harness: () => CustomerOwnershipHarness): void {
  const base = (i = 0) => harness().baseURLs[i % harness().baseURLs.length]!;
  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}, i = 0) =>
    call(`${base(i)}/api/v1/chat`, { method: 'POST', body, headers });
  const rows = <Row>(sql: string, params?: unknown[]) => harness().db.query<Row>(sql, params);
  const sessionsNamed = async (pattern: string) =>
    (await rows<{ session_id: string }>('select session_id from chat_sessions where session_id like $1 order by session_id', [pattern])).map((r) => r.session_id);

  it('a conversation an anonymous visitor labelled with a customer\'s id is not theirs: not in /me/export, apart in the agent\'s export, and left by their erasure', async () => {
    const nora = await customerTokenHeader('nora@example.com');
    expect((await chat({ message: 'Where is my kettle?', session_id: 'own-nora-1' }, nora)).status).toBe(200);
    // A visitor who is not signed in types Nora's id as the label, twice, in other spellings.
    expect((await chat({ message: 'My address is Hauptstrasse 5', session_id: 'own-stranger-1', user_id: 'nora@example.com' }, {}, 1)).status).toBe(200);
    expect((await chat({ message: 'Send it to me instead', session_id: 'own-stranger-2', user_id: ' NORA@example.com' })).status).toBe(200);

    const mine = await call(`${base(1)}/api/v1/me/export`, { headers: nora });
    expect(mine.status).toBe(200);
    expect(mine.body.conversations.map((c: any) => c.session_id)).toEqual(['own-nora-1']);
    expect(mine.body).not.toHaveProperty('labelled_unverified_conversations');
    expect(JSON.stringify(mine.body)).not.toContain('Hauptstrasse');

    const agents = await call(`${base()}/api/v1/customers/${encodeURIComponent('nora@example.com')}/export`, { headers: agent });
    expect(agents.status).toBe(200);
    expect(agents.body.conversations.map((c: any) => c.session_id)).toEqual(['own-nora-1']);
    expect(agents.body.labelled_unverified_conversations.map((c: any) => c.session_id)).toEqual(['own-stranger-1', 'own-stranger-2']);
    expect(agents.body.labelled_unverified_conversations[0].messages[0].content).toBe('My address is Hauptstrasse 5');

    const erased = await call(`${base(1)}/api/v1/customers/${encodeURIComponent('nora@example.com')}`, { method: 'DELETE', headers: agent });
    expect(erased.status).toBe(200);
    expect(erased.body.erased).toMatchObject({ conversations: 1, messages: 2, bindings: 1 });
    expect(erased.body.labelled_unverified).toEqual({ conversations: 2, erased: false });
    expect(await sessionsNamed('own-%')).toEqual(['own-stranger-1', 'own-stranger-2']);
    expect((await call(`${base()}/api/v1/chat/history/own-stranger-1`, { headers: agent })).body.messages).toHaveLength(2);
  });

  it('with include_labelled=true the labelled, unverified conversations are erased too and counted; a malformed value is refused and erases nothing', async () => {
    const olga = await customerTokenHeader('olga@example.com');
    expect((await chat({ message: 'Hello from Olga', session_id: 'own-olga-1' }, olga)).status).toBe(200);
    expect((await chat({ message: 'Hello from someone', session_id: 'own-olga-label', user_id: 'olga@example.com' }, {}, 1)).status).toBe(200);
    // Bound to Pia but labelled with Olga's id (a label written before bindings rewrote labels): Pia's, never part of Olga's erasure.
    expect((await chat({ message: 'Hello from Pia', session_id: 'own-pia-1' }, await customerTokenHeader('pia@example.com'))).status).toBe(200);
    await rows(`update chat_sessions set user_id = 'olga@example.com' where session_id = 'own-pia-1'`);

    const refused = await call(`${base()}/api/v1/customers/olga%40example.com?include_labelled=yes`, { method: 'DELETE', headers: agent });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('include_labelled');
    expect(await sessionsNamed('own-olga-%')).toEqual(['own-olga-1', 'own-olga-label']);

    const erased = await call(`${base(1)}/api/v1/customers/olga%40example.com?include_labelled=true`, { method: 'DELETE', headers: agent });
    expect(erased.status).toBe(200);
    expect(erased.body.erased).toMatchObject({ conversations: 2, messages: 4, bindings: 1 });
    expect(erased.body.labelled_unverified).toEqual({ conversations: 1, erased: true });
    expect(await sessionsNamed('own-olga-%')).toEqual([]);
    expect(await sessionsNamed('own-pia-%')).toEqual(['own-pia-1']);
    const [audit] = (await call(`${base()}/api/v1/audit/erasures?limit=1`, { headers: agent })).body.erasures;
    expect(audit.counts).toMatchObject({ conversations: 2, messages: 4 });
  });

  it('a customer with more conversations, summaries and orders than a page is exported whole, in order, each part written a page at a time', async () => {
    const { db } = harness();
    // One statement per 100 conversations: each batch shares its created_at, so pages must break ties by id.
    const seeded = await seedBulkCustomer(db, {
      customerId: 'bulk@example.com',
      prefix: 'own-bulk-',
      conversations: 230,
      messagesPerConversation: 3,
      messageChars: 120,
      summaryEvery: 1,
      feedbackEvery: 7,
      orders: 450,
      batchSize: 100,
    });
    expect(seeded.conversations).toBeGreaterThan(2 * EXPORT_PAGE_SIZES.conversations);
    expect(seeded.orders).toBeGreaterThan(2 * EXPORT_PAGE_SIZES.orders);
    expect(seeded.summaries).toBeGreaterThan(EXPORT_PAGE_SIZES.memory);

    const exported = await call(`${base(1)}/api/v1/me/export`, { headers: await customerTokenHeader('bulk@example.com') });
    expect(exported.status).toBe(200);
    const doc = exported.body;
    // In the order they were bound to the customer.
    const sessions = await rows<{ session_id: string }>(
      `select session_id from session_customers where session_id like 'own-bulk-%' order by bound_at, session_id`,
    );
    expect(doc.conversations.map((c: any) => c.session_id)).toEqual(sessions.map((s) => s.session_id));
    expect(doc.conversations.flatMap((c: any) => c.messages)).toHaveLength(seeded.messages);
    expect(doc.conversations.every((c: any) => c.messages.map((m: any) => m.seq).join() === '1,2,3')).toBe(true);
    expect(doc.conversations.flatMap((c: any) => c.feedback)).toHaveLength(seeded.feedback);
    const orders = await rows<{ order_id: string }>(`select order_id from orders where user_id = 'bulk@example.com' order by created_at desc, order_id desc`);
    expect(doc.orders.map((o: any) => o.order_id)).toEqual(orders.map((o) => o.order_id));
    expect(doc.orders[0].items[0]).toMatchObject({ name: 'Kettle' });
    expect(new Set(doc.memory.map((m: any) => m.session_id)).size).toBe(seeded.summaries);
    expect(doc.profile).toMatchObject({ name: 'Bulk Customer' });

    // The same document, written piece by piece: no piece holds more than a page of a part.
    const pieces: string[] = [];
    await writeCustomerExport(new CustomerDataStore(db), 'bulk@example.com', { write: async (text) => void pieces.push(text), closed: () => false }, {
      includeLabelled: false,
      now: new Date(doc.exported_at),
    });
    expect(JSON.parse(pieces.join(''))).toEqual(doc);
    const largest = Math.max(...pieces.map((p) => p.length));
    const largestPage = Math.max(
      JSON.stringify(doc.orders.slice(0, EXPORT_PAGE_SIZES.orders)).length,
      JSON.stringify(doc.memory.slice(0, EXPORT_PAGE_SIZES.memory)).length,
    );
    expect(largest).toBeLessThanOrEqual(largestPage + 16); // a page and its separators
    expect(pieces.join('').length).toBeGreaterThan(5 * largest);
  });

  it(`a signed-in customer may export their own data ${EXPORTS_PER_HOUR} times an hour, on any instance; then 429 with Retry-After, while others and agents are served`, async () => {
    const quinn = await customerTokenHeader('quinn@example.com');
    for (let i = 0; i < EXPORTS_PER_HOUR; i++) expect((await call(`${base(i)}/api/v1/me/export`, { headers: quinn })).status).toBe(200);
    const limited = await call(`${base(1)}/api/v1/me/export`, { headers: quinn });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('export_rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Counted by pseudonym: the counters hold no raw customer id.
    const keys = await rows<{ key: string }>(`select key from rate_limit_counters where key like 'customer-export:%'`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => /^customer-export:c_[0-9a-f]{32}$/.test(k.key))).toBe(true);
    expect((await call(`${base()}/api/v1/me/export`, { headers: await customerTokenHeader('rosa@example.com') })).status).toBe(200);
    expect((await call(`${base()}/api/v1/customers/quinn%40example.com/export`, { headers: agent })).status).toBe(200);
    // No token, or a forged one, is refused before anything is counted.
    expect((await call(`${base()}/api/v1/me/export`)).status).toBe(401);
  });
}
