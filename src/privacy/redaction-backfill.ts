import type { Logger } from '../observability/logger';
import { parseJsonColumn, type SqlQueryable } from '../store/database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from '../store/sql-functions';
import { REDACTION_VERSION, type RedactionCounts, type Redactor } from './redaction';

/** Rows read and redacted per batch: each batch is one short read and one short write. */
export const REDACTION_BACKFILL_BATCH_SIZE = 200;
/** A batch whose rows keep changing under it is read again this many times, then the pass stops until the next start. */
const MAX_ATTEMPTS_PER_BATCH = 5;

// Migration 20261126000100_redaction_backfill.
const FN = {
  batch: sqlFunction('redaction_backfill_batch', { p_pass: 'text', p_limit: 'integer' }),
  store: sqlFunction('redaction_backfill_store', {
    p_pass: 'text',
    p_stage: 'text',
    p_from_key: 'text',
    p_to_key: 'text',
    p_rows_read: 'integer',
    p_changes: 'jsonb',
  }),
  progress: sqlFunction('redaction_backfill_progress', { p_pass: 'text' }),
} as const;

/** One stored row of a stage, with its texts by column (and, for sessions, what their previews would be made of now). */
export interface BackfillRow {
  stage: string;
  fromKey: string | null;
  key: string;
  texts: Record<string, unknown>;
}

/** A column of a row to write: `old` is what the batch read, `new` the redacted value. */
export interface BackfillChange {
  key: string;
  column: string;
  old: unknown;
  new: unknown;
}

/** Where a pass got to (its watermark row). */
export interface BackfillProgress {
  pass: string;
  stage: string;
  afterKey: string | null;
  rowsRead: number;
  textsChanged: number;
  finished: boolean;
}

/** The migration's backfill functions, for every backend (a SQL connection or Supabase's .rpc()). */
export class RedactionBackfillStore {
  private readonly fn: SqlFunctionCaller;

  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /** The pass's next batch (empty: the pass is done). */
  async nextBatch(pass: string, limit: number): Promise<BackfillRow[]> {
    const rows = await this.fn.rows<{ stage: string; from_key: string | null; row_key: string; texts: Record<string, unknown> | string }>(FN.batch, {
      p_pass: pass,
      p_limit: limit,
    });
    return rows.map((r) => ({ stage: r.stage, fromKey: r.from_key, key: r.row_key, texts: parseJsonColumn(r.texts) }));
  }

  /** Writes a batch's changes and moves the watermark to `toKey`, unless a row changed since it was read (conflicts > 0). */
  async store(pass: string, stage: string, fromKey: string | null, toKey: string, rowsRead: number, changes: BackfillChange[]): Promise<{ changed: number; conflicts: number }> {
    const [row] = await this.fn.rows<{ changed: number; conflicts: number }>(FN.store, {
      p_pass: pass,
      p_stage: stage,
      p_from_key: fromKey,
      p_to_key: toKey,
      p_rows_read: rowsRead,
      p_changes: changes,
    });
    return { changed: Number(row?.changed ?? 0), conflicts: Number(row?.conflicts ?? 0) };
  }

  async progress(pass: string): Promise<BackfillProgress | null> {
    const [row] = await this.fn.rows<{
      pass: string;
      stage: string;
      after_key: string | null;
      rows_read: number | string;
      texts_changed: number | string;
      finished_at: Date | string | null;
    }>(FN.progress, { p_pass: pass });
    if (!row) return null;
    return {
      pass: row.pass,
      stage: row.stage,
      afterKey: row.after_key,
      rowsRead: Number(row.rows_read),
      textsChanged: Number(row.texts_changed),
      finished: row.finished_at !== null,
    };
  }
}

/** The pass a redactor runs: the detection's version and its detectors, so a change to either searches everything again. */
export function backfillPassName(redactor: Redactor): string {
  return `v${REDACTION_VERSION}:${[...redactor.detectors].sort().join(',')}`;
}

/** What a run did: `finished` when the pass is done, else it stopped (asked to, or rows kept changing) and continues at the next start. */
export interface BackfillOutcome {
  pass: string;
  finished: boolean;
  batches: number;
  rowsRead: number;
  textsChanged: number;
}

/**
 * Re-masks customer texts stored before the redaction they were typed under could
 * find what the configured one finds (docs/redaction.md): every message (and queued
 * message), session preview and summary, cross-session memory, feedback comment and
 * idempotency record, batch by batch, with the same Redactor that masks new
 * messages, so there is one detector. Resumable: the watermark is in the database
 * (redaction_backfill), so a restart continues where the last run stopped, and
 * instances running it at once do not undo each other. Redacting masked text
 * changes nothing, so a finished pass run again changes no row.
 */
export class RedactionBackfill {
  private running: Promise<BackfillOutcome | null> | null = null;
  private stopping = false;

  constructor(
    private readonly store: RedactionBackfillStore,
    private readonly redactor: Redactor,
    private readonly logger: Logger,
    private readonly batchSize = REDACTION_BACKFILL_BATCH_SIZE,
  ) {}

  get pass(): string {
    return backfillPassName(this.redactor);
  }

