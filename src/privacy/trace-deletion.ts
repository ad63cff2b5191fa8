import { PeriodicTask } from '../background/periodic-task';
import type { LangfuseConfig } from '../config';
import type { Logger } from '../observability/logger';
import type { CustomerDataStore } from './customer-data';

/** Langfuse's public API takes this many trace ids per delete request here (a batch stays a small body). */
const IDS_PER_REQUEST = 100;

/**
 * Deletes the Langfuse traces of erased answers through Langfuse's public API
 * (`DELETE /api/public/traces` with `{"traceIds": [...]}`, Basic auth with the
 * project's keys). It never stands in an erasure's way: the erasure is committed
 * first with its traces recorded as pending in the audit record; each attempt's
 * outcome is written there (deleted, or failed with the error), and failed ones
 * are tried again every `retryMs` until Langfuse confirms.
 */
export class TraceDeletion {
  /** The retry rounds: on a timer, one at a time (PeriodicTask, as the knowledge sync and the retention sweep). */
  private readonly retries: PeriodicTask<void>;

  constructor(
    private readonly config: LangfuseConfig | null,
    private readonly store: CustomerDataStore,
    private readonly logger: Logger,
    private readonly retryMs: number,
  ) {
    this.retries = new PeriodicTask(
      () => this.retryRound(),
      retryMs,
      (error) => this.logger.warn({ err: error }, 'Could not read the pending Langfuse trace deletions; retrying later'),
    );
  }

  /** Whether erasures should record their traces for deletion (Langfuse is configured). */
  get enabled(): boolean {
    return this.config !== null;
  }

  /** Tries once now, in the background; what happened goes to the audit record. */
  deleteSoon(erasureId: number, traceIds: string[]): void {
    if (!this.config || traceIds.length === 0) return;
    void this.attempt(erasureId, traceIds);
  }

  /** Starts retrying failed deletions every retryMs, the first round after retryMs (nothing without Langfuse). */
  start(): void {
    if (this.config) this.retries.start(this.retryMs);
  }

  /** Tries every pending or failed deletion once (a round at a time: joins the one in progress). */
  async retryPending(): Promise<void> {
    await this.retries.runNow();
  }

  stop(): Promise<void> {
    return this.retries.stop();
  }

  private async retryRound(): Promise<void> {
    for (const pending of await this.store.pendingTraceDeletions(50)) await this.attempt(pending.erasureId, pending.traceIds);
  }

  /** One attempt for one erasure's traces, recorded; never throws. */
  async attempt(erasureId: number, traceIds: string[]): Promise<boolean> {
    let error: string | null = null;
    try {
      for (let i = 0; i < traceIds.length; i += IDS_PER_REQUEST) await this.deleteTraces(traceIds.slice(i, i + IDS_PER_REQUEST));
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    try {
      await this.store.recordTraceDeletion(erasureId, error === null, error);
    } catch (recordError) {
      this.logger.warn({ err: recordError, erasure_id: erasureId }, 'Could not record the outcome of a Langfuse trace deletion');
    }
    if (error === null) {
      this.logger.info({ event: 'langfuse_traces_deleted', erasure_id: erasureId, traces: traceIds.length }, 'Deleted the erased answers\' traces in Langfuse');
    } else {
      this.logger.warn({ event: 'langfuse_trace_deletion_failed', erasure_id: erasureId, traces: traceIds.length, error }, 'Could not delete traces in Langfuse; will retry');
    }
    return error === null;
  }

  private async deleteTraces(traceIds: string[]): Promise<void> {
    const config = this.config!;
    const response = await fetch(`${config.baseUrl}/api/public/traces`, {
      method: 'DELETE',
      headers: {
        authorization: `Basic ${Buffer.from(`${config.publicKey}:${config.secretKey}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ traceIds }),
      signal: AbortSignal.timeout(config.exportTimeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) throw new Error(`Langfuse answered ${response.status} to DELETE /api/public/traces`);
  }
}
