import type { Embedder } from './embeddings';
import type { SyncOneSite } from './sync-schedule';
import type { Logger } from '../observability/logger';
import type { KnowledgeAdminStore } from '../store/knowledge-admin-store';
import type { SqlStore } from '../store/sql-store';

/** What the in-process sync writes with: the service's own store and embedder (not the HTTP API). */
export interface SiteSyncParts {
  store: SqlStore;
  admin: KnowledgeAdminStore;
  embedder: Embedder;
  logger: Logger;
}

/** The crawler's syncSite, bound to the service's parts, as the schedule calls it. */
export function bindSiteSync(_parts: SiteSyncParts): SyncOneSite {
  return async (siteUrl) => {
    throw new Error(`Syncing ${siteUrl} needs the crawler (syncSite), which is not merged yet`);
  };
}
