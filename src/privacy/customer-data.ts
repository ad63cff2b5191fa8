import type { SqlQueryable } from '../store/database';
import { parseJsonColumn } from '../store/database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from '../store/sql-functions';
import { toStoredMessage, type MessageRow } from '../store/sql-store';
import type { StoredMessage } from '../store/types';

/**
 * How a table that holds customer data is covered by erasure: its rows are erased
 * (with the kind they are counted under in the erasure's answer, and the columns
 * that tie a row to a session or a customer), or kept, with the reason.
 *
 * `by[0]` is the key erasure finds every row by: every row has it (not null, not
 * computed from other columns), and the coverage test fails otherwise. `agedBy`
 * marks a table whose rows can exist without a stored conversation (written before
 * the turn's answer, which may never come): the column retention ages them by.
 */
export type TableCoverage =
  | { erased: ErasedKind | 'with its conversation'; by: [string, ...string[]]; agedBy?: string }
  | { kept: string };

/** The kinds an erasure counts, as its answer and audit record name them. */
export const ERASED_KINDS = [
  'conversations',
  'messages',
  'summaries',
  'memory',
  'feedback',
  'idempotency_records',
  'order_proofs',
  'bindings',
  'rate_limit_counters',
] as const;
export type ErasedKind = (typeof ERASED_KINDS)[number];
export type ErasureCounts = Record<ErasedKind, number>;

/**
 * Every table that holds a customer's data, and how erasure covers it. The one
 * place that knows them: the SQL function erase_sessions_core (migrations
 * 20261125000100_customer_data_erasure, 20261126000201) erases the `erased` ones,
 * unstored_sessions_older_than (20261126000202) finds the `agedBy` ones for
 * retention, and tests/integration/customer-data-coverage.test.ts reads the schema
 * and fails on a table with a session or customer column that is not listed here,
 * on a listed one whose key can be missing from a row, on one that can hold rows
 * without a conversation and is not `agedBy`, and on a listed one whose rows survive
 * an erasure. A new table is added here and to those functions.
 */
export const CUSTOMER_DATA_TABLES: Readonly<Record<string, TableCoverage>> = {
  chat_sessions: { erased: 'conversations', by: ['session_id', 'user_id'] },
  chat_messages: { erased: 'messages', by: ['session_id'] },
  conversation_summaries: { erased: 'memory', by: ['session_id', 'user_id'] },
  answer_feedback: { erased: 'feedback', by: ['session_id'] },
  // Claimed before the answer (for the session the request runs in), completed with the turn or a queued message.
  idempotency_keys: { erased: 'idempotency_records', by: ['session_id'], agedBy: 'created_at' },
  // Bound at the start of a turn, proven during a tool call: both before the answer is stored.
  session_customers: { erased: 'bindings', by: ['session_id', 'customer_id'], agedBy: 'bound_at' },
  session_order_proofs: { erased: 'order_proofs', by: ['session_id'], agedBy: 'proven_at' },
  // Keyed 'chat-session:<id>' and 'order-proof-session:<id>'; counters per client address name no customer.
  // Counted before the answer too, but they expire with their window (minutes), so retention need not age them.
  rate_limit_counters: { erased: 'rate_limit_counters', by: ['key'] },
  customer_profiles: {
    kept: "The shop's own customer record (sample commerce data standing in for the shop's backend, which the agent only reads): exported, erased in the shop's system, not here.",
  },
  orders: { kept: "The shop's own order records (see customer_profiles): exported, not erased here; invoices have their own legal retention." },
  erased_sessions: { kept: 'Ids of conversations erased in the last day, so an answer still being generated cannot bring one back; no content, no customer.' },
  erasure_audit: { kept: 'The audit of erasures: counts and a keyed hash of the customer id (no content, no raw id).' },
};

/** What an erasure did: its audit record, the rows it erased per kind, and the Langfuse traces of the erased answers. */
export interface ErasureResult {
  erasureId: number;
  counts: ErasureCounts;
  traceIds: string[];
}

