import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from '../observability/logger';
import type { KnowledgeSyncLease } from '../store/knowledge-sync-lease';

/**
 * Syncs one site (a sitemap or a start page) into the knowledge base and records the
 * run; resolves with what it did (logged), and stops early when `signal` aborts
 * (shutdown). The crawler's syncSite, bound to the service's store and embedder.
 */
export type SyncOneSite = (siteUrl: string, signal: AbortSignal) => Promise<unknown>;

export interface KnowledgeSyncSettings {
  /** The sites to sync, in order: KNOWLEDGE_SYNC_URLS and the shop file's `knowledge.sites`. */
  siteUrls: string[];
  /** KNOWLEDGE_SYNC_INTERVAL_MINUTES, in milliseconds. */
  intervalMs: number;
  /** How long a taken lease lasts unless renewed; renewed every third of it while the run goes on. */
  leaseMs?: number;
}

/** What one scheduled turn did: `busy` when another instance was syncing (this one skipped its turn). */
export interface KnowledgeSyncTurn {
  busy: boolean;
  /** Sites synced in this turn (each a recorded run), and those whose sync threw. */
  synced: string[];
  failed: string[];
  /** True when the lease was lost mid-run (this instance stalled past it), so the turn stopped. */
  leaseLost: boolean;
}

/** Default lease: long enough for a renewal to be late a few times, short enough for a dead instance's lease to run out soon. */
const DEFAULT_LEASE_MS = 5 * 60_000;

/**
 * The in-process knowledge sync: once shortly after start, then every `intervalMs`.
 * Every instance runs one; the database lease (KnowledgeSyncLease) lets one sync at a
 * time, and an instance that finds another syncing skips its turn, as the retention
 * sweep does. Sites are synced one after another; a site that fails does not stop
 * the others. `stop()` aborts the run in progress and waits for it.
 */
export class KnowledgeSyncSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<KnowledgeSyncTurn | null> | null = null;
  private readonly abort = new AbortController();
  /** This instance's name on the lease: host, process and a random part (two services in one process differ). */
  readonly holder = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly leaseMs: number;

  constructor(
    private readonly parts: { lease: KnowledgeSyncLease; syncSite: SyncOneSite; logger: Logger },
    private readonly settings: KnowledgeSyncSettings,
  ) {
    this.leaseMs = settings.leaseMs ?? DEFAULT_LEASE_MS;
  }

  start(firstDelayMs = 1000): void {
    if (this.timer || this.abort.signal.aborted || this.settings.siteUrls.length === 0) return;
    const tick = () => {
      void this.syncNow();
      this.timer = setTimeout(tick, this.settings.intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, Math.min(firstDelayMs, this.settings.intervalMs));
    this.timer.unref();
  }

  /** Runs a turn unless one is running (then waits for that one); logs what it did, never throws. */
  syncNow(): Promise<KnowledgeSyncTurn | null> {
    this.running ??= (async () => {
      try {
        return await this.turn();
      } catch (error) {
        this.parts.logger.warn({ err: error }, 'Knowledge sync failed; the next one tries again');
        return null;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops the schedule: no new turn, the running one aborted and awaited. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    await this.running;
  }

  private async turn(): Promise<KnowledgeSyncTurn> {
    const outcome: KnowledgeSyncTurn = { busy: false, synced: [], failed: [], leaseLost: false };
    if (this.abort.signal.aborted) return outcome;
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
      for (const siteUrl of this.settings.siteUrls) {
        if (this.abort.signal.aborted || outcome.leaseLost) break;
        try {
          const report = await this.parts.syncSite(siteUrl, this.abort.signal);
          outcome.synced.push(siteUrl);
          logger.info({ event: 'knowledge_sync', site: siteUrl, report }, `Knowledge synced from ${siteUrl}`);
        } catch (error) {
          outcome.failed.push(siteUrl);
          logger.warn({ err: error, site: siteUrl }, `Knowledge sync of ${siteUrl} failed; the other sites go on`);
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
