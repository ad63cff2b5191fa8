import { parseJsonColumn, type SqlQueryable } from './database';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';

const FUNCTIONS = {
  start: sqlFunction('start_knowledge_sync', { p_site: 'text', p_trigger: 'text' }),
  finish: sqlFunction('finish_knowledge_sync', { p_id: 'bigint', p_status: 'text', p_counts: 'jsonb', p_errors: 'jsonb', p_message: 'text' }),
  recent: sqlFunction('knowledge_sync_runs_recent', { p_site: 'text', p_before_id: 'bigint', p_limit: 'integer' }),
  pages: sqlFunction('knowledge_site_page_states', { p_site: 'text' }),
  putPage: sqlFunction('put_knowledge_site_page', {
    p_site: 'text',
    p_url: 'text',
    p_source: 'text',
    p_etag: 'text',
    p_last_modified: 'text',
    p_lastmod: 'text',
    p_linked: 'boolean',
  }),
  markChecked: sqlFunction('mark_knowledge_site_pages_checked', { p_site: 'text', p_urls: 'text[]' }),
  forgetSource: sqlFunction('forget_knowledge_site_source', { p_site: 'text', p_source: 'text' }),
};

/** How a sync run ended: `held` stored what changed but removed nothing, since it would have removed too much. */
export type SyncRunStatus = 'running' | 'succeeded' | 'held' | 'failed';

/** A run's tallies: pages fetched, their outcomes, chunks embedded. */
export interface SyncCounts {
  /** Documents fetched whole (HTTP 200). */
  fetched: number;
  added: number;
  updated: number;
  /** Not changed: 304, the sitemap's lastmod, or the same content (nothing embedded). */
  unchanged: number;
  /** Not stored, on purpose: robots.txt, another host, too large, not HTML/PDF/DOCX, no text, a duplicate… */
  skipped: number;
  /** Could not be read this time (timeout, 5xx, connection): kept as it was. */
  failed: number;
  removed: number;
  /** Removals a run held back (more than KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT of the site's pages). */
  removalsHeld: number;
  embedded: number;
}

/** One page's problem in a run, for the record (bounded: see MAX_RECORDED_ERRORS). */
export interface SyncError {
  url: string;
  reason: string;
  message: string;
}

/** A recorded sync run. */
export interface SyncRun {
  id: number;
  /** The site as the operator named it: a sitemap or start page URL. */
  site: string;
  /** What started it: `cli` (npm run ingest), `schedule` (the service), or another word. */
  trigger: string;
  status: SyncRunStatus;
  startedAt: Date;
  /** Null while it runs. */
  finishedAt: Date | null;
  counts: Partial<SyncCounts>;
  errors: SyncError[];
  /** Why it failed or held its removals; null when there is nothing to say. */
  message: string | null;
}

/** What a site's sync remembers of one URL for the next run. */
export interface SitePageState {
  url: string;
  /** The knowledge source it is stored under (its canonical URL). */
  source: string;
  etag: string | null;
  lastModified: string | null;
  /** The sitemap's <lastmod> when it was stored. */
  lastmod: string | null;
  /** A document linked from a page rather than listed by the site's sitemap. */
  linked: boolean;
  /** When the page was last fetched or answered 304; null when not known (the next run checks it). Set by the store. */
  checkedAt?: Date | null;
}

/** Errors kept per run: enough to see what went wrong, bounded so a broken site cannot bloat the table. */
export const MAX_RECORDED_ERRORS = 50;

/**
 * Sites' sync runs and crawl state: each run recorded when it starts and when it
 * ends, recent runs listed (GET /api/v1/knowledge/syncs), and per site what each
 * stored URL answered last time (ETag, Last-Modified, lastmod) and when it was last checked.
 */
export class SiteSyncStore {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
  }

  /** Records a run that starts now (status `running`); returns its id. */
  async startRun(site: string, trigger: string): Promise<number> {
    return Number(await this.fn.value<number | string>(FUNCTIONS.start, { p_site: site, p_trigger: trigger }));
  }

  /** Completes a running run; false when it had finished already (left as it was). */
  async finishRun(id: number, outcome: { status: Exclude<SyncRunStatus, 'running'>; counts: SyncCounts; errors: SyncError[]; message: string | null }): Promise<boolean> {
    return this.fn.value<boolean>(FUNCTIONS.finish, {
      p_id: id,
      p_status: outcome.status,
      p_counts: outcome.counts,
      p_errors: outcome.errors.slice(0, MAX_RECORDED_ERRORS),
      p_message: outcome.message,
    });
  }

  /** The newest runs first, of one site or all; `beforeId` is the last id of the previous page. */
  async recentRuns(query: { site?: string; beforeId?: number; limit: number }): Promise<SyncRun[]> {
    const rows = await this.fn.rows<{
      id: number | string;
      site: string;
      trigger: string;
      status: SyncRunStatus;
      started_at: Date | string;
      finished_at: Date | string | null;
      counts: Partial<SyncCounts> | string;
      errors: SyncError[] | string;
      message: string | null;
    }>(FUNCTIONS.recent, { p_site: query.site ?? null, p_before_id: query.beforeId ?? null, p_limit: query.limit });
    return rows.map((r) => ({
      id: Number(r.id),
      site: r.site,
      trigger: r.trigger,
      status: r.status,
      startedAt: new Date(r.started_at),
      finishedAt: r.finished_at === null ? null : new Date(r.finished_at),
      counts: parseJsonColumn(r.counts),
      errors: parseJsonColumn(r.errors),
      message: r.message,
    }));
  }

  /** Every URL the site's syncs stored, by URL. */
  async pageStates(site: string): Promise<Map<string, SitePageState>> {
    const rows = await this.fn.rows<{
      url: string;
      source: string;
      etag: string | null;
      last_modified: string | null;
      lastmod: string | null;
      linked: boolean;
      checked_at: Date | string | null;
    }>(FUNCTIONS.pages, { p_site: site });
    return new Map(
      rows.map((r) => [
        r.url,
        { url: r.url, source: r.source, etag: r.etag, lastModified: r.last_modified, lastmod: r.lastmod, linked: r.linked, checkedAt: r.checked_at === null ? null : new Date(r.checked_at) },
      ]),
    );
  }

  /** Remembers a page once it is stored (or found unchanged); it counts as checked now. */
  async putPageState(site: string, page: SitePageState): Promise<void> {
    // A void function: one value (null) over SQL and over PostgREST alike.
    await this.fn.value(FUNCTIONS.putPage, {
      p_site: site,
      p_url: page.url,
      p_source: page.source,
      p_etag: page.etag,
      p_last_modified: page.lastModified,
      p_lastmod: page.lastmod,
      p_linked: page.linked,
    });
  }

  /** The site's pages at these URLs were checked now and found unchanged (304); returns how many are stored. */
  async markPagesChecked(site: string, urls: string[]): Promise<number> {
    if (urls.length === 0) return 0;
    return Number(await this.fn.value<number>(FUNCTIONS.markChecked, { p_site: site, p_urls: urls }));
  }

  /** Forgets every URL of the site stored under a source (once the source is removed). */
  async forgetSource(site: string, source: string): Promise<number> {
    return Number(await this.fn.value<number>(FUNCTIONS.forgetSource, { p_site: site, p_source: source }));
  }
}
