import { NetworkGuardError, type GuardedResponse, type NetworkGuard } from '../../connectors/network-guard';
import { MAX_RECORDED_ERRORS, type SitePageState, type SiteSyncStore, type SyncCounts, type SyncError, type SyncRunStatus } from '../../store/site-sync-store';

/**
 * Where a sync keeps its run records and each site's crawl state: the database's
 * SiteSyncStore, or (ingesting through a running service's API) a stand-in that
 * knows the stored sources but keeps no ETags and records no run.
 */
export type SiteSyncRecords = Pick<SiteSyncStore, 'startRun' | 'finishRun' | 'pageStates' | 'putPageState' | 'markPagesChecked' | 'forgetSource'>;
import type { IngestOutcome } from '../ingest';
import { DocumentSkipped } from './errors';
import { siteDocumentConversion, type ConvertedPage, type DocumentConversion } from './site-conversion';
import { loadRobots, SiteFetcher, SiteUnreachableError, type RobotsRules } from './site-fetcher';
import { DEFAULT_MAZE_LIMITS, isNeverADocument, LinkMazeGuard, looksLikeLinkedDocument, normaliseUrl, SiteScope, withoutQuery, type MazeLimits } from './site-urls';
import { looksLikeSitemap, readSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_ENTRIES, SitemapError } from './sitemap';

/**
 * Syncing a site into the knowledge base: read its sitemap (or crawl from a start
 * page), fetch what changed, store each page under its canonical URL, and remove
 * what is gone, conservatively: nothing is removed on a fetch error, nothing when
 * the site is down, and nothing when a run would remove more than a share of the
 * site's pages. Each run is recorded.
 */

/** A fetched document ready to store: what ingestDocument takes. */
export interface SiteDocument {
  /** The canonical URL: the knowledge source's name. */
  source: string;
  /** Where a citation links to (the canonical URL). */
  url: string;
  title: string | null;
  format: 'markdown' | 'text';
  /** The whole page, or one part per PDF page (with its number). */
  parts: { markdown: string; page?: number }[];
}

/** Where a sync stores documents: the database (ingestDocument), or a running service's knowledge API. */
export interface SiteKnowledge {
  put(doc: SiteDocument): Promise<{ outcome: IngestOutcome; chunks: number; embedded: number }>;
  /** Removes a source's chunks; a source already gone is not an error. */
  remove(source: string): Promise<void>;
}

export interface SiteSyncParts {
  /** Every request and redirect goes through it. */
  guard: NetworkGuard;
  knowledge: SiteKnowledge;
  /** The run records and each site's crawl state. */
  store: SiteSyncRecords;
  /** How fetched bytes become documents. Default: siteDocumentConversion (HTML, PDF, DOCX). */
  conversion?: DocumentConversion;
}

export interface SiteSyncOptions {
  /** What started the run, as recorded: `cli` (default), `schedule`. */
  trigger?: string;
  /** Pages (and linked files) taken at most. Default 5,000. */
  maxPages?: number;
  /** Requests to the site at once (fewer when robots.txt sets a Crawl-delay). Default 2. */
  concurrency?: number;
  /** A page or file larger than this (decoded) is skipped. Default 10 MiB. */
  maxDocumentBytes?: number;
  /** Each request's deadline. Default 30 s. */
  timeoutMs?: number;
  /**
   * The site may be on the private network (loopback, RFC 1918): the operator's explicit choice
   * for this site. Default false: public-only, whatever the site's DNS answers.
   */
  allowPrivateNetwork?: boolean;
  /** Remove what is gone even past maxRemovalPercent (`npm run ingest -- --prune <url>`); every stored page is re-checked. Default false. */
  prune?: boolean;
  /**
   * KNOWLEDGE_SYNC_RECHECK_HOURS in ms: an unchanged sitemap lastmod spares a page's fetch only while
   * the page was checked less than this long ago; older, it gets a conditional request (a 304 costs
   * no body), so a deleted page behind a stale sitemap answers its 404. 0: every run. Default 24 h.
   */
  recheckAfterMs?: number;
  /** KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT: a run that would remove more of the site's pages removes none. Default 20. */
  maxRemovalPercent?: number;
  mazeLimits?: Partial<MazeLimits>;
  /** A sitemap file larger than this is not read. Default 50 MiB (the protocol's limit). */
  sitemapMaxBytes?: number;
  /** Entries per sitemap file at most. Default 50,000 (the protocol's limit). */
  sitemapMaxEntries?: number;
  /** Sitemap files read at most, nested indexes included. Default 1,000. */
  maxSitemaps?: number;
  onProgress?: (event: SyncProgress) => void;
  signal?: AbortSignal;
}

