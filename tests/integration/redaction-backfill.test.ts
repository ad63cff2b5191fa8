/**
 * The redaction backfill (migration 20261126000100, src/privacy/redaction-backfill.ts)
 * on PGlite and on the real PostgreSQL server (TEST_DATABASE_URL): rows stored with
 * raw card numbers in the forms the earlier redaction missed (no-break and thin
 * spaces, line breaks, dots, full-width digits, a zero-width space, glued letters, a
 * glued security code; and, since issue 42, combining marks, keycap digits and
 * `_ , · ' + |` between groups) in every table that holds customer text are masked after it;
 * rows of ordinary digits are byte for byte as they were; it stops and resumes from
 * its watermark; a second run changes nothing; a row changed between its read and
 * its write is not overwritten. And the service runs it at start.
 */
import { REDACTION_VERSION } from '../../src/privacy/redaction';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../src/observability/logger';
import { RedactionBackfill, RedactionBackfillStore } from '../../src/privacy/redaction-backfill';
import { Redactor } from '../../src/privacy/redaction';
import type { SqlDatabase } from '../../src/store/database';
import { openPgliteDatabase } from '../../src/store/pglite';
import { openPostgresDatabase } from '../../src/store/postgres';
import { applyMigrations } from '../../src/store/migrations';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector, truncateAllTables } from '../support/postgres';
import { startTestService } from '../support/test-service';

/** The backfill's pass name: the redaction version (bumped when the rules change, e.g. v3 read every script's digits). */
const PASS = `v${REDACTION_VERSION}`;

/** Card numbers as customers pasted them, before redaction found these forms. */
const RAW = {
  noBreakSpace: '4242\u00a04242\u00a04242\u00a04242',
  thinSpace: '4000\u20090566\u20095566\u20095556',
  fullWidth: '５５５５５５５５５５５５４４４４',
  zeroWidth: '3782\u200b822463\u200b10005',
  glued: 'Visa4111111111111111',
  lineBreaks: '6011\n1111\n1111\n1117',
  dots: '5105.1051.0510.5100',
  gluedCode: '4012888888881881123',
} as const;
/** Each raw number's digits, as a pattern that finds them whatever stands between them (and in full width). */
const DIGITS: Record<keyof typeof RAW, string> = {
  noBreakSpace: '4242424242424242',
  thinSpace: '4000056655665556',
  fullWidth: '5555555555554444',
  zeroWidth: '378282246310005',
  glued: '4111111111111111',
  lineBreaks: '6011111111111117',
  dots: '5105105105105100',
  gluedCode: '4012888888881881',
};
const ORDINARY = [
  'Call +49 1512 3456789 on 2026-11-25 at 14:30, €149.90',
  'Order ZX-14440 and #10043 from 25.11.2026, parcel 00340434161094042557',
  '+44 20 7946 0958, 10115 Berlin, v1.2.3, ４２４２ ４２４２ ４２４２ ４２４１',
];

const redactor = new Redactor(['card']);
const silent = createLogger('silent');

/** Every digit string of the raw numbers found in any row of any public table (none after the backfill). */
async function rawNumbersLeft(db: SqlDatabase): Promise<string[]> {
  const tables = await db.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'");
  const left: string[] = [];
  for (const { table_name } of tables) {
    const rows = await db.query<{ t: string }>(`select t::text as t from "${table_name}" t`);
    for (const { t } of rows) {
      // Rows as text, folded as the detector folds them and stripped of all but digits, so a number is found however it was split.
      const digits = t.normalize('NFKC').replace(/[^0-9]/g, '');
      for (const [name, number] of Object.entries(DIGITS)) if (digits.includes(number)) left.push(`${table_name}: ${name}`);
    }
  }
  return left;
}

