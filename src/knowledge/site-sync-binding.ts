import { NetworkGuard } from '../connectors/network-guard';
import type { KnowledgeAdminStore } from '../store/knowledge-admin-store';
import type { SiteSyncStore } from '../store/site-sync-store';
import type { KnowledgeStore } from '../store/types';
import type { Embedder } from './embeddings';
import { knowledgeBaseForSites } from './sources/site-knowledge';
import { syncSite, type SiteSyncRecords } from './sources/site-sync';
import type { SyncOneSite } from './sync-schedule';

/** What the in-process sync writes with: the service's own store and embedder (not the HTTP API). */
export interface ServiceSiteSyncParts {
  store: Pick<KnowledgeStore, 'listSourceChunks' | 'findEmbeddingsByHash'>;
  admin: KnowledgeAdminStore;
  embedder: Embedder;
  /** The run records and each site's crawl state. */
  syncRuns: SiteSyncStore;
  /** Every request and redirect of the crawl goes through it. */
  guard?: NetworkGuard;
  /** KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT. */
  maxRemovalPercent: number;
}

/**
 * The crawler's syncSite bound to the service's parts, as the schedule calls it: pages
 * chunked and embedded in process (ingestDocument over the service's store, replaced
 * one source at a time under its lock), each run recorded.
 */
export function bindSiteSync(parts: ServiceSiteSyncParts): SyncOneSite {
  const knowledge = knowledgeBaseForSites(
    {
      listSourceChunks: (source) => parts.store.listSourceChunks(source),
      findEmbeddingsByHash: (hashes, model) => parts.store.findEmbeddingsByHash(hashes, model),
      replaceSourceChunks: (source, chunks) => parts.admin.replaceSourceChunks(source, chunks),
    },
    (source) => parts.admin.deleteSource(source),
    parts.embedder,
  );
  const guard = parts.guard ?? new NetworkGuard();
  return (siteUrl, signal, request = {}) => {
    // The run's id is told as soon as the run is recorded (POST /api/v1/knowledge/syncs answers with it).
    const store: SiteSyncRecords = {
      startRun: async (site, trigger) => {
        const runId = await parts.syncRuns.startRun(site, trigger);
        request.onRunStarted?.(runId);
        return runId;
      },
      finishRun: (id, outcome) => parts.syncRuns.finishRun(id, outcome),
      pageStates: (site) => parts.syncRuns.pageStates(site),
      putPageState: (site, page) => parts.syncRuns.putPageState(site, page),
      forgetSource: (site, source) => parts.syncRuns.forgetSource(site, source),
    };
    return syncSite(
      siteUrl,
      { guard, knowledge, store },
      {
        trigger: request.trigger ?? 'schedule',
        prune: request.prune,
        maxPages: request.maxPages,
        concurrency: request.concurrency,
        maxRemovalPercent: parts.maxRemovalPercent,
        signal,
      },
    );
  };
}