/** What happened to one URL (or, for `removed`/`held`, one source). */
export interface SyncProgress {
  kind: 'added' | 'updated' | 'unchanged' | 'skipped' | 'failed' | 'removed' | 'held' | 'sitemap';
  url: string;
  /** Why, or what: "304 not modified", "disallowed by robots.txt", "3 chunks, 3 embedded". */
  detail: string;
  counts: SyncCounts;
}

/** What a sync did. */
export interface SyncReport {
  runId: number;
  site: string;
  /** `sitemap` when the URL was a sitemap (or index), `crawl` when it was a start page; null when the run failed before knowing. */
  mode: 'sitemap' | 'crawl' | null;
  status: Exclude<SyncRunStatus, 'running'>;
  startedAt: Date;
  finishedAt: Date;
  counts: SyncCounts;
  /** Problems worth a look (at most 50): failed fetches, refused documents, unreadable sitemaps. */
  errors: SyncError[];
  /** Why the run failed or held its removals back; null otherwise. */
  message: string | null;
  /** Sources removed by this run. */
  removed: string[];
  /** Sources a held run would have removed. */
  held: string[];
}

const DEFAULTS = {
  trigger: 'cli',
  maxPages: 5_000,
  concurrency: 2,
  maxDocumentBytes: 10 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRemovalPercent: 20,
  recheckAfterMs: 24 * 60 * 60 * 1000,
  maxSitemaps: 1_000,
  maxSitemapDepth: 4,
};

/** One URL to take: where it came from decides what its absence or failure means. */
interface QueuedUrl {
  url: string;
  /** Links followed from the start page (0 for sitemap entries and known pages). */
  linkDepth: number;
  /** The sitemap's <lastmod>, when it listed the URL. */
  lastmod: string | null;
  /** A PDF or Word file found as a link (not listed, not crawled as a page). */
  linked: boolean;
}

/** A run's failure that stops it before anything is removed. */
class RunFailure extends Error {}

/**
 * Syncs one site (a sitemap URL or a start page) into the knowledge base and records
 * the run. New pages are added, changed ones replaced (unchanged: a 304, the same
 * sitemap lastmod for a page checked within recheckAfterMs, or the same content, and
 * nothing is embedded), and pages that are
 * gone (404 or 410, or no longer in a sitemap that was read whole) are removed. A page
 * that times out or answers 5xx is kept; a site that cannot be reached removes nothing
 * (status `failed`); a run that would remove more than maxRemovalPercent of the site's
 * pages removes none (status `held`) unless `prune`. Never throws for the site's
 * faults: the report says what happened. Throws only when the store itself fails.
 */
export async function syncSite(siteUrl: string, parts: SiteSyncParts, options: SiteSyncOptions = {}): Promise<SyncReport> {
  const site = normaliseUrl(siteUrl);
  if (!site) throw new Error(`${siteUrl} is not an http(s) URL`);
  const run = new SiteRun(site, parts, options);
  return run.execute();
}

class SiteRun {
  private readonly counts: SyncCounts = { fetched: 0, added: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, removed: 0, removalsHeld: 0, embedded: 0 };
  private readonly errors: SyncError[] = [];
  private readonly settings: Required<Pick<SiteSyncOptions, 'maxPages' | 'concurrency' | 'maxDocumentBytes' | 'timeoutMs' | 'maxRemovalPercent' | 'recheckAfterMs' | 'maxSitemaps'>>;
  private readonly maze: LinkMazeGuard;
  private readonly conversion: DocumentConversion;
  private readonly scope: SiteScope;
  private fetcher!: SiteFetcher;
  private robots!: RobotsRules;
  private known = new Map<string, SitePageState>();
  private mode: 'sitemap' | 'crawl' | null = null;

