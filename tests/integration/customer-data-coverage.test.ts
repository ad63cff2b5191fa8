/**
 * One module (src/privacy/customer-data.ts) knows every table that holds customer
 * data. These tests read the migrated schema (information_schema) and fail when a
 * table with a session or customer column is not listed there, when a listed
 * table's rows can lack the key erasure finds them by, or can exist without a
 * conversation and are not aged by retention; and check on a real PGlite that every
 * table listed as erased really is emptied of a customer's rows by an erasure,
 * while another customer's rows stay, also for a session whose answer was never stored.
 */
import { CUSTOMER_DATA_TABLES, CustomerDataStore, type TableCoverage } from '../../src/privacy/customer-data';
import { writeCustomerExport } from '../../src/privacy/export';
import type { SqlDatabase } from '../../src/store/database';
import type { SqlStore } from '../../src/store/sql-store';
import { openTestStore } from '../support/database';
import { erasureDataCases } from './erasure-data.cases';

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

interface ColumnInfo {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
  is_generated: string;
  data_type: string;
}

/** Columns of the public schema's tables. */
const schemaColumns = () =>
  db.query<ColumnInfo>(
    `select c.table_name, c.column_name, c.is_nullable, c.is_generated, c.data_type from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = 'public' and t.table_type = 'BASE TABLE'`,
  );

/** Tables whose session_id refers to chat_sessions (their rows cannot outlive or precede a conversation). */
const tablesReferringToConversations = async () =>
  new Set(
    (
      await db.query<{ table_name: string }>(
        `select k.table_name from information_schema.referential_constraints r
         join information_schema.key_column_usage k on k.constraint_name = r.constraint_name and k.constraint_schema = r.constraint_schema
         join information_schema.constraint_column_usage u on u.constraint_name = r.constraint_name and u.constraint_schema = r.constraint_schema
         where k.table_schema = 'public' and k.column_name = 'session_id' and u.table_name = 'chat_sessions' and u.column_name = 'session_id'`,
      )
    ).map((r) => r.table_name),
  );

/**
 * What is wrong with a coverage list against the schema: an erased table whose key
 * (`by[0]`) a row can lack (nullable, or computed from other columns), and one whose
 * rows can exist without a conversation (session key, no reference to chat_sessions)
 * that retention does not age (`agedBy`, a timestamp every row has).
 */
function keyProblems(tables: Readonly<Record<string, TableCoverage>>, columns: ColumnInfo[], referring: Set<string>): string[] {
  const problems: string[] = [];
  const column = (table: string, name: string) => columns.find((c) => c.table_name === table && c.column_name === name);
  for (const [table, coverage] of Object.entries(tables)) {
    if (!('erased' in coverage)) continue;
    const key = column(table, coverage.by[0]);
    if (!key) problems.push(`${table}.${coverage.by[0]} does not exist`);
    else if (key.is_generated !== 'NEVER') problems.push(`${table}.${key.column_name} is generated: the row's content, not what it belongs to, decides it`);
    else if (key.is_nullable !== 'NO') problems.push(`${table}.${key.column_name} can be null: a row without it escapes erasure`);
    const canExistWithoutConversation = coverage.by[0] === 'session_id' && table !== 'chat_sessions' && !referring.has(table);
    if (canExistWithoutConversation && !coverage.agedBy) problems.push(`${table} can hold rows without a conversation, and no agedBy column says how retention ages them`);
    if (coverage.agedBy) {
      const aged = column(table, coverage.agedBy);
      if (!aged || aged.is_nullable !== 'NO' || !aged.data_type.startsWith('timestamp')) problems.push(`${table}.${coverage.agedBy} is not a timestamp every row has`);
    }
  }
  return problems;
}