/** Rows in the old forms in every table that holds customer text, and rows of ordinary digits. */
async function storeOldRows(db: SqlDatabase): Promise<void> {
  const longTitle = `${'x'.repeat(88)} ${RAW.noBreakSpace} please`;
  await db.exec(`
    insert into chat_sessions (session_id, user_id, title, last_message, message_count, summary) values
      ('bf-cards', 'lukas@example.com', ${lit(`My card ${RAW.noBreakSpace} was charged twice`)}, ${lit(`Amex ${RAW.zeroWidth}`)}, 5,
       ${lit(`The customer gave card ${RAW.thinSpace} and asked for a refund.`)}),
      ('bf-title', null, ${lit(longTitle.slice(0, 100))}, ${lit(longTitle.slice(0, 200))}, 1, null),
      ('bf-ordinary', 'anna@example.com', ${lit(ORDINARY[0]!)}, ${lit(ORDINARY[2]!)}, 3, ${lit(`Summary: ${ORDINARY[1]}`)});
    insert into chat_messages (id, session_id, seq, role, content, tool_calls, metadata, token_count) values
      ('00000000-0000-4000-8000-000000000001', 'bf-cards', 1, 'user', ${lit(`My card ${RAW.noBreakSpace} was charged twice`)}, null, '{}', 10),
      ('00000000-0000-4000-8000-000000000002', 'bf-cards', 2, 'assistant', ${lit(`You wrote ${RAW.fullWidth}; I checked ${RAW.glued}.`)},
        ${lit(JSON.stringify([{ id: 'call_4222222222222', name: 'lookup_order', args: { note: `card ${RAW.dots}` } }]))},
        ${lit(JSON.stringify({ trace_id: '4222222222222', model: 'gpt-4o-mini', sources: [{ title: `FAQ ${RAW.lineBreaks}` }] }))}, 10),
      ('00000000-0000-4000-8000-000000000003', 'bf-cards', 3, 'user', ${lit(`Code: ${RAW.gluedCode}`)}, null, '{"redacted": {"card": 1}}', 10),
      ('00000000-0000-4000-8000-000000000004', 'bf-cards', 4, 'system', 'Maria took over', null, '{"handoff": {"handler": "human", "agent_name": "Maria"}}', 0),
      ('00000000-0000-4000-8000-000000000005', 'bf-cards', 5, 'user', ${lit(`Amex ${RAW.zeroWidth}`)}, null, '{"queued_for": "Maria"}', 10),
      ('00000000-0000-4000-8000-000000000006', 'bf-title', 1, 'user', ${lit(longTitle)}, null, '{}', 10),
      ('00000000-0000-4000-8000-000000000007', 'bf-ordinary', 1, 'user', ${lit(ORDINARY[0]!)}, null, '{}', 10),
      ('00000000-0000-4000-8000-000000000008', 'bf-ordinary', 2, 'assistant', ${lit(ORDINARY[1]!)}, null, '{"trace_id": "t-1"}', 10),
      ('00000000-0000-4000-8000-000000000009', 'bf-ordinary', 3, 'user', ${lit(ORDINARY[2]!)}, null, '{}', 10);
    insert into conversation_summaries (user_id, session_id, summary, summarized_through_seq) values
      ('lukas@example.com', 'bf-cards', ${lit(`Lukas paid with ${RAW.lineBreaks}.`)}, 3),
      ('anna@example.com', 'bf-ordinary', ${lit(`Anna: ${ORDINARY[1]}`)}, 2);
    insert into answer_feedback (message_id, session_id, rating, comment) values
      ('00000000-0000-4000-8000-000000000002', 'bf-cards', 'down', ${lit(`Refund to ${RAW.thinSpace}`)}),
      ('00000000-0000-4000-8000-000000000008', 'bf-ordinary', 'up', ${lit(ORDINARY[0]!)});
    insert into idempotency_keys (key, request_hash, session_id, response, session_created, expires_at) values
      ('bf-key-answer', 'h1', 'bf-cards', ${lit(JSON.stringify({ session_id: 'bf-cards', response: `You wrote ${RAW.fullWidth}`, message_id: '00000000-0000-4000-8000-000000000002' }))}, false, now() + interval '1 day'),
      ('bf-key-queued', 'h2', 'bf-cards', ${lit(JSON.stringify({ queued: { session_id: 'bf-cards', handler: 'human', agent_name: 'Maria', message_id: '00000000-0000-4000-8000-000000000005' } }))}, false, now() + interval '1 day'),
      ('bf-key-ordinary', 'h3', 'bf-ordinary', ${lit(JSON.stringify({ session_id: 'bf-ordinary', response: ORDINARY[1] }))}, false, now() + interval '1 day');
  `);
}