/** One record of erasure_audit, as GET /api/v1/audit/erasures lists it. */
export interface ErasureRecord {
  id: number;
  erasedAt: Date;
  actor: 'agent' | 'customer' | 'retention';
  scope: 'customer' | 'conversation' | 'retention';
  customerPseudonym: string | null;
  counts: ErasureCounts;
  traceDeletion: 'not_configured' | 'none' | 'pending' | 'deleted' | 'failed';
  traceCount: number;
  traceAttempts: number;
  traceError: string | null;
  traceUpdatedAt: Date | null;
}

/** One retention batch: erased (with its result), nothing left, another instance sweeping, or (dry run) the counts. */
export type RetentionBatch =
  | { outcome: 'erased'; result: ErasureResult }
  | { outcome: 'done' }
  | { outcome: 'busy' }
  | { outcome: 'counted'; conversations: number; messages: number; unstoredSessions: number };

/** A conversation as an export shows it. */
export interface ExportSession {
  sessionId: string;
  userId: string | null;
  agentType: string;
  title: string | null;
  summary: string | null;
  summarizedThroughSeq: number | null;
  handler: string;
  agentName: string | null;
  escalated: boolean;
  memoryStrategy: unknown;
  createdAt: Date;
  updatedAt: Date;
}

// Migration 20261125000100_customer_data_erasure (and the read functions it builds on).
const FN = {
  eraseConversation: sqlFunction('erase_conversation', { p_session_id: 'text', p_actor: 'text', p_customer_pseudonym: 'text', p_langfuse: 'boolean' }),
  eraseCustomer: sqlFunction('erase_customer', { p_customer_id: 'text', p_actor: 'text', p_customer_pseudonym: 'text', p_langfuse: 'boolean' }),
  eraseExpired: sqlFunction('erase_expired_conversations', {
    p_older_than_seconds: 'double precision',
    p_batch_size: 'integer',
    p_dry_run: 'boolean',
    p_langfuse: 'boolean',
  }),
  erased: sqlFunction('session_erased', { p_session_id: 'text' }),
  auditPage: sqlFunction('erasure_audit_page', { p_before_id: 'integer', p_limit: 'integer' }),
  pendingTraces: sqlFunction('pending_trace_deletions', { p_limit: 'integer' }),
  recordTraceDeletion: sqlFunction('record_trace_deletion', { p_erasure_id: 'integer', p_deleted: 'boolean', p_error: 'text' }),
  sessionIds: sqlFunction('customer_session_ids', { p_customer_id: 'text' }),
  session: sqlFunction('get_session', { p_session_id: 'text' }),
  events: sqlFunction('session_events_after', { p_session_id: 'text', p_after_seq: 'integer', p_limit: 'integer' }),
  feedback: sqlFunction('session_feedback', { p_session_id: 'text' }),
  proofs: sqlFunction('session_order_proof_list', { p_session_id: 'text' }),
  memory: sqlFunction('customer_memory', { p_customer_id: 'text' }),
  orders: sqlFunction('customer_orders', { p_customer_id: 'text' }),
  profile: sqlFunction('find_customer', { p_user_id: 'text' }),
} as const;

interface ErasureRow {
  erasure_id: number | string | null;
  counts: ErasureCounts | string | null;
  trace_ids: string[] | null;
}

/**
 * The customer-data functions of the migrations, for every backend (a SQL
 * connection or Supabase's .rpc()): erasure, retention batches, the audit, and
 * the reads an export is made of.
 */
export class CustomerDataStore {
  private readonly fn: SqlFunctionCaller;

  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /**
   * Erases one session and records the erasure: its conversation, and every row
   * under its id even when no conversation was stored (a turn that failed after
   * binding the customer or recording an order proof). Null when the id has nothing.
   */
  async eraseConversation(sessionId: string, actor: 'agent' | 'customer', customerPseudonym: string | null, langfuse: boolean): Promise<ErasureResult | null> {
    const [row] = await this.fn.rows<ErasureRow & { existed: boolean }>(FN.eraseConversation, {
      p_session_id: sessionId,
      p_actor: actor,
      p_customer_pseudonym: customerPseudonym,
      p_langfuse: langfuse,
    });
    return row?.existed ? toResult(row) : null;
  }

