/**
 * One module (src/privacy/customer-data.ts) knows every table that holds customer
 * data. These tests read the migrated schema (information_schema) and fail when a
 * table with a session or customer column is not listed there, and check on a real
 * PGlite that every table listed as erased really is emptied of a customer's rows
 * by an erasure, while another customer's rows stay.
 */
import { CUSTOMER_DATA_TABLES, CustomerDataStore } from '../../src/privacy/customer-data';
import { writeCustomerExport } from '../../src/privacy/export';
import type { SqlDatabase } from '../../src/store/database';
import type { SqlStore } from '../../src/store/sql-store';
import { openTestStore } from '../support/database';

let db: SqlDatabase;
let store: SqlStore;
let data: CustomerDataStore;

beforeAll(async () => {
  ({ db, store } = await openTestStore());
  data = new CustomerDataStore(db);
}, 60_000);
afterAll(async () => {
  await db?.close();
});

/** A column that ties a row to a conversation or a customer, by its name. */
const TIES_TO_CUSTOMER = /(^|_)(session|customer|user)(_|$)|session_id|customer_id|user_id/;

it('every table with a session or customer column is covered by erasure (listed as erased or kept, with why)', async () => {
  const columns = await db.query<{ table_name: string; column_name: string }>(
    `select c.table_name, c.column_name from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = 'public' and t.table_type = 'BASE TABLE'`,
  );
  const tied = [...new Set(columns.filter((c) => TIES_TO_CUSTOMER.test(c.column_name)).map((c) => c.table_name))].sort();
  expect(tied.length).toBeGreaterThanOrEqual(8);
  expect(tied.filter((t) => !(t in CUSTOMER_DATA_TABLES))).toEqual([]);

  // And the list names no table that is gone, nor a column that does not exist.
  const tables = new Set(columns.map((c) => c.table_name));
  for (const [table, coverage] of Object.entries(CUSTOMER_DATA_TABLES)) {
    expect({ table, exists: tables.has(table) }).toEqual({ table, exists: true });
    if ('erased' in coverage) {
      for (const column of coverage.by) expect(columns.some((c) => c.table_name === table && c.column_name === column)).toBe(true);
    } else {
      expect(coverage.kept.length).toBeGreaterThan(20);
    }
  }
});

it('a customer erasure leaves no row of theirs in any table listed as erased, and every other customer\'s rows', async () => {
  const seed = async (customer: string, sessions: string[]) => {
    for (const [i, sessionId] of sessions.entries()) {
      await db.query('select bind_session_customer($1, $2)', [sessionId, customer]);
      const [, answer] = await store.appendTurn({
        sessionId,
        userId: customer,
        agentType: 'support',
        messages: [
          { role: 'user', content: `Question ${i} from ${customer}`, tokenCount: 5 },
          { role: 'assistant', content: `Answer ${i}`, tokenCount: 3, metadata: { trace_id: `trace-${sessionId}` } },
        ],
      });
      await store.saveSummary(sessionId, { summary: `Summary of ${sessionId}`, throughSeq: 2, shareWithUser: true });
      await db.query(`select * from record_answer_feedback($1, $2::uuid, 'up', 'fine')`, [sessionId, answer!.id]);
      await db.query('select record_order_proof($1, $2)', [sessionId, 'ZX-14440']);
      await db.query(`select * from rate_limit_hit($1, 60000)`, [`chat-session:${sessionId}`]);
      await db.query(`select * from rate_limit_hit($1, 60000)`, [`order-proof-session:${sessionId}`]);
      const [claim] = await db.query<{ claim_token: string }>(`select * from claim_idempotency_key($1, 'h', 3600, 60)`, [`key-${sessionId}`]);
      await db.query(`select * from append_turn_idempotent($1, $2::uuid, $3, $4, 'support', $5::jsonb, $6::jsonb)`, [
        `key-${sessionId}`,
        claim!.claim_token,
        sessionId,
        customer,
        JSON.stringify([{ role: 'user', content: 'again', token_count: 1 }]),
        JSON.stringify({ session_id: sessionId, response: 'stored answer' }),
      ]);
    }
  };
  await seed('erin@example.com', ['cov-erin-1', 'cov-erin-2']);
  await seed('olaf@example.com', ['cov-olaf-1']);
  // A binding made before its session's first turn (a failed first answer) is hers too.
  await db.query('select bind_session_customer($1, $2)', ['cov-erin-unstored', 'Erin@Example.com']);

  const rowsOf = async (sessions: string[], customer: string) => {
    const counts: Record<string, number> = {};
    for (const [table, coverage] of Object.entries(CUSTOMER_DATA_TABLES)) {
      if (!('erased' in coverage)) continue;
      const conditions = coverage.by.map((column) =>
        column === 'key'
          ? `${column} = any (select p || s from unnest($1::text[]) s, unnest(array['chat-session:', 'order-proof-session:']) p)`
          : column === 'session_id'
            ? `${column} = any ($1::text[])`
            : `lower(${column}) = lower($2)`,
      );
      const params = conditions.some((c) => c.includes('$2')) ? [sessions, customer] : [sessions];
      const [row] = await db.query<{ n: number }>(`select count(*)::int as n from ${table} where ${conditions.join(' or ')}`, params);
      counts[table] = row!.n;
    }
    return counts;
  };
  const erin = ['cov-erin-1', 'cov-erin-2', 'cov-erin-unstored'];
  const before = await rowsOf(erin, 'erin@example.com');
  // Every erased table held rows of hers, so the check below proves something for each.
  expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
  const olafBefore = await rowsOf(['cov-olaf-1'], 'olaf@example.com');

  const result = await data.eraseCustomer('ERIN@example.com ', 'c_test', false, false);
  expect(result.counts).toEqual({
    conversations: 2,
    messages: 6,
    summaries: 2,
    memory: 2,
    feedback: 2,
    idempotency_records: 2,
    order_proofs: 2,
    bindings: 3,
    rate_limit_counters: 4,
  });
  expect(result.traceIds.sort()).toEqual(['trace-cov-erin-1', 'trace-cov-erin-2']);
  expect(Object.values(await rowsOf(erin, 'erin@example.com')).every((n) => n === 0)).toBe(true);
  expect(await rowsOf(['cov-olaf-1'], 'olaf@example.com')).toEqual(olafBefore);

  const again = await data.eraseCustomer('erin@example.com', 'c_test', false, false);
  expect(Object.values(again.counts).every((n) => n === 0)).toBe(true);
});

