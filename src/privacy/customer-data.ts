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
  | { kept: string }
  /**
   * Rows kept as the record that a customer's data was read, without the data: a
   * customer's erasure replaces the id in `by` by its pseudonym and empties `dropped`;
   * retention deletes rows older than the period by `agedBy`.
   */
  | { pseudonymised: string; by: string; dropped: string[]; agedBy: string };

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
 * retention, erase_customer (20261127100000) pseudonymises the `pseudonymised`
 * ones, and tests/integration/customer-data-coverage.test.ts reads the schema
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
  // Each try of a shop tool (console or CLI) as a customer: whose data was read, when, through which tool.
  tool_trials: {
    pseudonymised: "The record that a customer's data was read through a tool trial outlives their erasure, as the erasure audit does: without the id or the arguments.",
    by: 'customer_id',
    dropped: ['arguments'],
    agedBy: 'tried_at',
  },
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

/** Where a tool trial came from: the console's Tools page, or `npm run shop -- try`. */
export type ToolTrialSource = 'console' | 'cli';

/** How a tool trial ended: the tool ran, it failed (errorCode says how), or nothing was called (refused). */
export type ToolTrialOutcome = { outcome: 'ok' } | { outcome: 'error' | 'refused'; errorCode: string };

/** A tool trial to record. */
export type NewToolTrial = {
  source: ToolTrialSource;
  tool: string;
  /** The verified customer it ran as; null: anonymous. */
  customerId: string | null;
  /** The arguments as sent (bound ones filled from the customer), or as given when nothing was sent. */
  arguments: Record<string, unknown>;
  /** Names of the arguments bound from the customer. */
  bound: string[];
} & ToolTrialOutcome;

/** One record of tool_trials, as GET /api/v1/audit/tool-trials lists it. */
export interface ToolTrialRecord {
  id: number;
  triedAt: Date;
  source: ToolTrialSource;
  tool: string;
  /** Null for an anonymous trial, and once the customer was erased (then `customerPseudonym` is set). */
  customerId: string | null;
  customerPseudonym: string | null;
  /** Null once the customer was erased. */
  arguments: Record<string, unknown> | null;
  bound: string[];
  outcome: ToolTrialOutcome['outcome'];
  errorCode: string | null;
}

/** One retention batch: erased (with its result), nothing left, another instance sweeping, or (dry run) the counts. */
export type RetentionBatch =
  | { outcome: 'erased'; result: ErasureResult }
  | { outcome: 'done' }
  | { outcome: 'busy' }
  | { outcome: 'counted'; conversations: number; messages: number; unstoredSessions: number };

/** A customer erasure's result, with how many labelled, unverified conversations there were (erased only when asked for). */
export interface CustomerErasureResult extends ErasureResult {
  labelledConversations: number;
}

/** A conversation as an export shows it, with its feedback and the orders proved in it. */
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
  feedback: Array<{ message_id: string; rating: string; comment: string | null; created_at: string; updated_at: string }>;
  orderProofs: Array<{ order_id: string; proven_at: string }>;
}

/** Where a keyset page ended: the row's sort key (a timestamp as Postgres wrote it, microseconds kept) and its id. */
export interface PageCursor {
  key: string;
  id: string;
}

/** One page of an export's part; `next` is null on the last page. */
export interface Page<T> {
  items: T[];
  next: PageCursor | null;
}