  /** Erases everything of a customer (zeros when nothing is stored) and records the erasure. */
  async eraseCustomer(customerId: string, customerPseudonym: string, langfuse: boolean): Promise<ErasureResult> {
    const [row] = await this.fn.rows<ErasureRow>(FN.eraseCustomer, {
      p_customer_id: customerId,
      p_actor: 'agent',
      p_customer_pseudonym: customerPseudonym,
      p_langfuse: langfuse,
    });
    return toResult(row!);
  }

  /** One retention batch (see erase_expired_conversations). */
  async eraseExpiredBatch(olderThanSeconds: number, batchSize: number, dryRun: boolean, langfuse: boolean): Promise<RetentionBatch> {
    const [row] = await this.fn.rows<ErasureRow & { outcome: RetentionBatch['outcome'] }>(FN.eraseExpired, {
      p_older_than_seconds: olderThanSeconds,
      p_batch_size: batchSize,
      p_dry_run: dryRun,
      p_langfuse: langfuse,
    });
    switch (row?.outcome) {
      case 'erased':
        return { outcome: 'erased', result: toResult(row) };
      case 'counted': {
        const counts = parseJsonColumn(row.counts) as unknown as { conversations: number; messages: number; unstored_sessions?: number };
        return {
          outcome: 'counted',
          conversations: Number(counts.conversations),
          messages: Number(counts.messages),
          unstoredSessions: Number(counts.unstored_sessions ?? 0),
        };
      }
      case 'busy':
        return { outcome: 'busy' };
      default:
        return { outcome: 'done' };
    }
  }

  /** Whether this session id was erased lately (its tombstone is kept for a day). */
  async isErased(sessionId: string): Promise<boolean> {
    return (await this.fn.value<boolean>(FN.erased, { p_session_id: sessionId })) === true;
  }

  /** The audit, newest first: `limit` records before `beforeId` (the previous page's last id). */
  async auditPage(beforeId: number | null, limit: number): Promise<ErasureRecord[]> {
    const rows = await this.fn.rows<{
      id: number | string;
      erased_at: Date | string;
      actor: ErasureRecord['actor'];
      scope: ErasureRecord['scope'];
      customer_pseudonym: string | null;
      counts: ErasureCounts | string;
      trace_deletion: ErasureRecord['traceDeletion'];
      trace_count: number;
      trace_attempts: number;
      trace_error: string | null;
      trace_updated_at: Date | string | null;
    }>(FN.auditPage, { p_before_id: beforeId, p_limit: limit });
    return rows.map((r) => ({
      id: Number(r.id),
      erasedAt: new Date(r.erased_at),
      actor: r.actor,
      scope: r.scope,
      customerPseudonym: r.customer_pseudonym,
      counts: completeCounts(parseJsonColumn(r.counts)),
      traceDeletion: r.trace_deletion,
      traceCount: Number(r.trace_count),
      traceAttempts: Number(r.trace_attempts),
      traceError: r.trace_error,
      traceUpdatedAt: r.trace_updated_at ? new Date(r.trace_updated_at) : null,
    }));
  }

  /** Erasures whose Langfuse traces are still to delete, oldest first. */
  async pendingTraceDeletions(limit: number): Promise<Array<{ erasureId: number; traceIds: string[]; attempts: number }>> {
    const rows = await this.fn.rows<{ id: number | string; pending_trace_ids: string[]; trace_attempts: number }>(FN.pendingTraces, { p_limit: limit });
    return rows.map((r) => ({ erasureId: Number(r.id), traceIds: r.pending_trace_ids, attempts: Number(r.trace_attempts) }));
  }

  /** Records one attempt at deleting an erasure's traces. */
  async recordTraceDeletion(erasureId: number, deleted: boolean, error: string | null): Promise<void> {
    await this.fn.value<boolean>(FN.recordTraceDeletion, { p_erasure_id: erasureId, p_deleted: deleted, p_error: error });
  }

  /** The customer's conversations' ids, oldest first (filed under their id, or bound to them). */
  async customerSessionIds(customerId: string): Promise<string[]> {
    const rows = await this.fn.rows<{ session_id: string }>(FN.sessionIds, { p_customer_id: customerId });
    return rows.map((r) => r.session_id);
  }