it('every table with a session or customer column is covered by erasure (listed as erased or kept, with why)', async () => {
  const columns = await schemaColumns();
  const tied = [...new Set(columns.filter((c) => TIES_TO_CUSTOMER.test(c.column_name)).map((c) => c.table_name))].sort();
  expect(tied.length).toBeGreaterThanOrEqual(8);
  expect(tied.filter((t) => !(t in CUSTOMER_DATA_TABLES))).toEqual([]);

  // And the list names no table that is gone, nor a column that does not exist.
  const tables = new Set(columns.map((c) => c.table_name));
  for (const [table, coverage] of Object.entries(CUSTOMER_DATA_TABLES)) {
    expect({ table, exists: tables.has(table) }).toEqual({ table, exists: true });
    if ('erased' in coverage) {
      for (const column of coverage.by) expect(columns.some((c) => c.table_name === table && c.column_name === column)).toBe(true);
    } else if ('pseudonymised' in coverage) {
      // The id replaced by its pseudonym, the data dropped (so nullable), and a timestamp every row has for retention.
      for (const column of [coverage.by, ...coverage.dropped]) {
        expect({ table, column, nullable: columns.find((c) => c.table_name === table && c.column_name === column)?.is_nullable }).toEqual({ table, column, nullable: 'YES' });
      }
      const aged = columns.find((c) => c.table_name === table && c.column_name === coverage.agedBy);
      expect({ table, aged: aged?.is_nullable === 'NO' && aged.data_type.startsWith('timestamp') }).toEqual({ table, aged: true });
      expect(coverage.pseudonymised.length).toBeGreaterThan(20);
    } else {
      expect(coverage.kept.length).toBeGreaterThan(20);
    }
  }
});

it('every row of an erased table has the key erasure finds it by, and rows that can exist without a conversation are aged by retention', async () => {
  expect(keyProblems(CUSTOMER_DATA_TABLES, await schemaColumns(), await tablesReferringToConversations())).toEqual([]);
  // The tables whose rows are written before the answer is stored, as the SQL finds them (unstored_sessions_older_than).
  const aged = Object.entries(CUSTOMER_DATA_TABLES).filter(([, c]) => 'erased' in c && c.agedBy).map(([t]) => t).sort();
  expect(aged).toEqual(['idempotency_keys', 'session_customers', 'session_order_proofs']);
});