// Migration 20261125000100_customer_data_erasure (and the read functions it builds on).
const FN = {
  eraseConversation: sqlFunction('erase_conversation', { p_session_id: 'text', p_actor: 'text', p_customer_pseudonym: 'text', p_langfuse: 'boolean' }),
  // Migration 20261126000300_customer_ownership.
  eraseCustomer: sqlFunction('erase_customer', {
    p_customer_id: 'text',
    p_actor: 'text',
    p_customer_pseudonym: 'text',
    p_langfuse: 'boolean',
    p_include_labelled: 'boolean',
  }),
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
  labelledSessionIds: sqlFunction('customer_labelled_session_ids', { p_customer_id: 'text' }),
  sessionsPage: sqlFunction('customer_sessions_page', {
    p_customer_id: 'text',
    p_labelled: 'boolean',
    p_after_key: 'text',
    p_after_session_id: 'text',
    p_limit: 'integer',
  }),
  memoryPage: sqlFunction('customer_memory_page', { p_customer_id: 'text', p_after_key: 'text', p_after_session_id: 'text', p_limit: 'integer' }),
  ordersPage: sqlFunction('customer_orders_page', { p_customer_id: 'text', p_after_key: 'text', p_after_order_id: 'text', p_limit: 'integer' }),
  sessionsMessages: sqlFunction('sessions_messages_page', { p_session_ids: 'text[]', p_after_index: 'integer', p_after_seq: 'integer', p_limit: 'integer' }),
  profile: sqlFunction('find_customer', { p_user_id: 'text' }),
  // Migration 20261127100000_tool_trials.
  recordToolTrial: sqlFunction('record_tool_trial', {
    p_source: 'text',
    p_tool: 'text',
    p_customer_id: 'text',
    p_arguments: 'jsonb',
    p_bound: 'text[]',
    p_outcome: 'text',
    p_error_code: 'text',
  }),
  toolTrialPage: sqlFunction('tool_trial_page', { p_before_id: 'bigint', p_limit: 'integer' }),
  expireToolTrials: sqlFunction('expire_tool_trials', { p_older_than_seconds: 'double precision', p_dry_run: 'boolean' }),
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

  /**
   * Erases a customer's verified conversations (bound to them by a customer token)
   * and the memory filed under them, and records the erasure (zeros when nothing is
   * stored). Conversations that only carry their id as a label go too when
   * `includeLabelled`; `labelledConversations` says how many there were either way.
   */
  async eraseCustomer(customerId: string, customerPseudonym: string, langfuse: boolean, includeLabelled: boolean): Promise<CustomerErasureResult> {
    const [row] = await this.fn.rows<ErasureRow & { labelled_conversations: number }>(FN.eraseCustomer, {
      p_customer_id: customerId,
      p_actor: 'agent',
      p_customer_pseudonym: customerPseudonym,
      p_langfuse: langfuse,
      p_include_labelled: includeLabelled,
    });
    return { ...toResult(row!), labelledConversations: Number(row!.labelled_conversations) };
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

  /** Records one tool trial; returns its id. */
  async recordToolTrial(trial: NewToolTrial): Promise<number> {
    const id = await this.fn.value<number | string>(FN.recordToolTrial, {
      p_source: trial.source,
      p_tool: trial.tool,
      p_customer_id: trial.customerId,
      p_arguments: trial.arguments,
      p_bound: trial.bound,
      p_outcome: trial.outcome,
      p_error_code: trial.outcome === 'ok' ? null : trial.errorCode,
    });
    return Number(id);
  }

  /** The tool trials, newest first: `limit` records before `beforeId` (the previous page's last id). */
  async toolTrialPage(beforeId: number | null, limit: number): Promise<ToolTrialRecord[]> {
    const rows = await this.fn.rows<{
      id: number | string;
      tried_at: Date | string;
      source: ToolTrialSource;
      tool: string;
      customer_id: string | null;
      customer_pseudonym: string | null;
      arguments: Record<string, unknown> | string | null;
      bound: string[] | null;
      outcome: ToolTrialRecord['outcome'];
      error_code: string | null;
    }>(FN.toolTrialPage, { p_before_id: beforeId, p_limit: limit });
    return rows.map((r) => ({
      id: Number(r.id),
      triedAt: new Date(r.tried_at),
      source: r.source,
      tool: r.tool,
      customerId: r.customer_id,
      customerPseudonym: r.customer_pseudonym,
      arguments: r.arguments === null ? null : parseJsonColumn(r.arguments),
      bound: r.bound ?? [],
      outcome: r.outcome,
      errorCode: r.error_code,
    }));
  }

  /** Retention: deletes (`dryRun`: counts) the tool trials older than the period; returns how many. */
  async expireToolTrials(olderThanSeconds: number, dryRun: boolean): Promise<number> {
    return Number(await this.fn.value<number | string>(FN.expireToolTrials, { p_older_than_seconds: olderThanSeconds, p_dry_run: dryRun }));
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

  /** The ids of the customer's verified conversations (bound to them by a customer token), in the order they were bound. */
  async customerSessionIds(customerId: string): Promise<string[]> {
    const rows = await this.fn.rows<{ session_id: string }>(FN.sessionIds, { p_customer_id: customerId });
    return rows.map((r) => r.session_id);
  }

  /** The ids of the conversations that carry the customer's id only as an unverified label (bound to nobody), oldest first. */
  async labelledSessionIds(customerId: string): Promise<string[]> {
    const rows = await this.fn.rows<{ session_id: string }>(FN.labelledSessionIds, { p_customer_id: customerId });
    return rows.map((r) => r.session_id);
  }

  /**
   * One page of the customer's conversations with their feedback and the orders
   * proved in them: the verified ones in the order they were bound, or (`labelled`)
   * those that only carry the id as a label, oldest first. Pass the last page's
   * `next` as `after`.
   */
  async sessionsPage(customerId: string, labelled: boolean, after: PageCursor | null, limit: number): Promise<Page<ExportSession>> {
    const rows = await this.fn.rows<{ page_key: string; session: Record<string, unknown> | string; feedback: unknown; order_proofs: unknown }>(FN.sessionsPage, {
      p_customer_id: customerId,
      p_labelled: labelled,
      p_after_key: after?.key ?? null,
      p_after_session_id: after?.id ?? null,
      p_limit: limit,
    });
    const items = rows.map((r) => toExportSession(parseJsonColumn(r.session), parseJsonColumn(r.feedback), parseJsonColumn(r.order_proofs)));
    return { items, next: pageEnd(rows.at(-1)?.page_key, items.at(-1)?.sessionId, rows.length, limit) };
  }

  /** One page of the customer's cross-session memory (filed under them or made from their conversations), oldest first. */
  async memoryPage(customerId: string, after: PageCursor | null, limit: number): Promise<Page<Record<string, unknown>>> {
    const rows = await this.fn.rows<Record<string, unknown> & { page_key: string; session_id: string }>(FN.memoryPage, {
      p_customer_id: customerId,
      p_after_key: after?.key ?? null,
      p_after_session_id: after?.id ?? null,
      p_limit: limit,
    });
    const items = rows.map((r) => ({
      session_id: r['session_id'],
      summary: r['summary'],
      summarized_through_seq: Number(r['summarized_through_seq']),
      created_at: isoOf(r['created_at']),
      updated_at: isoOf(r['updated_at']),
    }));
    return { items, next: pageEnd(rows.at(-1)?.page_key, rows.at(-1)?.session_id, rows.length, limit) };
  }

  /** One page of the customer's orders in the sample commerce data (the shop's records), newest first. */
  async ordersPage(customerId: string, after: PageCursor | null, limit: number): Promise<Page<Record<string, unknown>>> {
    const rows = await this.fn.rows<Record<string, unknown> & { page_key: string; order_id: string }>(FN.ordersPage, {
      p_customer_id: customerId,
      p_after_key: after?.key ?? null,
      p_after_order_id: after?.id ?? null,
      p_limit: limit,
    });
    const items = rows.map(({ page_key: _key, ...o }) => ({
      ...o,
      items: parseJsonColumn(o['items'] as unknown),
      tracking_events: parseJsonColumn(o['tracking_events'] as unknown),
      created_at: isoOf(o['created_at']),
    }));
    return { items, next: pageEnd(rows.at(-1)?.page_key, rows.at(-1)?.order_id, rows.length, limit) };
  }

  /** The customer's profile in the sample commerce data (the shop's record), or null. */
  async commerceProfile(customerId: string): Promise<Record<string, unknown> | null> {
    const [profile] = await this.fn.rows<Record<string, unknown>>(FN.profile, { p_user_id: customerId.trim().toLowerCase() });
    return profile
      ? { ...profile, purchase_history: parseJsonColumn(profile['purchase_history'] as unknown), created_at: isoOf(profile['created_at']) }
      : null;
  }

  /**
   * One page of the messages of several conversations, in the order of `sessionIds`
   * and each oldest first (all roles): at most `limit`, after message `after.seq` of
   * the `after.index`-th conversation (1-based). `index` says whose each message is.
   */
  async sessionsMessagesPage(sessionIds: string[], after: { index: number; seq: number } | null, limit: number): Promise<Array<{ index: number; message: StoredMessage }>> {
    const rows = await this.fn.rows<{ session_index: number; message: MessageRow | string }>(FN.sessionsMessages, {
      p_session_ids: sessionIds,
      p_after_index: after?.index ?? null,
      p_after_seq: after?.seq ?? null,
      p_limit: limit,
    });
    return rows.map((r) => ({ index: Number(r.session_index), message: toStoredMessage(parseJsonColumn(r.message)) }));
  }
}

/** The cursor after a page: null when the page was not full (nothing follows). */
function pageEnd(key: string | undefined, id: string | undefined, rows: number, limit: number): PageCursor | null {
  return rows >= limit && key !== undefined && id !== undefined ? { key, id } : null;
}

/** A row of customer_sessions_page: the session as JSON (timestamps as ISO text), its feedback and order proofs. */
function toExportSession(r: Record<string, unknown>, feedback: unknown, orderProofs: unknown): ExportSession {
  return {
    sessionId: r['session_id'] as string,
    userId: (r['user_id'] as string | null) ?? null,
    agentType: r['agent_type'] as string,
    title: (r['title'] as string | null) ?? null,
    summary: (r['summary'] as string | null) ?? null,
    summarizedThroughSeq: r['summarized_through_seq'] === null || r['summarized_through_seq'] === undefined ? null : Number(r['summarized_through_seq']),
    handler: (r['handler'] as string | undefined) ?? 'bot',
    agentName: (r['agent_name'] as string | null) ?? null,
    escalated: r['escalated'] === true,
    memoryStrategy: r['memory_strategy'] ?? null,
    createdAt: new Date(r['created_at'] as string),
    updatedAt: new Date(r['updated_at'] as string),
    feedback: ((feedback as ExportSession['feedback'] | null) ?? []).map((f) => ({
      message_id: f.message_id,
      rating: f.rating,
      comment: f.comment ?? null,
      created_at: isoOf(f.created_at),
      updated_at: isoOf(f.updated_at),
    })),
    orderProofs: ((orderProofs as ExportSession['orderProofs'] | null) ?? []).map((p) => ({ order_id: p.order_id, proven_at: isoOf(p.proven_at) })),
  };
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