  private readonly queue: QueuedUrl[] = [];
  private queueHead = 0;
  private readonly queued = new Set<string>();
  private capped = false;
  /** Sources stored or confirmed by this run (kept whatever else says they are gone). */
  private readonly keptSources = new Set<string>();
  /** Sources claimed by a URL of this run: a second URL with the same canonical URL is a duplicate. */
  private readonly claimedSources = new Map<string, string>();
  /** Known URLs that answered 404 or 410. */
  private readonly goneUrls = new Set<string>();
  /** Stored URLs that answered 304: checked now, written in one statement at the end of the run. */
  private readonly notModifiedUrls: string[] = [];
  /** URLs the sitemap listed, when in sitemap mode. */
  private readonly listed = new Set<string>();
  private sitemapReadWhole = true;

  constructor(
    private readonly site: string,
    private readonly parts: SiteSyncParts,
    private readonly options: SiteSyncOptions,
  ) {
    this.settings = {
      maxPages: options.maxPages ?? DEFAULTS.maxPages,
      concurrency: options.concurrency ?? DEFAULTS.concurrency,
      maxDocumentBytes: options.maxDocumentBytes ?? DEFAULTS.maxDocumentBytes,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxRemovalPercent: options.maxRemovalPercent ?? DEFAULTS.maxRemovalPercent,
      recheckAfterMs: options.recheckAfterMs ?? DEFAULTS.recheckAfterMs,
      maxSitemaps: options.maxSitemaps ?? DEFAULTS.maxSitemaps,
    };
    this.conversion = parts.conversion ?? siteDocumentConversion;
    this.maze = new LinkMazeGuard({ ...DEFAULT_MAZE_LIMITS, ...options.mazeLimits });
    this.scope = new SiteScope(site);
  }

  async execute(): Promise<SyncReport> {
    const { store } = this.parts;
    const startedAt = new Date();
    const runId = await store.startRun(this.site, this.options.trigger ?? DEFAULTS.trigger);
    let status: SyncReport['status'] = 'succeeded';
    let message: string | null = null;
    let removed: string[] = [];
    let held: string[] = [];
    try {
      this.known = await store.pageStates(this.site);
      // Only the operator's explicit choice opens the private network: a DNS answer never does
      // (a public name that answers 127.0.0.1 at the start of a run must not crawl loopback).
      this.fetcher = new SiteFetcher(this.parts.guard, {
        allowPrivateNetwork: this.options.allowPrivateNetwork ?? false,
        concurrency: this.settings.concurrency,
        timeoutMs: this.settings.timeoutMs,
        signal: this.options.signal,
      });
      this.robots = await loadRobots(this.fetcher, this.scope.origin);
      this.fetcher.setCrawlDelay(this.robots.crawlDelayMs);
      await this.start();
      await this.drainQueue();
      await store.markPagesChecked(this.site, this.notModifiedUrls);
      if (this.options.signal?.aborted) throw new RunFailure('The sync was cancelled before it finished; nothing was removed.');
      ({ removed, held, message } = await this.removeWhatIsGone());
      if (held.length > 0) status = 'held';
      else if (this.capped) message = `Stopped at --max-pages (${this.settings.maxPages}): pages past it were not fetched, and nothing was removed for being unlisted.`;
    } catch (error) {
      if (!(error instanceof RunFailure || error instanceof SiteUnreachableError || error instanceof NetworkGuardError || error instanceof SitemapError)) {
        // The store or the knowledge target failed: record it, then let the caller see it.
        await store.finishRun(runId, { status: 'failed', counts: this.counts, errors: this.errors, message: `The sync failed: ${(error as Error).message}` }).catch(() => {});
        throw error;
      }
      status = 'failed';
      message = `${error.message}${/nothing was removed/i.test(error.message) ? '' : ' Nothing was removed.'}`;
    }
    await store.finishRun(runId, { status, counts: this.counts, errors: this.errors, message });
    return { runId, site: this.site, mode: this.mode, status, startedAt, finishedAt: new Date(), counts: { ...this.counts }, errors: [...this.errors], message, removed, held };
  }