it('the key check fails on a listed table whose key is nullable or generated, or that can hold rows without a conversation unaged', async () => {
  await db.exec(`
    create table coverage_probe_nullable (session_id text, at timestamptz not null default now());
    create table coverage_probe_generated (answer jsonb not null, session_id text generated always as (answer->>'session_id') stored);
    create table coverage_probe_unaged (session_id text not null);`);
  try {
    const problems = keyProblems(
      {
        coverage_probe_nullable: { erased: 'messages', by: ['session_id'], agedBy: 'at' },
        coverage_probe_generated: { erased: 'messages', by: ['session_id'], agedBy: 'answer' },
        coverage_probe_unaged: { erased: 'messages', by: ['session_id'] },
      },
      await schemaColumns(),
      await tablesReferringToConversations(),
    );
    expect(problems).toEqual([
      'coverage_probe_nullable.session_id can be null: a row without it escapes erasure',
      "coverage_probe_generated.session_id is generated: the row's content, not what it belongs to, decides it",
      'coverage_probe_generated.answer is not a timestamp every row has',
      'coverage_probe_unaged can hold rows without a conversation, and no agedBy column says how retention ages them',
    ]);
  } finally {
    await db.exec('drop table coverage_probe_nullable; drop table coverage_probe_generated; drop table coverage_probe_unaged;');
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
      const [claim] = await db.query<{ claim_token: string }>(`select * from claim_idempotency_key($1, 'h', $2, 3600, 60)`, [`key-${sessionId}`, sessionId]);
      await db.query(`select * from append_turn_idempotent($1, $2::uuid, $3, $4, 'support', $5::jsonb, $6::jsonb)`, [
        `key-${sessionId}`,
        claim!.claim_token,
        sessionId,
        customer,
        JSON.stringify([{ role: 'user', content: 'again', token_count: 1 }]),
        JSON.stringify({ session_id: sessionId, response: 'stored answer' }),
      ]);
      // A person takes over, and a message with an Idempotency-Key is queued for them: its record is the session's too.
      await db.query(`select * from take_over_session($1, 'Mia', false, $2::jsonb)`, [sessionId, JSON.stringify({ role: 'system', content: 'Mia joined', token_count: 2 })]);
      const [queuedClaim] = await db.query<{ claim_token: string }>(`select * from claim_idempotency_key($1, 'h', $2, 3600, 60)`, [`queued-${sessionId}`, sessionId]);
      const queued = await db.query(`select * from queue_customer_message_idempotent($1, $2::uuid, $3, $4::jsonb)`, [
        `queued-${sessionId}`,
        queuedClaim!.claim_token,
        sessionId,
        JSON.stringify({ role: 'user', content: 'Are you there?', token_count: 3 }),
      ]);
      expect(queued).toHaveLength(1);
    }
    // The console tried a tool as this customer (the id as the agent typed it).
    await data.recordToolTrial({
      source: 'console',
      tool: 'getOrders',
      customerId: customer.toUpperCase(),
      arguments: { customerId: customer.toUpperCase(), status: 'open' },
      bound: ['customerId'],
      outcome: 'ok',
    });
  };
  await seed('erin@example.com', ['cov-erin-1', 'cov-erin-2']);
  await seed('olaf@example.com', ['cov-olaf-1']);
  // A binding made before its session's first turn (a failed first answer) is hers too,
  // with what that turn wrote before it failed: an order proof and its key's claim.
  await db.query('select bind_session_customer($1, $2)', ['cov-erin-unstored', 'Erin@Example.com']);
  await db.query('select record_order_proof($1, $2)', ['cov-erin-unstored', 'ZX-59197']);
  await db.query(`select * from claim_idempotency_key('key-cov-erin-unstored', 'h', 'cov-erin-unstored', 3600, 60)`);

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
    // Per conversation: the turn, the retried turn, the takeover note and the queued message.
    messages: 10,
    summaries: 2,
    memory: 2,
    feedback: 2,
    // Per conversation an answer's and a queued message's, and the unstored session's claim.
    idempotency_records: 5,
    order_proofs: 3,
    bindings: 3,
    rate_limit_counters: 4,
  });
  expect(result.traceIds.sort()).toEqual(['trace-cov-erin-1', 'trace-cov-erin-2']);
  expect(Object.values(await rowsOf(erin, 'erin@example.com')).every((n) => n === 0)).toBe(true);
  expect(await rowsOf(['cov-olaf-1'], 'olaf@example.com')).toEqual(olafBefore);

  const again = await data.eraseCustomer('erin@example.com', 'c_test', false, false);
  expect(Object.values(again.counts).every((n) => n === 0)).toBe(true);

  // Tables kept as a record that the customer's data was read: the record stays, the id becomes the pseudonym, the data goes.
  for (const [table, coverage] of Object.entries(CUSTOMER_DATA_TABLES)) {
    if (!('pseudonymised' in coverage)) continue;
    const byId = (customer: string) =>
      db.query(`select count(*)::int as n from ${table} where lower(btrim(${coverage.by})) = lower($1)`, [customer]);
    expect({ table, erin: await byId('erin@example.com'), olaf: await byId('olaf@example.com') }).toEqual({ table, erin: [{ n: 0 }], olaf: [{ n: 1 }] });
    const dropped = coverage.dropped.map((c) => `${c} is null`).join(' and ');
    expect(await db.query(`select count(*)::int as n from ${table} where customer_pseudonym = 'c_test' and ${dropped}`)).toEqual([{ n: 1 }]);
  }
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

describe('sessions never stored, tombstones and dropped answers (PGlite)', () => {
  erasureDataCases(() => ({ db, store }));
});
