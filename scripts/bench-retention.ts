/**
 * npm run bench:retention [-- --conversations=2000 --messages=10 --batch=200 --unstored=0]
 *
 * --unstored=N also seeds N expired sessions whose answer was never stored (a
 * customer binding and an order proof, no conversation), which the sweep finds by
 * their rows' own age once the expired conversations are gone.
 * How long a retention sweep takes and how long it holds chat up: seeds expired
 * conversations into a fresh database (in-memory PGlite, or DATABASE_URL: a
 * scratch database you can empty), then sweeps them while a reader keeps asking
 * for one active session (as each chat turn does), and prints the sweep's time and
 * the reader's slowest wait. On PGlite (one connection) a batch holds every other
 * statement up for its duration; on a server, other sessions' rows are never locked.
 */
import { createLogger } from '../src/observability/logger';
import { CustomerDataStore } from '../src/privacy/customer-data';
import { ErasureService } from '../src/privacy/erasure';
import { CustomerPseudonyms } from '../src/privacy/pseudonym';
import { sweepExpiredConversations } from '../src/privacy/retention';
import { TraceDeletion } from '../src/privacy/trace-deletion';
import type { SqlDatabase } from '../src/store/database';
import { applyMigrations } from '../src/store/migrations';
import { openPgliteDatabase } from '../src/store/pglite';
import { openPostgresDatabase } from '../src/store/postgres';
import { SqlStore } from '../src/store/sql-store';

function option(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split('=')[1]) : fallback;
}

async function main(): Promise<void> {
  const conversations = option('conversations', 2000);
  const perConversation = option('messages', 10);
  const batchSize = option('batch', 200);
  const unstored = option('unstored', 0);
  const url = process.env['DATABASE_URL'];
  const db: SqlDatabase = url ? openPostgresDatabase({ connectionString: url, poolMax: 4 }) : await openPgliteDatabase();
  try {
    if (!url) await applyMigrations(db);
    const store = new SqlStore(db);
    const messages = Array.from({ length: perConversation }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: `message ${i} `.repeat(20), tokenCount: 40 }));
    const seedStart = performance.now();
    for (let i = 0; i < conversations; i++) await store.appendTurn({ sessionId: `bench-ret-${i}`, userId: `c${i % 50}@example.com`, agentType: 'support', messages });
    await db.query(`update chat_sessions set updated_at = now() - interval '30 days' where session_id like 'bench-ret-%'`);
    for (let i = 0; i < unstored; i++) {
      await db.query('select bind_session_customer($1, $2)', [`bench-unstored-${i}`, `c${i % 50}@example.com`]);
      await db.query('select record_order_proof($1, $2)', [`bench-unstored-${i}`, 'ZX-14440']);
    }
    await db.query(`update session_customers set bound_at = now() - interval '30 days' where session_id like 'bench-unstored-%'`);
    await db.query(`update session_order_proofs set proven_at = now() - interval '30 days' where session_id like 'bench-unstored-%'`);
    await store.appendTurn({ sessionId: 'bench-active', userId: null, agentType: 'support', messages: messages.slice(0, 2) });
    const seedMs = performance.now() - seedStart;

    const data = new CustomerDataStore(db);
    const logger = createLogger('silent');
    const erasure = new ErasureService({ data, pseudonyms: new CustomerPseudonyms('b'.repeat(32)), traces: new TraceDeletion(null, data, logger, 60_000), touch: () => {}, logger });
    let sweeping = true;
    const waits: number[] = [];
    const reader = (async () => {
      while (sweeping) {
        const t = performance.now();
        await store.getSession('bench-active');
        waits.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const started = performance.now();
    const outcome = await sweepExpiredConversations({ data, erasure, langfuse: false }, { retentionDays: 1, batchSize });
    const sweepMs = performance.now() - started;
    sweeping = false;
    await reader;
    waits.sort((a, b) => a - b);
    const p = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]!.toFixed(1);
    console.log(`| backend | conversations × messages | never stored | batch | sweep | per 1,000 conversations | reader p50 | reader max |`);
    console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
    console.log(
      `| ${url ? 'postgres' : 'pglite'} | ${outcome.counts.conversations} × ${perConversation} | ${unstored} | ${batchSize} | ${(sweepMs / 1000).toFixed(2)} s (${outcome.batches} batches) | ` +
        `${((sweepMs / outcome.counts.conversations) * 1000 / 1000).toFixed(2)} s | ${p(0.5)} ms | ${waits.at(-1)!.toFixed(1)} ms |`,
    );
    if (unstored > 0) console.log(`(the sessions never stored: ${outcome.counts.bindings} binding(s) and ${outcome.counts.order_proofs} order proof(s) erased)`);
    console.log(`(seeding took ${(seedMs / 1000).toFixed(1)} s; the active conversation is still there: ${(await store.getSession('bench-active')) !== null})`);
    if (url) await db.query(`delete from chat_sessions where session_id = 'bench-active'`);
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