  /** Fetches the URL the operator gave: a sitemap (then its tree is read) or a start page (then it is the first page). */
  private async start(): Promise<void> {
    if (!(await this.robots.isAllowed(this.site))) throw new RunFailure(`${this.site} is disallowed for ${this.fetcher.userAgent} by the site's robots.txt.`);
    const state = this.known.get(this.site);
    let response: GuardedResponse;
    try {
      response = await this.fetcher.get({ url: this.site, maxBytes: Math.max(this.settings.maxDocumentBytes, this.options.sitemapMaxBytes ?? SITEMAP_MAX_BYTES), headers: conditionalHeaders(state) });
    } catch (error) {
      if (error instanceof NetworkGuardError && error.reason === 'too_large') {
        throw new RunFailure(`${this.site} is larger than the size cap: ${error.message}`);
      }
      throw new SiteUnreachableError(`${this.site} cannot be fetched: ${(error as Error).message}`, this.site, { cause: error });
    }
    if (response.status >= 500) throw new SiteUnreachableError(`${this.site} answers ${response.status}: the site is not available now.`, this.site);
    if (response.status !== 200 && response.status !== 304) throw new RunFailure(`${this.site} answers ${response.status}; expected a sitemap or a page.`);

    if (response.status === 200 && looksLikeSitemap(response.headers['content-type'], response.body)) {
      this.mode = 'sitemap';
      await this.readSitemaps(response);
      // PDFs and Word files found on pages in earlier runs are checked again (they are in no sitemap).
      for (const page of this.known.values()) if (page.linked) this.enqueue({ url: page.url, linkDepth: 0, lastmod: null, linked: true });
      return;
    }
    this.mode = 'crawl';
    this.queued.add(this.site);
    await this.takeResponse({ url: this.site, linkDepth: 0, lastmod: null, linked: false }, response);
    // Every page stored before is checked again: one no longer linked is still there
    // until it answers 404 or 410.
    for (const page of this.known.values()) this.enqueue({ url: page.url, linkDepth: 0, lastmod: null, linked: page.linked });
  }

  /** Reads the sitemap tree breadth-first: nested indexes, each file once, within the caps. */
  private async readSitemaps(rootResponse: GuardedResponse): Promise<void> {
    const maxBytes = this.options.sitemapMaxBytes ?? SITEMAP_MAX_BYTES;
    const maxEntries = this.options.sitemapMaxEntries ?? SITEMAP_MAX_ENTRIES;
    const seen = new Set<string>([this.site]);
    const pending: { url: string; depth: number }[] = [];
    let read = 0;

    const readOne = async (url: string, depth: number, response: GuardedResponse | null) => {
      read += 1;
      if (!response) {
        try {
          response = await this.fetcher.get({ url, maxBytes });
        } catch (error) {
          const problem = error instanceof NetworkGuardError && error.reason === 'too_large' ? 'too_large' : 'unreachable';
          throw new SitemapError(problem, problem === 'too_large' ? `${url}: the sitemap is larger than ${maxBytes} bytes; not read` : `${url}: ${(error as Error).message}; not read`, url);
        }
        if (response.status !== 200) throw new SitemapError('http_status', `${url} answers ${response.status}; not read`, url);
      }
      // The root was fetched before it was known to be a sitemap, with the larger of the two caps.
      if (response.body.length > maxBytes) throw new SitemapError('too_large', `${url}: the sitemap is larger than ${maxBytes} bytes; not read`, url);
      const parsed = await readSitemap(response.body, url, maxBytes, maxEntries);
      if (parsed.kind === 'index') {
        for (const child of parsed.sitemaps) {
          const childUrl = normaliseUrl(child.loc, url);
          if (!childUrl || !this.scope.sameOrigin(childUrl)) {
            this.problem(child.loc, 'other_host', `${url} names a sitemap on another host (${child.loc}); not read`);
            this.sitemapReadWhole = false;
          } else if (seen.has(childUrl)) {
            this.problem(childUrl, 'loop', `${url} names ${childUrl === url ? 'itself' : `${childUrl}, which was read already`}; not read again`);
          } else if (depth + 1 > DEFAULTS.maxSitemapDepth) {
            this.problem(childUrl, 'too_deep', `${childUrl} is nested more than ${DEFAULTS.maxSitemapDepth} sitemap indexes deep; not read`);
            this.sitemapReadWhole = false;
          } else {
            seen.add(childUrl);
            pending.push({ url: childUrl, depth: depth + 1 });
          }
        }
        this.emit('sitemap', url, `sitemap index: ${parsed.sitemaps.length} sitemaps`);
        return;
      }
      let added = 0;
      for (const entry of parsed.urls) {
        const pageUrl = normaliseUrl(entry.loc, url);
        if (!pageUrl || !this.scope.sameOrigin(pageUrl)) continue;
        this.listed.add(pageUrl);
        if (this.enqueue({ url: pageUrl, linkDepth: 0, lastmod: entry.lastmod, linked: false })) added += 1;
      }
      const outside = parsed.urls.length - added;
      this.emit('sitemap', url, `${parsed.urls.length} URLs${outside > 0 ? ` (${outside} not taken: another host, listed twice, or past --max-pages)` : ''}`);
    };

    // The root decides: when it cannot be read, the run fails and nothing changes.
    await readOne(this.site, 0, rootResponse);
    while (pending.length > 0) {
      const next = pending.shift()!;
      if (read >= this.settings.maxSitemaps) {
        this.problem(next.url, 'too_many_sitemaps', `more than ${this.settings.maxSitemaps} sitemaps; ${pending.length + 1} not read`);
        this.sitemapReadWhole = false;
        break;
      }
      try {
        await readOne(next.url, next.depth, null);
      } catch (error) {
        if (!(error instanceof SitemapError)) throw error;
        this.problem(next.url, error.problem, error.message);
        this.sitemapReadWhole = false;
      }
    }
  }

