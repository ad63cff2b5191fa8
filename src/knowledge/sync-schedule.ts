import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { PeriodicTask } from '../background/periodic-task';
import type { Logger } from '../observability/logger';
import type { KnowledgeSyncLease } from '../store/knowledge-sync-lease';
import type { SyncReport } from './sources/site-sync';

/** How one run is asked for: the schedule's runs take the defaults, POST /api/v1/knowledge/syncs may set them. */
export interface SiteSyncRequest {
  /** What the run record says started it. Default `schedule`. */
  trigger?: string;
  /** Remove every gone page, even past KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT. */
  prune?: boolean;
  maxPages?: number;
  concurrency?: number;
  /** This run may reach the private network (a configured site's own setting applies without it). Default false. */
  allowPrivateNetwork?: boolean;
  /** Hears the run's id as soon as it is recorded. */
  onRunStarted?: (runId: number) => void;
}

/**
 * Syncs one site (a sitemap or a start page) into the knowledge base and records the
 * run; resolves with its report, and stops early when `signal` aborts (shutdown). The
 * crawler's syncSite, bound to the service's store and embedder.
 */
export type SyncOneSite = (siteUrl: string, signal: AbortSignal, request?: SiteSyncRequest) => Promise<SyncReport | void>;

export interface KnowledgeSyncSettings {
  /** The sites to sync, in order: KNOWLEDGE_SYNC_URLS and the shop file's `knowledge.sites`. */
  siteUrls: string[];
  /** KNOWLEDGE_SYNC_INTERVAL_MINUTES, in milliseconds. */
  intervalMs: number;
  /** How long a taken lease lasts unless renewed; renewed every third of it while the run goes on. */
  leaseMs?: number;
}

/** What one turn did: `busy` when another instance (or this one) was syncing, so this turn did nothing. */
export interface KnowledgeSyncTurn {
  busy: boolean;
  /** Sites synced in this turn (each a recorded run), and those whose sync threw. */
  synced: string[];
  failed: string[];
  /** True when the lease was lost mid-run (this instance stalled past it), so the turn stopped. */
  leaseLost: boolean;
}

/** A sync started on request: its recorded run's id, and the turn it belongs to (resolves when it ends). */
export interface StartedSync {
  runId: number;
  finished: Promise<KnowledgeSyncTurn>;
}

/** Default lease: long enough for a renewal to be late a few times, short enough for a dead instance's lease to run out soon. */
const DEFAULT_LEASE_MS = 5 * 60_000;

/**
 * The in-process knowledge sync: the configured sites once shortly after start, then
 * every `intervalMs` (a PeriodicTask), and one site on request (syncSiteNow, for
 * POST /api/v1/knowledge/syncs). Every instance runs one; the database lease
 * (KnowledgeSyncLease) lets one sync at a time, and an instance that finds another
 * syncing skips its turn, as the retention sweep does. Sites are synced one after
 * another; a site that fails does not stop the others, and says so in the log at
 * error level (held removals at warn). `stop()` aborts the run in progress and waits for it.
 */
export class KnowledgeSyncSchedule {
  /** This instance's name on the lease: host, process and a random part (two services in one process differ). */
  readonly holder = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly leaseMs: number;
  private readonly task: PeriodicTask<KnowledgeSyncTurn>;
  /** A turn (scheduled or requested) of this instance is going on: the lease alone would let this holder take it twice. */
  private syncing = false;
  /** Aborts the syncs started on request (the schedule's own runs hear of stop() through the PeriodicTask). */
  private readonly requestedAbort = new AbortController();
  private requested: Promise<KnowledgeSyncTurn> | null = null;

  constructor(
    private readonly parts: { lease: KnowledgeSyncLease; syncSite: SyncOneSite; logger: Logger },
    private readonly settings: KnowledgeSyncSettings,
  ) {
    this.leaseMs = settings.leaseMs ?? DEFAULT_LEASE_MS;
    this.task = new PeriodicTask(
      (signal) => this.turn(settings.siteUrls, {}, signal),
      settings.intervalMs,
      (error) => this.parts.logger.error({ err: error }, `Knowledge sync failed: ${(error as Error).message}; the next one tries again`),
    );
  }

  /** Starts the schedule (nothing to do without sites). */
  start(firstDelayMs = 1000): void {
    if (this.settings.siteUrls.length === 0) return;
    this.task.start(firstDelayMs);
  }

  /** Runs a turn of the configured sites unless one is running (then waits for that one); logs what it did, never throws. */
  syncNow(): Promise<KnowledgeSyncTurn | null> {
    return this.task.runNow();
  }