  async exportSession(sessionId: string): Promise<ExportSession | null> {
    const [r] = await this.fn.rows<Record<string, unknown>>(FN.session, { p_session_id: sessionId });
    if (!r) return null;
    return {
      sessionId: r['session_id'] as string,
      userId: (r['user_id'] as string | null) ?? null,
      agentType: r['agent_type'] as string,
      title: (r['title'] as string | null) ?? null,
      summary: (r['summary'] as string | null) ?? null,
      summarizedThroughSeq: r['summarized_through_seq'] === null ? null : Number(r['summarized_through_seq']),
      handler: (r['handler'] as string | undefined) ?? 'bot',
      agentName: (r['agent_name'] as string | null) ?? null,
      escalated: r['escalated'] === true,
      memoryStrategy: parseJsonColumn(r['memory_strategy'] as unknown) ?? null,
      createdAt: new Date(r['created_at'] as string),
      updatedAt: new Date(r['updated_at'] as string),
    };
  }

  /** Every message of a session after `afterSeq` (all roles), oldest first, at most `limit`. */
  async messagesAfter(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const rows = await this.fn.rows<MessageRow>(FN.events, { p_session_id: sessionId, p_after_seq: afterSeq, p_limit: limit });
    return rows.map(toStoredMessage);
  }

  async sessionFeedback(sessionId: string): Promise<Array<Record<string, unknown>>> {
    const rows = await this.fn.rows<Record<string, unknown>>(FN.feedback, { p_session_id: sessionId });
    return rows.map((r) => ({
      message_id: r['message_id'],
      rating: r['rating'],
      comment: r['comment'] ?? null,
      created_at: isoOf(r['created_at']),
      updated_at: isoOf(r['updated_at']),
    }));
  }

  async sessionOrderProofs(sessionId: string): Promise<Array<{ order_id: string; proven_at: string }>> {
    const rows = await this.fn.rows<{ order_id: string; proven_at: Date | string }>(FN.proofs, { p_session_id: sessionId });
    return rows.map((r) => ({ order_id: r.order_id, proven_at: isoOf(r.proven_at) }));
  }

  /** Cross-session memory filed under the customer or made from their conversations. */
  async customerMemory(customerId: string): Promise<Array<Record<string, unknown>>> {
    const rows = await this.fn.rows<Record<string, unknown>>(FN.memory, { p_customer_id: customerId });
    return rows.map((r) => ({
      session_id: r['session_id'],
      summary: r['summary'],
      summarized_through_seq: Number(r['summarized_through_seq']),
      created_at: isoOf(r['created_at']),
      updated_at: isoOf(r['updated_at']),
    }));
  }

  /** What the sample commerce data holds: the profile (null when none) and the orders. */
  async commerceData(customerId: string): Promise<{ profile: Record<string, unknown> | null; orders: Array<Record<string, unknown>> }> {
    const [profiles, orders] = await Promise.all([
      this.fn.rows<Record<string, unknown>>(FN.profile, { p_user_id: customerId.trim().toLowerCase() }),
      this.fn.rows<Record<string, unknown>>(FN.orders, { p_customer_id: customerId }),
    ]);
    const profile = profiles[0];
    return {
      profile: profile
        ? { ...profile, purchase_history: parseJsonColumn(profile['purchase_history'] as unknown), created_at: isoOf(profile['created_at']) }
        : null,
      orders: orders.map((o) => ({
        ...o,
        items: parseJsonColumn(o['items'] as unknown),
        tracking_events: parseJsonColumn(o['tracking_events'] as unknown),
        created_at: isoOf(o['created_at']),
      })),
    };
  }
}

function isoOf(value: unknown): string {
  return new Date(value as string).toISOString();
}

/** Every kind, zero where the record has none (older records, dry runs). */
export function completeCounts(counts: Partial<Record<string, unknown>> | null): ErasureCounts {
  return Object.fromEntries(ERASED_KINDS.map((k) => [k, Number(counts?.[k] ?? 0)])) as ErasureCounts;
}

function toResult(row: ErasureRow): ErasureResult {
  return {
    erasureId: Number(row.erasure_id),
    counts: completeCounts(parseJsonColumn(row.counts)),
    traceIds: row.trace_ids ?? [],
  };
}