  /** Adds a URL to take, unless it was queued already or --max-pages is reached. */
  private enqueue(item: QueuedUrl): boolean {
    if (this.queued.has(item.url)) return false;
    if (this.queued.size >= this.settings.maxPages) {
      this.capped = true;
      return false;
    }
    this.queued.add(item.url);
    this.queue.push(item);
    return true;
  }

  private async drainQueue(): Promise<void> {
    const running = new Set<Promise<void>>();
    while ((this.queueHead < this.queue.length || running.size > 0) && !this.options.signal?.aborted) {
      while (this.queueHead < this.queue.length && running.size < this.settings.concurrency) {
        const item = this.queue[this.queueHead]!;
        this.queue[this.queueHead++] = undefined as unknown as QueuedUrl; // let it go: memory stays flat on large sites
        const task: Promise<void> = this.take(item).finally(() => running.delete(task));
        running.add(task);
      }
      if (running.size > 0) await Promise.race(running);
    }
    await Promise.allSettled(running);
  }

  /** One URL: robots, lastmod, a conditional fetch, then the response. */
  private async take(item: QueuedUrl): Promise<void> {
    const state = this.known.get(item.url);
    if (!(await this.robots.isAllowed(item.url))) return this.skip(item.url, 'robots', 'disallowed by robots.txt', false);
    if (state && item.lastmod && state.lastmod === item.lastmod && this.checkedRecently(state)) {
      this.keptSources.add(state.source);
      return this.outcome('unchanged', item.url, `lastmod ${item.lastmod} as before`);
    }
    let response: GuardedResponse;
    try {
      response = await this.fetcher.get({ url: item.url, maxBytes: this.settings.maxDocumentBytes, headers: conditionalHeaders(state) });
    } catch (error) {
      return this.fetchFailed(item.url, state, error);
    }
    await this.takeResponse(item, response);
  }

  private async takeResponse(item: QueuedUrl, response: GuardedResponse): Promise<void> {
    const state = this.known.get(item.url);
    if (response.status === 304 && state) {
      this.keptSources.add(state.source);
      this.notModifiedUrls.push(item.url);
      return this.outcome('unchanged', item.url, '304 not modified');
    }
    if (response.status === 404 || response.status === 410) {
      if (state) this.goneUrls.add(item.url);
      return this.skip(item.url, 'gone', `answers ${response.status}${state ? ': stored before, so it is removed unless that is too many' : ''}`, false);
    }
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      if (state) this.keptSources.add(state.source);
      this.counts.failed += 1;
      this.record(item.url, 'http_status', `answers ${response.status}; kept as it was`);
      return this.emit('failed', item.url, `answers ${response.status}; kept as it was`);
    }
    if (response.status !== 200) {
      if (state) this.keptSources.add(state.source);
      return this.skip(item.url, 'http_status', `answers ${response.status}`, true);
    }
    this.counts.fetched += 1;
    // The guard follows redirects within the host name; another port or scheme is another site.
    if (!this.scope.sameOrigin(response.url)) return this.skip(item.url, 'other_host', `redirects to ${response.url}, another site; not stored`, false);
    // A same-host redirect may land somewhere robots.txt keeps the crawler out of.
    if (response.url !== item.url && !(await this.robots.isAllowed(response.url))) return this.skip(item.url, 'robots', `redirects to ${response.url}, disallowed by robots.txt`, false);