  /** Starts the pass in the background (nothing when REDACT is empty); never throws, logs what it did. */
  start(): void {
    if (!this.redactor.enabled || this.running) return;
    this.running = this.run().then(
      (outcome) => {
        if (outcome.finished && outcome.rowsRead > 0) {
          this.logger.info(
            { event: 'redaction_backfill', pass: outcome.pass, batches: outcome.batches, rows_read: outcome.rowsRead, texts_changed: outcome.textsChanged },
            `Redaction backfill ${outcome.pass} finished: ${outcome.textsChanged} stored row(s) masked again`,
          );
        }
        return outcome;
      },
      (error: unknown) => {
        this.logger.warn({ err: error, pass: this.pass }, 'Redaction backfill failed; it continues from where it stopped at the next start');
        return null;
      },
    );
  }

  /** The background run's outcome (null if it failed or was never started). */
  async finished(): Promise<BackfillOutcome | null> {
    return (await this.running) ?? null;
  }

  /** Stops after the batch in progress (the watermark keeps the place). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Runs the pass until it is done, stopped, or `maxBatches` batches were stored. */
  async run(options: { maxBatches?: number } = {}): Promise<BackfillOutcome> {
    const pass = this.pass;
    const outcome: BackfillOutcome = { pass, finished: false, batches: 0, rowsRead: 0, textsChanged: 0 };
    let attempts = 0;
    while (!this.stopping && outcome.batches < (options.maxBatches ?? Number.POSITIVE_INFINITY)) {
      const rows = await this.store.nextBatch(pass, this.batchSize);
      if (rows.length === 0) {
        outcome.finished = true;
        break;
      }
      const { stage, fromKey } = rows[0]!;
      const changes = rows.flatMap((row) => redactRow(row, this.redactor));
      const { changed, conflicts } = await this.store.store(pass, stage, fromKey, rows[rows.length - 1]!.key, rows.length, changes);
      if (conflicts > 0) {
        // Rows changed between reading and writing: the watermark stayed, the batch is read again.
        attempts += 1;
        if (attempts >= MAX_ATTEMPTS_PER_BATCH) {
          this.logger.warn({ pass, stage, conflicts }, 'Redaction backfill stopped: rows keep changing under it; it continues at the next start');
          break;
        }
        continue;
      }
      attempts = 0;
      outcome.batches += 1;
      outcome.rowsRead += rows.length;
      outcome.textsChanged += changed;
      // Let requests waiting for the database go first between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return outcome;
  }
}

/** The changes redaction makes to one row (none when it finds nothing). */
export function redactRow(row: BackfillRow, redactor: Redactor): BackfillChange[] {
  const changes: BackfillChange[] = [];
  const change = (column: string, value: unknown) => {
    const old = row.texts[column] ?? null;
    if (value !== old && JSON.stringify(value) !== JSON.stringify(old)) changes.push({ key: row.key, column, old, new: value });
  };
  switch (row.stage) {
    case 'chat_messages': {
      const content = redactText(row.texts['content'], redactor);
      change('content', content.text);
      change('tool_calls', redactJson(row.texts['tool_calls'] ?? null, redactor));
      const metadata = redactJson(row.texts['metadata'] ?? {}, redactor) as Record<string, unknown>;
      // A customer's message says what was masked in it (the history's `redacted`): add what the backfill masked.
      if (row.texts['role'] === 'user' && Object.keys(content.found).length > 0) {
        change('metadata', { ...metadata, redacted: addCounts(metadata['redacted'], content.found) });
      } else {
        change('metadata', metadata);
      }
      break;
    }
    case 'chat_sessions': {
      // The previews are cut from the first customer message and the last message. Cut from a raw number, one
      // may hold only part of it, which no detector recognises: when the message it was cut from has been
      // masked (the preview no longer matches it), it is cut again from the masked message.
      for (const [column, fromMessages] of [
        ['title', row.texts['title_from_messages']],
        ['last_message', row.texts['last_message_from_messages']],
      ] as const) {
        const stored = row.texts[column];
        const remade = typeof stored === 'string' && typeof fromMessages === 'string' && stored !== fromMessages ? fromMessages : null;
        change(column, redactText(remade ?? stored, redactor).text);
      }
      change('summary', redactText(row.texts['summary'], redactor).text);
      break;
    }
    case 'conversation_summaries':
      change('summary', redactText(row.texts['summary'], redactor).text);
      break;
    case 'answer_feedback':
      change('comment', redactText(row.texts['comment'], redactor).text);
      break;
    case 'idempotency_keys':
      change('response', redactJson(row.texts['response'] ?? null, redactor));
      break;
    default:
      throw new Error(`Redaction backfill: unknown stage ${row.stage}`);
  }
  return changes;
}

function redactText(value: unknown, redactor: Redactor): { text: unknown; found: RedactionCounts } {
  if (typeof value !== 'string') return { text: value ?? null, found: {} };
  return redactor.redact(value);
}

/** Every string in a JSON value redacted, but identifiers (`id`, `*_id`: session ids, message ids, trace ids) kept as they are. */
export function redactJson(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value).text;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, redactor));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'id' || k.endsWith('_id') ? v : redactJson(v, redactor)]));
  }
  return value;
}

function addCounts(existing: unknown, more: RedactionCounts): RedactionCounts {
  const sum: Record<string, number> = {};
  if (existing !== null && typeof existing === 'object') {
    for (const [kind, n] of Object.entries(existing)) if (typeof n === 'number') sum[kind] = n;
  }
  for (const [kind, n] of Object.entries(more)) sum[kind] = (sum[kind] ?? 0) + n;
  return sum as RedactionCounts;
}
