/**
 * SIGKILL in the middle of writes, on a real PostgreSQL server (TEST_DATABASE_URL).
 *
 * A child process appends turns through the service's own store (SqlStore over the
 * `pg` backend, four at once over five sessions, every fourth turn with a 200 kB
 * tool result) and is killed with SIGKILL at a random moment, four times over, each
 * new process continuing the same sessions. After every kill the database must be
 * consistent: each session's message_count and token_count equal its rows, seq runs
 * 1…n without gaps, the rows fall into whole turns (each question followed by
 * exactly its own tool calls, results and answer, no half turn), every turn the
 * child saw committed is there, and none twice.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SqlDatabase, SqlQueryable } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';
import { eventually, tsxNodeArgs } from '../support/processes';
import { seededRandom } from '../support/seeded-random';
import { REPO_ROOT } from '../support/test-service';
import { turnMessages } from './turns';

const SEED = process.env.FAULT_SEED === undefined ? Date.now() % 1_000_000 : Number(process.env.FAULT_SEED);
const ROUNDS = 4;
const SESSIONS = 5;

interface Row {
  session_id: string;
  seq: number;
  role: string;
  content: string;
  tool_calls: Array<{ id: string }> | string | null;
  tool_call_id: string | null;
  name: string | null;
  token_count: number;
}

describeOnTestServer(`SIGKILL during writes on a PostgreSQL server (seed ${SEED})`, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  const figures: unknown[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabase(db, testServerHasPgvector());
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    fs.mkdirSync(path.join(REPO_ROOT, 'test-artifacts'), { recursive: true });
    fs.writeFileSync(path.join(REPO_ROOT, 'test-artifacts/fault-sigkill-writes.json'), `${JSON.stringify({ seed: SEED, rounds: figures }, null, 2)}\n`);
  });

  /** Runs a worker until it has committed `turns` turns, waits `extraMs` more, then SIGKILLs it. */
  async function runAndKill(worker: string, turns: number, extraMs: number) {
    // One process (node with tsx's loader, not the tsx command, whose child a SIGKILL would miss).
    const url = new URL(database.url);
    url.searchParams.set('application_name', `kill-${worker}`);
    const child = spawn(process.execPath, [...tsxNodeArgs(path.join(__dirname, 'append-turns-worker.ts')), url.toString(), worker, String(SESSIONS), '4'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const committed = new Map<string, string>(); // turn → session
    let stderr = '';
    let buffered = '';
    let resolveReached: () => void;
    const reached = new Promise<void>((resolve) => (resolveReached = resolve));
    child.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [, sessionId, turn] = line.split(' ');
        if (sessionId && turn) committed.set(turn, sessionId);
      }
      if (committed.size >= turns) resolveReached();
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    const started = Date.now();
    const outcome = await Promise.race([reached.then(() => 'reached' as const), exited.then(() => 'exited' as const)]);
    if (outcome === 'exited') throw new Error(`worker ${worker} exited early:\n${stderr}`);
    await new Promise((r) => setTimeout(r, extraMs));
    child.kill('SIGKILL');
    const how = await exited;
    const ranMs = Date.now() - started;
    // A statement the killed process had sent runs on: the server notices the client is
    // gone only when it answers (so that turn commits whole, or not at all). Wait for
    // its backends to end before looking.
    const backends = async () =>
      (await db.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where application_name = $1', [`kill-${worker}`]))[0]!.n;
    const backendsAtKill = await backends();
    const gone = await eventually(async () => (await backends()) === 0, 20_000, 50);
    expect({ worker, backendsGone: gone }).toEqual({ worker, backendsGone: true });
    return { committed, how, ranMs, backendsAtKill };
  }

  /** Every session, checked against the rules in one snapshot; returns the turns stored, as "worker:k" → session. */
  async function expectConsistent(): Promise<Map<string, string>> {
    return db.transaction(async (tx) => {
      await tx.query('set transaction isolation level repeatable read');
      return checkSessions(tx);
    });
  }

  async function checkSessions(db: SqlQueryable): Promise<Map<string, string>> {
    const stored = new Map<string, string>();
    const sessions = await db.query<{ session_id: string; message_count: number; token_count: string | number; title: string | null; last_message: string | null }>(
      'select session_id, message_count, token_count, title, last_message from chat_sessions order by session_id',
    );
    for (const session of sessions) {
      const rows = await db.query<Row>(
        'select session_id, seq, role, content, tool_calls, tool_call_id, name, token_count from chat_messages where session_id = $1 order by seq',
        [session.session_id],
      );
      const where = `session ${session.session_id}`;
      expect({ where, seqs: rows.map((r) => r.seq) }).toEqual({ where, seqs: rows.map((_, i) => i + 1) });
      expect({ where, message_count: session.message_count }).toEqual({ where, message_count: rows.length });
      expect({ where, token_count: Number(session.token_count) }).toEqual({ where, token_count: rows.reduce((n, r) => n + r.token_count, 0) });
      expect({ where, last_message: session.last_message }).toEqual({ where, last_message: rows.at(-1)?.content.slice(0, 200) ?? null });
      expect({ where, title: session.title }).toEqual({ where, title: rows.find((r) => r.role === 'user')?.content.slice(0, 100) ?? null });

      // Whole turns, each exactly as its writer sent it.
      let i = 0;
      while (i < rows.length) {
        const opening = rows[i]!;
        const match = /^question (w\d+):(\d+)$/.exec(opening.content);
        expect({ where, seq: opening.seq, role: opening.role, opensATurn: match !== null }).toEqual({ where, seq: opening.seq, role: 'user', opensATurn: true });
        const [, worker, k] = match!;
        const turn = `${worker}:${k}`;
        expect({ turn, storedTwice: stored.has(turn) }).toEqual({ turn, storedTwice: false });
        stored.set(turn, session.session_id);
        const expected = turnMessages(worker!, Number(k));
        const actual = rows.slice(i, i + expected.length).map((r) => ({
          role: r.role,
          content: r.content,
          tool_call_ids: (typeof r.tool_calls === 'string' ? (JSON.parse(r.tool_calls) as Array<{ id: string }>) : r.tool_calls)?.map((c) => c.id) ?? null,
          tool_call_id: r.tool_call_id,
          name: r.name,
          token_count: r.token_count,
        }));
        expect({ turn, messages: actual }).toEqual({
          turn,
          messages: expected.map((m) => ({
            role: m.role,
            content: m.content,
            tool_call_ids: m.toolCalls?.map((c) => c.id) ?? null,
            tool_call_id: m.toolCallId ?? null,
            name: m.name ?? null,
            token_count: m.tokenCount,
          })),
        });
        i += expected.length;
      }
    }
    const [orphans] = await db.query<{ n: number }>('select count(*)::int as n from chat_messages m where not exists (select 1 from chat_sessions s where s.session_id = m.session_id)');
    expect(orphans!.n).toBe(0);
    return stored;
  }

  it(`after each of ${ROUNDS} SIGKILLs at a random moment, every session is whole and every committed turn is there`, async () => {
    const random = seededRandom(SEED);
    const committedSoFar = new Map<string, string>();
    for (let round = 1; round <= ROUNDS; round++) {
      const turns = 10 + Math.floor(random() * 50);
      const extraMs = Math.floor(random() * 150);
      const { committed, how, ranMs, backendsAtKill } = await runAndKill(`w${round}`, turns, extraMs);
      expect(how).toBe('SIGKILL');
      for (const [turn, sessionId] of committed) committedSoFar.set(turn, sessionId);

      const stored = await expectConsistent();
      for (const [turn, sessionId] of committedSoFar) {
        expect({ turn, session: stored.get(turn) }).toEqual({ turn, session: sessionId });
      }
      const storedThisRound = [...stored.keys()].filter((t) => t.startsWith(`w${round}:`)).length;
      figures.push({
        round,
        killedAfterMs: ranMs,
        workerConnectionsStillOpenAtKill: backendsAtKill,
        turnsReportedCommitted: committed.size,
        turnsStored: storedThisRound,
        // Committed in the database but killed before it could say so: fine, it is whole.
        storedButNotReported: storedThisRound - committed.size,
        messagesInDatabase: (await db.query<{ n: number }>('select count(*)::int as n from chat_messages'))[0]!.n,
      });
    }
    // No connection of a killed worker is left holding a lock or a transaction open.
    const lingering = await db.query<{ state: string }>(
      "select state from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'",
    );
    expect(lingering).toEqual([]);
  }, 60_000);
});