    const contentType = response.headers['content-type'] ?? null;
    const format = this.conversion.formatOf(contentType, response.url);
    if (!format) return this.skip(item.url, 'unsupported_type', `its content type (${contentType ?? 'none'}) is neither HTML, PDF nor DOCX; not stored`, true);

    let converted: ConvertedPage;
    try {
      converted = await this.conversion.convert(response.body, format, { url: response.url, contentType, maxBytes: this.settings.maxDocumentBytes });
    } catch (error) {
      if (!(error instanceof DocumentSkipped)) throw error;
      return this.skip(item.url, error.reason, `${error.message} Not stored.`, error.reason !== 'empty');
    }
    if (format === 'html') this.followLinks(converted.links ?? [], item);

    const source = this.sourceOf(converted.canonicalUrl ?? null, response.url);
    const claimedBy = this.claimedSources.get(source);
    if (claimedBy !== undefined) {
      await this.remember(item, source, response);
      return this.skip(item.url, 'duplicate', `the same page as ${claimedBy} (canonical ${source})`, false);
    }
    this.claimedSources.set(source, item.url);
    let result: Awaited<ReturnType<SiteKnowledge['put']>>;
    try {
      result = await this.parts.knowledge.put({ source, url: source, title: converted.title, format: converted.format, parts: converted.parts });
    } catch (error) {
      if (state) this.keptSources.add(state.source);
      this.counts.failed += 1;
      this.record(item.url, 'store', `could not be stored: ${(error as Error).message}`);
      return this.emit('failed', item.url, `could not be stored: ${(error as Error).message}`);
    }
    this.keptSources.add(source);
    await this.remember(item, source, response);
    this.counts.embedded += result.embedded;
    const where = source === item.url ? '' : ` as ${source}`;
    this.outcome(result.outcome, item.url, `${result.chunks} chunks, ${result.embedded} embedded${where}`);
  }

  /**
   * Whether an unchanged sitemap lastmod may spare the page's fetch: it was checked within
   * recheckAfterMs, and this run was not told to prune (a prune run checks every page).
   */
  private checkedRecently(state: SitePageState): boolean {
    if (this.options.prune || !state.checkedAt) return false;
    return Date.now() - state.checkedAt.getTime() < this.settings.recheckAfterMs;
  }

  /** The crawl's next URLs from a page's links: under the start page's folder (crawl), and same-host PDFs and Word files (both modes). */
  private followLinks(links: string[], from: QueuedUrl): void {
    for (const link of links) {
      const url = normaliseUrl(link);
      if (!url || !this.scope.sameOrigin(url) || this.queued.has(url)) continue;
      const document = looksLikeLinkedDocument(url);
      const page = this.mode === 'crawl' && this.scope.contains(url) && !isNeverADocument(url);
      if (!document && !page) continue;
      const refused = this.maze.refuse(url, from.linkDepth + 1);
      if (refused) {
        this.queued.add(url); // judged once
        this.skip(url, 'link_maze', `not followed: ${refused}`, false);
        continue;
      }
      this.enqueue({ url, linkDepth: from.linkDepth + 1, lastmod: null, linked: document && !page });
    }
  }

  /** A page's source name: its `<link rel="canonical">` on the same host, else its URL without query and fragment. */
  private sourceOf(canonical: string | null, finalUrl: string): string {
    const declared = canonical ? normaliseUrl(canonical, finalUrl) : null;
    if (declared && this.scope.sameOrigin(declared)) return declared;
    return withoutQuery(finalUrl);
  }

  private async remember(item: QueuedUrl, source: string, response: GuardedResponse): Promise<void> {
    await this.parts.store.putPageState(this.site, {
      url: item.url,
      source,
      etag: response.headers.etag ?? null,
      lastModified: response.headers['last-modified'] ?? null,
      lastmod: item.lastmod,
      linked: item.linked,
    });
  }

  private fetchFailed(url: string, state: SitePageState | undefined, error: unknown): void {
    if (!(error instanceof NetworkGuardError)) throw error;
    switch (error.reason) {
      case 'redirect':
        return this.skip(url, 'other_host', `redirects to another host; not followed (${error.url})`, false);
      case 'too_many_redirects':
        return this.skip(url, 'redirect_loop', `redirects in a loop (more than 5 redirects); not stored`, true);
      case 'too_large':
        return this.skip(url, 'too_large', `larger than ${this.settings.maxDocumentBytes} bytes once decoded; not stored`, true);
      case 'address':
      case 'metadata':
      case 'self':
      case 'scheme':
        return this.skip(url, 'refused', error.message, true);
      default:
        // timeout, connection, dns, aborted: the page may be fine tomorrow; keep it.
        if (state) this.keptSources.add(state.source);
        this.counts.failed += 1;
        this.record(url, error.reason, `${error.message}; kept as it was`);
        return this.emit('failed', url, `${error.message}; kept as it was`);
    }
  }

  /**
   * Removes the stored sources that are gone: their URL answered 404 or 410 (and no
   * other URL of this run stored them), or, after a sitemap read whole, no longer
   * listed. More than maxRemovalPercent of the site's stored sources: none removed.
   */
  private async removeWhatIsGone(): Promise<{ removed: string[]; held: string[]; message: string | null }> {
    const storedSources = new Set([...this.known.values()].map((p) => p.source));
    const goneSources = new Set<string>();
    for (const page of this.known.values()) {
      const gone = this.goneUrls.has(page.url) || (this.mode === 'sitemap' && this.sitemapReadWhole && !this.capped && !page.linked && !this.listed.has(page.url));
      if (gone) goneSources.add(page.source);
    }
    // A source still reached through another URL stays.
    const toRemove = [...goneSources].filter((s) => !this.keptSources.has(s)).sort();
    if (toRemove.length === 0) return { removed: [], held: [], message: null };

    const percent = (toRemove.length / storedSources.size) * 100;
    if (!this.options.prune && percent > this.settings.maxRemovalPercent) {
      this.counts.removalsHeld = toRemove.length;
      for (const source of toRemove) this.emit('held', source, 'gone, but not removed: too many at once');
      const message =
        `${toRemove.length} of the site's ${storedSources.size} pages (${percent.toFixed(0)}%) are gone, more than KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT ` +
        `(${this.settings.maxRemovalPercent}%): none was removed. If the site really lost them, run: npm run ingest -- --prune ${this.site}`;
      return { removed: [], held: toRemove, message };
    }
    const removed: string[] = [];
    for (const source of toRemove) {
      try {
        await this.parts.knowledge.remove(source);
      } catch (error) {
        this.counts.failed += 1;
        this.record(source, 'store', `could not be removed: ${(error as Error).message}`);
        this.emit('failed', source, `could not be removed: ${(error as Error).message}`);
        continue;
      }
      await this.parts.store.forgetSource(this.site, source);
      removed.push(source);
      this.counts.removed += 1;
      this.emit('removed', source, 'gone from the site');
    }
    return { removed, held: [], message: null };
  }

  private outcome(kind: IngestOutcome, url: string, detail: string): void {
    this.counts[kind] += 1;
    this.emit(kind, url, detail);
  }

  /** Not stored, on purpose; `problem` puts it in the run's errors too (bad input rather than policy). */
  private skip(url: string, reason: string, detail: string, problem: boolean): void {
    this.counts.skipped += 1;
    if (problem) this.record(url, reason, detail);
    this.emit('skipped', url, detail);
  }

  /** A problem that is not about one page (a sitemap): recorded and shown, not counted as a page. */
  private problem(url: string, reason: string, message: string): void {
    this.record(url, reason, message);
    this.emit('sitemap', url, message);
  }

  private record(url: string, reason: string, message: string): void {
    if (this.errors.length < MAX_RECORDED_ERRORS) this.errors.push({ url, reason, message });
  }

  private emit(kind: SyncProgress['kind'], url: string, detail: string): void {
    this.options.onProgress?.({ kind, url, detail, counts: { ...this.counts } });
  }
}

/** If-None-Match and If-Modified-Since from what the page answered last time. */
function conditionalHeaders(state: SitePageState | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (state?.etag) headers['if-none-match'] = state.etag;
  if (state?.lastModified) headers['if-modified-since'] = state.lastModified;
  return headers;
}
