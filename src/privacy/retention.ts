import { PeriodicTask } from '../background/periodic-task';
import type { Logger } from '../observability/logger';
import { completeCounts, type CustomerDataStore, type ErasureCounts } from './customer-data';
import type { ErasureService } from './erasure';

export interface RetentionSettings {
  /** CONVERSATION_RETENTION_DAYS: conversations whose last message is older are erased (decimals allowed). */
  retentionDays: number;
  /** RETENTION_BATCH_SIZE: conversations erased per transaction. */
  batchSize: number;
}

/** What a sweep did: `busy` when another instance was sweeping (this one stopped), otherwise the totals. */
export interface SweepOutcome {
  busy: boolean;
  dryRun: boolean;
  batches: number;
  counts: ErasureCounts;
  /** Dry run: sessions never stored as a conversation whose rows (binding, order proofs, idempotency record) are older than the period. */
  unstoredSessions?: number;
  /** Tool trials older than the period: deleted (dry run: counted). */
  toolTrials: number;
}

/**
 * One sweep: erases, batch after batch (each its own short transaction, see
 * erase_expired_conversations), every conversation whose last message is older
 * than the retention period, and every session never stored as a conversation
 * whose rows are older (a turn that failed after binding its customer or
 * recording an order proof), until none is left; then the tool trials older than
 * the period (one statement: a trial is one small row). With `dryRun` it only counts
 * (conversations, messages, sessions never stored, tool trials). `onBatch` hears of
 * each batch (progress).
 */
export async function sweepExpiredConversations(
  parts: { data: CustomerDataStore; erasure: ErasureService; langfuse: boolean },
  settings: RetentionSettings,
  options: { dryRun?: boolean; onBatch?: (batch: number, counts: ErasureCounts) => void; maxBatches?: number } = {},
): Promise<SweepOutcome> {
  const olderThanSeconds = settings.retentionDays * 86_400;
  const totals = completeCounts(null);
  if (options.dryRun) {
    const batch = await parts.data.eraseExpiredBatch(olderThanSeconds, settings.batchSize, true, parts.langfuse);
    if (batch.outcome === 'busy') return { busy: true, dryRun: true, batches: 0, counts: totals, toolTrials: 0 };
    const toolTrials = await parts.data.expireToolTrials(olderThanSeconds, true);
    if (batch.outcome === 'counted') {
      totals.conversations = batch.conversations;
      totals.messages = batch.messages;
      return { busy: false, dryRun: true, batches: 0, counts: totals, unstoredSessions: batch.unstoredSessions, toolTrials };
    }
    return { busy: false, dryRun: true, batches: 0, counts: totals, unstoredSessions: 0, toolTrials };
  }
  let batches = 0;
  let done = false;
  while (batches < (options.maxBatches ?? Number.POSITIVE_INFINITY)) {
    const batch = await parts.data.eraseExpiredBatch(olderThanSeconds, settings.batchSize, false, parts.langfuse);
    if (batch.outcome === 'busy') return { busy: true, dryRun: false, batches, counts: totals, toolTrials: 0 };
    if (batch.outcome !== 'erased') {
      done = true;
      break;
    }
    batches += 1;
    parts.erasure.finish(batch.result, { actor: 'retention', scope: 'retention', customer: null });
    for (const kind of Object.keys(totals) as Array<keyof ErasureCounts>) totals[kind] += batch.result.counts[kind];
    options.onBatch?.(batches, batch.result.counts);
    // Let requests waiting for the database go first between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Only a sweep that got through the conversations goes on to the trials (maxBatches stops it before).
  const toolTrials = done ? await parts.data.expireToolTrials(olderThanSeconds, false) : 0;
  return { busy: false, dryRun: false, batches, counts: totals, toolTrials };
}

/**
 * The in-process sweep: once shortly after start, then every `intervalMs` (a
 * PeriodicTask). Every instance runs one; the database's advisory lock lets one
 * sweep at a time, and an instance that finds another sweeping skips its turn.
 */
export class RetentionSchedule {
  private readonly task: PeriodicTask<SweepOutcome>;

  constructor(
    private readonly parts: { data: CustomerDataStore; erasure: ErasureService; langfuse: boolean },
    private readonly settings: RetentionSettings,
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask(() => this.sweep(), intervalMs, (error) => this.logger.warn({ err: error }, 'Retention sweep failed; the next one tries again'));
  }

  start(firstDelayMs = 1000): void {
    this.task.start(firstDelayMs);
  }

  /** Runs a sweep unless one is running (then waits for that one); logs what it did, never throws. */
  sweepNow(): Promise<SweepOutcome | null> {
    return this.task.runNow();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  private async sweep(): Promise<SweepOutcome> {
    const outcome = await sweepExpiredConversations(this.parts, this.settings);
    if (outcome.busy) this.logger.info('Retention sweep skipped: another instance is sweeping');
    else if (outcome.batches > 0 || outcome.toolTrials > 0) {
      this.logger.info(
        { event: 'retention_sweep', batches: outcome.batches, counts: outcome.counts, tool_trials: outcome.toolTrials, retention_days: this.settings.retentionDays },
        `Retention sweep erased ${outcome.counts.conversations} conversation(s) and ${outcome.toolTrials} tool trial(s)`,
      );
    }
    return outcome;
  }
}