/** A SQL string literal (the test's own constants only). */
function lit(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** The rows that hold only ordinary digits, whole, as text: the backfill must leave them byte for byte. */
async function ordinaryRows(db: SqlDatabase): Promise<string[]> {
  const rows = await db.query<{ t: string }>(`
    select t::text as t from chat_sessions t where session_id = 'bf-ordinary'
    union all select t::text from chat_messages t where session_id = 'bf-ordinary' or role = 'system'
    union all select t::text from conversation_summaries t where session_id = 'bf-ordinary'
    union all select t::text from answer_feedback t where session_id = 'bf-ordinary'
    union all select t::text from idempotency_keys t where key = 'bf-key-ordinary'
    order by 1`);
  return rows.map((r) => r.t);
}

function backfillSuite(open: () => Promise<{ db: SqlDatabase; close(): Promise<void> }>): void {
  let db: SqlDatabase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await open());
  }, 60_000);
  afterAll(async () => close?.());
  beforeEach(async () => {
    await truncateAllTables(db);
    await storeOldRows(db);
  });

  it('masks every raw number in every table that holds customer text, and keeps ordinary digits byte for byte', async () => {
    const before = await ordinaryRows(db);
    expect((await rawNumbersLeft(db)).length).toBeGreaterThan(8);

    const outcome = await new RedactionBackfill(new RedactionBackfillStore(db), redactor, silent, 4).run();

    expect(outcome).toMatchObject({ pass: `${PASS}:card`, finished: true });
    expect(await rawNumbersLeft(db)).toEqual([]);
    expect(await ordinaryRows(db)).toEqual(before);

    const [first] = await db.query<{ content: string; metadata: Record<string, unknown> }>("select content, metadata from chat_messages where session_id = 'bf-cards' and seq = 1");
    expect(first).toEqual({ content: 'My card [card ending 4242] was charged twice', metadata: { redacted: { card: 1 } } });
    const [assistant] = await db.query<{ content: string; tool_calls: unknown; metadata: unknown }>(
      "select content, tool_calls, metadata from chat_messages where session_id = 'bf-cards' and seq = 2",
    );
    expect(assistant).toEqual({
      content: 'You wrote [card ending 4444]; I checked Visa[card ending 1111].',
      // Identifiers are kept as they are, whatever their digits.
      tool_calls: [{ id: 'call_4222222222222', name: 'lookup_order', args: { note: 'card [card ending 5100]' } }],
      metadata: { trace_id: '4222222222222', model: 'gpt-4o-mini', sources: [{ title: 'FAQ [card ending 1117]' }] },
    });
    // What was masked before is added to: the message said {"card": 1} and had one more.
    const [coded] = await db.query<{ content: string; metadata: unknown }>("select content, metadata from chat_messages where session_id = 'bf-cards' and seq = 3");
    expect(coded).toEqual({ content: 'Code: [card ending 1881]', metadata: { redacted: { card: 2 } } });
    const [queued] = await db.query<{ content: string; metadata: unknown }>("select content, metadata from chat_messages where session_id = 'bf-cards' and seq = 5");
    expect(queued).toEqual({ content: 'Amex [card ending 0005]', metadata: { queued_for: 'Maria', redacted: { card: 1 } } });

    const sessions = await db.query<{ session_id: string; title: string; last_message: string; summary: string | null }>(
      "select session_id, title, last_message, summary from chat_sessions where session_id in ('bf-cards', 'bf-title') order by 1",
    );
    expect(sessions).toEqual([
      {
        session_id: 'bf-cards',
        title: 'My card [card ending 4242] was charged twice',
        last_message: 'Amex [card ending 0005]',
        summary: 'The customer gave card [card ending 5556] and asked for a refund.',
      },
      // The title held a cut-off part of the number: it is cut again from the masked message.
      { session_id: 'bf-title', title: `${'x'.repeat(88)} [card endin`, last_message: `${'x'.repeat(88)} [card ending 4242] please`, summary: null },
    ]);
    expect(await db.query("select summary from conversation_summaries where session_id = 'bf-cards'")).toEqual([{ summary: 'Lukas paid with [card ending 1117].' }]);
    expect(await db.query("select comment from answer_feedback where session_id = 'bf-cards'")).toEqual([{ comment: 'Refund to [card ending 5556]' }]);
    const [key] = await db.query<{ response: unknown; session_id: string }>("select response, session_id from idempotency_keys where key = 'bf-key-answer'");
    expect(key).toEqual({
      response: { session_id: 'bf-cards', response: 'You wrote [card ending 4444]', message_id: '00000000-0000-4000-8000-000000000002' },
      session_id: 'bf-cards',
    });

    const progress = await new RedactionBackfillStore(db).progress(`${PASS}:card`);
    expect(progress).toMatchObject({ stage: 'done', finished: true, rowsRead: 3 + 9 + 2 + 2 + 3 });
    expect(progress!.textsChanged).toBe(outcome.textsChanged);
  });

  it('stops after any batch and continues from its watermark; a second run changes nothing', async () => {
    const store = new RedactionBackfillStore(db);
    const first = await new RedactionBackfill(store, redactor, silent, 3).run({ maxBatches: 2 });
    expect(first).toMatchObject({ finished: false, batches: 2, rowsRead: 6 });
    // The watermark: six messages done (in id order), so the next start begins at the seventh.
    expect(await store.progress(`${PASS}:card`)).toMatchObject({ stage: 'chat_messages', afterKey: '00000000-0000-4000-8000-000000000006', rowsRead: 6, finished: false });
    expect(await db.query("select content from chat_messages where seq = 1 and session_id = 'bf-cards'")).toEqual([{ content: 'My card [card ending 4242] was charged twice' }]);
    expect((await rawNumbersLeft(db)).length).toBeGreaterThan(0);

    // A restart: a new runner continues the same pass.
    const rest = await new RedactionBackfill(store, redactor, silent, 3).run();
    expect(rest).toMatchObject({ finished: true, rowsRead: 19 - 6 });
    expect(await rawNumbersLeft(db)).toEqual([]);

    // Run again from the start (the watermark removed): nothing is changed.
    const snapshot = await db.query('select t::text from chat_messages t union all select t::text from chat_sessions t order by 1');
    await db.query(`delete from redaction_backfill where pass = '${PASS}:card'`);
    const again = await new RedactionBackfill(store, redactor, silent, 3).run();
    expect(again).toMatchObject({ finished: true, rowsRead: 19, textsChanged: 0 });
    expect(await db.query('select t::text from chat_messages t union all select t::text from chat_sessions t order by 1')).toEqual(snapshot);
  });

  it('never writes over a text that changed after it was read: the batch is read again', async () => {
    const store = new RedactionBackfillStore(db);
    const [row] = await store.nextBatch(`${PASS}:card`, 1);
    expect(row).toMatchObject({ stage: 'chat_messages', fromKey: null, key: '00000000-0000-4000-8000-000000000001' });
    // The row changes in between (as a session's last_message does with every turn).
    await db.query("update chat_messages set content = 'changed meanwhile' where id = $1", [row!.key]);
    const result = await store.store(`${PASS}:card`, 'chat_messages', null, row!.key, 1, [{ key: row!.key, column: 'content', old: row!.texts['content'], new: 'stale' }]);
    expect(result).toEqual({ changed: 0, conflicts: 1 });
    expect(await db.query('select content from chat_messages where id = $1', [row!.key])).toEqual([{ content: 'changed meanwhile' }]);
    expect(await store.progress(`${PASS}:card`)).toMatchObject({ stage: 'chat_messages', afterKey: null });
    // A column the backfill does not write is refused.
    await expect(store.store(`${PASS}:card`, 'chat_messages', null, row!.key, 1, [{ key: row!.key, column: 'session_id', old: 'bf-cards', new: 'x' }])).rejects.toMatchObject({
      code: '22023',
    });
  });

  it('masks numbers stored with combining marks, keycap digits or _ , · \' + | between groups (issue 42), whole', async () => {
    const keycap = (digits: string) => digits.replace(/[0-9]/g, (d) => `${d}\ufe0f\u20e3`);
    const typed: Array<[string, string]> = [
      ['card 4\u03012\u03014\u03012 4242 4242 4242\u0301 thanks', 'card [card ending 4242] thanks'],
      ['card 4000\u034f0566\u034f5566\u034f5556\u034f.', 'card [card ending 5556].'],
      [`card ${keycap('5555555555554444')} ok`, 'card [card ending 4444] ok'],
      ['card 3782_822463_10005', 'card [card ending 0005]'],
      ['card 4111,1111,1111,1111', 'card [card ending 1111]'],
      ['card 6011·1111·1111·1117', 'card [card ending 1117]'],
      ["card 5105'1051'0510'5100", 'card [card ending 5100]'],
      ['card 4012+8888+8888+1881', 'card [card ending 1881]'],
      ['card 2223 | 0031 | 2200 | 3222', 'card [card ending 3222]'],
      // Ordinary numbers with those marks stay as they were.
      ["€1,234.56, CHF 1'234'567.50, page 1 | 2, room 4️⃣0️⃣4️⃣", "€1,234.56, CHF 1'234'567.50, page 1 | 2, room 4️⃣0️⃣4️⃣"],
    ];
    await db.exec(`insert into chat_sessions (session_id, title, last_message, message_count) values ('bf-typed', ${lit(typed[0]![0])}, ${lit(typed.at(-1)![0])}, ${typed.length})`);
    for (const [seq, [text]] of typed.entries()) {
      await db.query("insert into chat_messages (session_id, seq, role, content, metadata, token_count) values ('bf-typed', $1, 'user', $2, '{}', 10)", [seq + 1, text]);
    }

    await new RedactionBackfill(new RedactionBackfillStore(db), redactor, silent).run();

    const stored = await db.query<{ content: string }>("select content from chat_messages where session_id = 'bf-typed' order by seq");
    expect(stored.map((m) => m.content)).toEqual(typed.map(([, masked]) => masked));
    expect(await db.query("select title, last_message from chat_sessions where session_id = 'bf-typed'")).toEqual([
      { title: 'card [card ending 4242] thanks', last_message: typed.at(-1)![1] },
    ]);
  });

  it('is a pass of its own per detector set: REDACT=card,iban searches everything again', async () => {
    await new RedactionBackfill(new RedactionBackfillStore(db), redactor, silent).run();
    await db.query("update answer_feedback set comment = 'Refund to DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000' where session_id = 'bf-ordinary'");
    const both = await new RedactionBackfill(new RedactionBackfillStore(db), new Redactor(['card', 'iban']), silent).run();
    expect(both).toMatchObject({ pass: `${PASS}:card,iban`, finished: true, textsChanged: 1 });
    expect(await db.query("select comment from answer_feedback where session_id = 'bf-ordinary'")).toEqual([{ comment: 'Refund to [IBAN ending 3000]' }]);
  });
}