it('an erased conversation cannot come back: storing a turn, a binding or an order proof under its id fails with ER410', async () => {
  await store.appendTurn({ sessionId: 'cov-gone', userId: null, agentType: 'support', messages: [{ role: 'user', content: 'hello', tokenCount: 1 }] });
  expect(await data.eraseConversation('cov-gone', 'agent', null, false)).not.toBeNull();
  await expect(
    store.appendTurn({ sessionId: 'cov-gone', userId: null, agentType: 'support', messages: [{ role: 'user', content: 'late answer', tokenCount: 1 }] }),
  ).rejects.toMatchObject({ status: 410, code: 'conversation_erased' });
  await expect(db.query('select bind_session_customer($1, $2)', ['cov-gone', 'x@example.com'])).rejects.toMatchObject({ code: 'ER410' });
  await expect(db.query('select record_order_proof($1, $2)', ['cov-gone', 'ZX-14440'])).rejects.toMatchObject({ code: 'ER410' });
  const [row] = await db.query<{ n: number }>(`select count(*)::int as n from chat_sessions where session_id = 'cov-gone'`);
  expect(row!.n).toBe(0);
  // Erasing it again finds nothing.
  expect(await data.eraseConversation('cov-gone', 'agent', null, false)).toBeNull();
});

it('an export streams a long conversation a page at a time and still is one valid document with every message in order', async () => {
  // Bound to the customer by a customer token (as a signed-in customer's conversations are).
  await db.query('select bind_session_customer($1, $2)', ['cov-long', 'long@example.com']);
  await db.query('select bind_session_customer($1, $2)', ['cov-short', 'LONG@example.com']);
  const messages = Array.from({ length: 1203 }, (_, i) => ({ role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant', content: `message ${i + 1}`, tokenCount: 2 }));
  await store.appendTurn({ sessionId: 'cov-long', userId: 'long@example.com', agentType: 'support', messages });
  await store.appendTurn({ sessionId: 'cov-short', userId: 'LONG@example.com', agentType: 'support', messages: [{ role: 'user', content: 'short one', tokenCount: 2 }] });
  const pieces: string[] = [];
  await writeCustomerExport(data, 'long@example.com', { write: async (text) => void pieces.push(text), closed: () => false }, {
    includeLabelled: false,
    now: new Date('2026-11-25T00:00:00Z'),
  });
  // Written in pieces (the head, each conversation, each page of messages), never as one string.
  expect(pieces.length).toBeGreaterThanOrEqual(6);
  const doc = JSON.parse(pieces.join(''));
  expect(doc).toMatchObject({ customer_id: 'long@example.com', exported_at: '2026-11-25T00:00:00.000Z', profile: null, orders: [], memory: [] });
  expect(doc.conversations.map((c: any) => c.session_id)).toEqual(['cov-long', 'cov-short']);
  expect(doc.conversations[0].messages.map((m: any) => m.seq)).toEqual(Array.from({ length: 1203 }, (_, i) => i + 1));
  expect(doc.conversations[0].messages.at(-1).content).toBe('message 1203');
  expect(doc.conversations[1].messages).toHaveLength(1);

  // A receiver that went away stops the export early.
  const partial: string[] = [];
  await writeCustomerExport(data, 'long@example.com', { write: async (text) => void partial.push(text), closed: () => partial.length >= 2 }, { includeLabelled: false });
  expect(partial.length).toBeLessThan(pieces.length);
});
