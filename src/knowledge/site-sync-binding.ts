import { NetworkGuard } from '../connectors/network-guard';
import type { KnowledgeAdminStore } from '../store/knowledge-admin-store';
import type { SiteSyncStore } from '../store/site-sync-store';
import type { KnowledgeStore } from '../store/types';
import type { Embedder } from './embeddings';
import { knowledgeBaseForSites } from './sources/site-knowledge';
import { syncSite } from './sources/site-sync';
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
  /** The shop's languages: they guide the detection of a page's language (IngestOptions). */
  languages?: readonly string[];
  /** What the run records say started it. Default `schedule`. */
  trigger?: string;
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
    { languages: parts.languages },
  );
  const guard = parts.guard ?? new NetworkGuard();
  return (siteUrl, signal) =>
    syncSite(siteUrl, { guard, knowledge, store: parts.syncRuns }, { trigger: parts.trigger ?? 'schedule', maxRemovalPercent: parts.maxRemovalPercent, signal });
}
