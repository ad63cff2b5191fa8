import { NetworkGuard } from '../connectors/network-guard';
import type { KnowledgeAdminStore } from '../store/knowledge-admin-store';
import type { SiteSyncStore } from '../store/site-sync-store';
import type { KnowledgeStore } from '../store/types';
import type { Embedder } from './embeddings';
import { knowledgeBaseForSites } from './sources/site-knowledge';
import { syncSite, type SiteSyncRecords } from './sources/site-sync';
import type { SyncOneSite } from './sync-schedule';

/**
 * A site the operator named for the sync. `allowPrivateNetwork` is the operator's explicit
 * choice (the shop file's `allow_private_network`, KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK):
 * without it the site is crawled public-only, whatever its DNS answers at the time.
 */
export interface KnowledgeSite {
  url: string;
  allowPrivateNetwork: boolean;
}

/**
 * The sites the service syncs on its schedule: KNOWLEDGE_SYNC_URLS (`settings`) and the shop
 * file's `knowledge.sites`, each once; a site named twice may reach the private network if
 * either entry says so.
 */
export function configuredKnowledgeSites(settings: { siteUrls: readonly string[]; allowPrivateNetwork: boolean }, shopSites: readonly KnowledgeSite[]): KnowledgeSite[] {
  const sites = new Map<string, KnowledgeSite>();
  for (const site of [...settings.siteUrls.map((url) => ({ url, allowPrivateNetwork: settings.allowPrivateNetwork })), ...shopSites]) {
    sites.set(site.url, { url: site.url, allowPrivateNetwork: site.allowPrivateNetwork || (sites.get(site.url)?.allowPrivateNetwork ?? false) });
  }
  return [...sites.values()];
}

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
  /** KNOWLEDGE_SYNC_RECHECK_HOURS in ms (default: syncSite's, 24 h). */
  recheckAfterMs?: number;
  /** The shop's languages: they guide the detection of a page's language (IngestOptions). */
  languages?: readonly string[];
  /** The sites that may be on the private network (by URL, as the schedule names them); any other is public-only. */
  privateNetworkSites?: ReadonlySet<string>;
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
      markPagesChecked: (site, urls) => parts.syncRuns.markPagesChecked(site, urls),
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
        recheckAfterMs: parts.recheckAfterMs,
        // The operator's choice: a configured site named with allow_private_network, or this request's own (the route allows it only from this machine).
        allowPrivateNetwork: request.allowPrivateNetwork === true || (parts.privateNetworkSites?.has(siteUrl) ?? false),
        signal,
      },
    );
  };
}