  /**
   * Syncs one site now, as a turn of its own: resolves once its run is recorded (with
   * the run's id), or null when a sync is going on here or on another instance.
   * Rejects when the run could not even be recorded (the database failed).
   */
  async syncSiteNow(siteUrl: string, request: SiteSyncRequest): Promise<StartedSync | null> {
    let recorded!: (runId: number) => void;
    const runId = new Promise<number>((resolve) => (recorded = resolve));
    const finished = this.turn([siteUrl], { ...request, onRunStarted: recorded }, this.requestedAbort.signal);
    this.requested = finished;
    const first = await Promise.race([runId, finished]);
    if (typeof first === 'number') return { runId: first, finished };
    if (first.busy) return null;
    throw new Error(`The sync of ${siteUrl} failed before its run was recorded; see the service's log.`);
  }

  /** Stops the schedule: no new turn, the running one aborted and awaited. */
  async stop(): Promise<void> {
    this.requestedAbort.abort();
    await Promise.all([this.task.stop(), this.requested]);
  }

  private async turn(siteUrls: string[], request: SiteSyncRequest, signal: AbortSignal): Promise<KnowledgeSyncTurn> {
    const outcome: KnowledgeSyncTurn = { busy: false, synced: [], failed: [], leaseLost: false };
    if (signal.aborted) return outcome;
    if (this.syncing) return { ...outcome, busy: true };
    this.syncing = true;
    try {
      return await this.underLease(siteUrls, request, signal, outcome);
    } finally {
      this.syncing = false;
    }
  }

  private async underLease(siteUrls: string[], request: SiteSyncRequest, signal: AbortSignal, outcome: KnowledgeSyncTurn): Promise<KnowledgeSyncTurn> {
    const { lease, logger } = this.parts;
    if (!(await lease.take(this.holder, this.leaseMs))) {
      logger.info('Knowledge sync skipped: another instance is syncing');
      return { ...outcome, busy: true };
    }
    // While a site syncs, keep the lease; losing it (this instance stalled past it) stops the turn after that site.
    const renewal = setInterval(() => {
      lease.renew(this.holder, this.leaseMs).then(
        (held) => {
          if (!held) outcome.leaseLost = true;
        },
        (error: unknown) => logger.warn({ err: error }, 'Could not renew the knowledge sync lease; trying again'),
      );
    }, Math.max(1, Math.floor(this.leaseMs / 3)));
    renewal.unref();
    try {
      for (const siteUrl of siteUrls) {
        if (signal.aborted || outcome.leaseLost) break;
        try {
          const report = await this.parts.syncSite(siteUrl, signal, { trigger: 'schedule', ...request });
          outcome.synced.push(siteUrl);
          logSyncReport(logger, siteUrl, report);
        } catch (error) {
          outcome.failed.push(siteUrl);
          logger.error({ err: error, site: siteUrl }, `Knowledge sync of ${siteUrl} failed: ${(error as Error).message}; the other sites go on`);
        }
      }
      if (outcome.leaseLost) logger.warn('The knowledge sync lease ran out during a run: another instance may have taken over, so this one stopped');
    } finally {
      clearInterval(renewal);
      await lease.release(this.holder).catch((error: unknown) => logger.warn({ err: error }, 'Could not give the knowledge sync lease back; it runs out by itself'));
    }
    return outcome;
  }
}

/**
 * A run's report in the log, at the level its outcome deserves: a failed run at error
 * and a held one at warn, each with its reason as the message; a run that succeeded
 * at info, or at warn when some pages could not be read.
 */
export function logSyncReport(logger: Logger, siteUrl: string, report: SyncReport | void): void {
  const fields = { event: 'knowledge_sync', site: siteUrl, report };
  if (!report) return logger.info(fields, `Knowledge synced from ${siteUrl}`);
  const c = report.counts;
  if (report.status === 'failed') return logger.error(fields, `Knowledge sync of ${siteUrl} failed (run #${report.runId}): ${report.message ?? 'no reason recorded'}`);
  if (report.status === 'held') return logger.warn(fields, `Knowledge sync of ${siteUrl} held its removals back (run #${report.runId}): ${report.message ?? ''}`.trim());
  const tally = `${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${c.removed} removed, ${c.skipped} skipped, ${c.failed} failed`;
  if (c.failed > 0) return logger.warn(fields, `Knowledge synced from ${siteUrl} (run #${report.runId}), but ${c.failed} page(s) could not be read and were kept as they were: ${tally}`);
  logger.info(fields, `Knowledge synced from ${siteUrl} (run #${report.runId}): ${tally}`);
}