describe('the redaction backfill on PGlite', () => {
  backfillSuite(async () => {
    const db = await openPgliteDatabase();
    await applyMigrations(db);
    return { db, close: () => db.close() };
  });

  it('runs at the start of the service, in the background, while the service answers', async () => {
    // Rows stored by an earlier version, in the service's data folder.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'redaction-backfill-'));
    const earlier = await openPgliteDatabase(path.join(dataDir, 'pglite'));
    await applyMigrations(earlier);
    await storeOldRows(earlier);
    await earlier.close();

    const service = await startTestService({ dataDir });
    try {
      const answer = await service.postChat({ message: 'Where is my order?' });
      expect(answer.status).toBe(200);
      const outcome = await service.deps.redactionBackfill.finished();
      expect(outcome).toMatchObject({ pass: `${PASS}:card`, finished: true });
      // The 19 rows stored before; the turn answered meanwhile is read too when the pass is slower than the turn
      // and its rows' random keys fall after the pass's place (a loaded CI run read 20).
      expect(outcome?.rowsRead).toBeGreaterThanOrEqual(19);
      expect(outcome?.rowsRead).toBeLessThanOrEqual(19 + 4);
      expect(await rawNumbersLeft(service.db)).toEqual([]);
    } finally {
      await service.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

const hasPgvector = testServerHasPgvector();

describeOnTestServer('the redaction backfill on a PostgreSQL server', () => {
  backfillSuite(async () => {
    const database = await createTestDatabase();
    const db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabase(db, hasPgvector);
    return {
      db,
      close: async () => {
        await db.close();
        await database.drop();
      },
    };
  });
});
