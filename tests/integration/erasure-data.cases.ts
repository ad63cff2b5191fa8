/**
 * Erasure and retention at the SQL level, as one set of cases that runs on PGlite
 * (customer-data-coverage.test.ts) and on the real PostgreSQL server
 * (retention-postgres.test.ts): sessions whose answer was never stored, the
 * pruning of erased_sessions, the trace of an answer dropped at a takeover, and
 * the tool trials retention deletes.
 */
import { createLogger } from '../../src/observability/logger';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { ErasureService } from '../../src/privacy/erasure';
import { CustomerPseudonyms } from '../../src/privacy/pseudonym';
import { sweepExpiredConversations } from '../../src/privacy/retention';
import { TraceDeletion } from '../../src/privacy/trace-deletion';
import type { SqlDatabase } from '../../src/store/database';
import { HandoffStore } from '../../src/store/handoff-store';
import type { SqlStore } from '../../src/store/sql-store';

export interface ErasureDataHarness {
  db: SqlDatabase;
  store: SqlStore;
}

export function erasureDataCases(harness: () => ErasureDataHarness): void {
  const parts = () => {
    const { db } = harness();
    const data = new CustomerDataStore(db);
    const logger = createLogger('silent');
    const erasure = new ErasureService({ data, pseudonyms: new CustomerPseudonyms('x'.repeat(32)), traces: new TraceDeletion(null, data, logger, 60_000), touch: () => {}, logger });
    return { data, erasure, langfuse: false };
  };
  const one = async <Row>(sql: string, params: unknown[] = []) => (await harness().db.query<Row>(sql, params))[0]!;

  /** What a turn writes before its answer is stored: the customer binding, an order proof, the key's claim. */
  const failedTurn = async (sessionId: string, options: { customer?: string; ageDays?: number } = {}) => {
    const { db } = harness();
    if (options.customer) await db.query('select bind_session_customer($1, $2)', [sessionId, options.customer]);
    await db.query('select record_order_proof($1, $2)', [sessionId, 'ZX-14440']);
    await db.query(`select * from claim_idempotency_key($1, 'h', $2, 3600, 300)`, [`claim-${sessionId}`, sessionId]);
    if (options.ageDays) {
      const age = `${options.ageDays} days`;
      await db.query(`update session_customers set bound_at = now() - $2::interval where session_id = $1`, [sessionId, age]);
      await db.query(`update session_order_proofs set proven_at = now() - $2::interval where session_id = $1`, [sessionId, age]);
      await db.query(`update idempotency_keys set created_at = now() - $2::interval where session_id = $1`, [sessionId, age]);
    }
  };
  const rowsOf = (sessionId: string) =>
    one<{ bindings: number; proofs: number; keys: number }>(
      `select (select count(*)::int from session_customers where session_id = $1) as bindings,
              (select count(*)::int from session_order_proofs where session_id = $1) as proofs,
              (select count(*)::int from idempotency_keys where session_id = $1) as keys`,
      [sessionId],
    );

  it('a session whose only rows are a binding, an order proof and a key claim (its answer never stored) is erased by id, counted; then it is unknown', async () => {
    await failedTurn('unstored-by-id', { customer: 'nora@example.com' });
    const result = await parts().data.eraseConversation('unstored-by-id', 'agent', null, false);
    expect(result?.counts).toMatchObject({ conversations: 0, messages: 0, bindings: 1, order_proofs: 1, idempotency_records: 1 });
    expect(await rowsOf('unstored-by-id')).toEqual({ bindings: 0, proofs: 0, keys: 0 });
    // Its id cannot be used for a while (an answer may still be on its way), as for any erased conversation.
    await expect(harness().db.query('select bind_session_customer($1, $2)', ['unstored-by-id', 'nora@example.com'])).rejects.toMatchObject({ code: 'ER410' });
    expect(await parts().data.eraseConversation('unstored-by-id', 'agent', null, false)).toBeNull();
    // An id with nothing at all: nothing recorded, no tombstone.
    const audits = await one<{ n: number }>('select count(*)::int as n from erasure_audit');
    expect(await parts().data.eraseConversation('never-seen', 'agent', null, false)).toBeNull();
    expect(await one<{ n: number }>('select count(*)::int as n from erasure_audit')).toEqual(audits);
    expect(await one<{ n: number }>(`select count(*)::int as n from erased_sessions where session_id = 'never-seen'`)).toEqual({ n: 0 });
  });

  it('retention sweeps sessions never stored by their rows\' own age, and keeps young ones and those with a young conversation', async () => {
    await failedTurn('unstored-old-bound', { customer: 'nora@example.com', ageDays: 3 });
    await failedTurn('unstored-old-anonymous', { ageDays: 3 });
    await failedTurn('unstored-young', { customer: 'nora@example.com' });
    // Bound days ago, but its conversation is stored and active: the conversation's age decides.
    await failedTurn('unstored-then-stored', { customer: 'nora@example.com', ageDays: 3 });
    await harness().store.appendTurn({ sessionId: 'unstored-then-stored', userId: null, agentType: 'support', messages: [{ role: 'user', content: 'hello again', tokenCount: 2 }] });

    const counted = await sweepExpiredConversations(parts(), { retentionDays: 1, batchSize: 10 }, { dryRun: true });
    expect(counted.unstoredSessions).toBe(2);
    const swept = await sweepExpiredConversations(parts(), { retentionDays: 1, batchSize: 1 });
    expect(swept).toMatchObject({ busy: false, batches: 2, counts: { conversations: 0, bindings: 1, order_proofs: 2, idempotency_records: 2 } });
    for (const gone of ['unstored-old-bound', 'unstored-old-anonymous']) expect(await rowsOf(gone)).toEqual({ bindings: 0, proofs: 0, keys: 0 });
    expect(await rowsOf('unstored-young')).toEqual({ bindings: 1, proofs: 1, keys: 1 });
    expect(await rowsOf('unstored-then-stored')).toEqual({ bindings: 1, proofs: 1, keys: 1 });
    const audit = await one<{ counts: unknown }>(`select counts from erasure_audit where actor = 'retention' order by id desc limit 1`);
    expect(typeof audit.counts === 'string' ? JSON.parse(audit.counts) : audit.counts).toMatchObject({ conversations: 0, order_proofs: 1 });
  });

  it('the retention sweep deletes tool trials older than the period, after the conversations, and keeps young ones; a dry run counts them', async () => {
    const { db } = harness();
    await db.exec('delete from tool_trials');
    const trial = (tool: string) =>
      parts().data.recordToolTrial({ source: 'console', tool, customerId: 'nora@example.com', arguments: { orderId: 'BK-1001' }, bound: [], outcome: 'ok' });
    const old = await trial('getMyOrder');
    await trial('getMyProfile');
    await db.query(`update tool_trials set tried_at = now() - interval '3 days' where id = $1`, [old]);

    expect(await sweepExpiredConversations(parts(), { retentionDays: 1, batchSize: 10 }, { dryRun: true })).toMatchObject({ toolTrials: 1 });
    expect((await parts().data.toolTrialPage(null, 10)).map((t) => t.tool)).toEqual(['getMyProfile', 'getMyOrder']);
    expect(await sweepExpiredConversations(parts(), { retentionDays: 1, batchSize: 10 })).toMatchObject({ busy: false, toolTrials: 1 });
    expect((await parts().data.toolTrialPage(null, 10)).map((t) => t.tool)).toEqual(['getMyProfile']);
  });

  it('erased_sessions is pruned by age at least twice as fast as erasures add to it', async () => {
    const { db, store } = harness();
    await db.query(`insert into erased_sessions (session_id, erased_at) select 'old-tombstone-' || i, now() - interval '2 days' from generate_series(1, 700) i`);
    for (let i = 0; i < 150; i++) {
      await store.appendTurn({ sessionId: `prune-${i}`, userId: null, agentType: 'support', messages: [{ role: 'user', content: 'old', tokenCount: 1 }] });
    }
    await db.query(`update chat_sessions set updated_at = now() - interval '3 days' where session_id like 'prune-%'`);
    // One batch of 150 erasures adds 150 tombstones and removes 300 expired ones.
    const swept = await sweepExpiredConversations(parts(), { retentionDays: 1, batchSize: 150 }, { maxBatches: 1 });
    expect(swept.counts.conversations).toBe(150);
    expect(await one<{ n: number }>(`select count(*)::int as n from erased_sessions where session_id like 'old-tombstone-%'`)).toEqual({ n: 400 });
    // A single erasure still removes 100.
    await store.appendTurn({ sessionId: 'prune-single', userId: null, agentType: 'support', messages: [{ role: 'user', content: 'old', tokenCount: 1 }] });
    await parts().data.eraseConversation('prune-single', 'agent', null, false);
    expect(await one<{ n: number }>(`select count(*)::int as n from erased_sessions where session_id like 'old-tombstone-%'`)).toEqual({ n: 300 });
    await db.query(`delete from erased_sessions where session_id like 'old-tombstone-%'`);
  });

  it('an answer dropped because a person took over keeps its trace id on the kept message, and erasing the conversation returns it for deletion', async () => {
    const { db, store } = harness();
    await store.appendTurn({ sessionId: 'dropped-trace', userId: null, agentType: 'support', messages: [{ role: 'user', content: 'hi', tokenCount: 1 }, { role: 'assistant', content: 'hello', tokenCount: 1, metadata: { trace_id: 'trace-first' } }] });
    await new HandoffStore(db).takeOver('dropped-trace', 'Mia', false, { role: 'system', content: 'Mia joined', tokenCount: 2 });
    // The bot's answer to the next question was being made meanwhile: only the question is kept.
    const stored = await store.appendAnswerTurn({
      sessionId: 'dropped-trace',
      userId: null,
      agentType: 'support',
      messages: [
        { role: 'user', content: 'and my refund?', tokenCount: 3 },
        { role: 'assistant', content: 'Refunds take 5 days.', tokenCount: 4, metadata: { trace_id: 'trace-dropped' } },
      ],
    });
    expect(stored.outcome).toBe('taken_over');
    const kept = await one<{ metadata: unknown }>(`select metadata from chat_messages where session_id = 'dropped-trace' order by seq desc limit 1`);
    expect(typeof kept.metadata === 'string' ? JSON.parse(kept.metadata) : kept.metadata).toMatchObject({ queued_for: 'Mia', trace_id: 'trace-dropped' });
    const result = await parts().data.eraseConversation('dropped-trace', 'agent', null, false);
    expect(result?.traceIds.sort()).toEqual(['trace-dropped', 'trace-first']);
  });
}
