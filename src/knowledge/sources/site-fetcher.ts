import fs from 'node:fs';
import path from 'node:path';
import { NetworkGuardError, type GuardedResponse, type NetworkGuard } from '../../connectors/network-guard';
import { OffThreadLimitError, OffThreadRunner } from './off-thread';
import { ROBOTS_MAX_BYTES, ROBOTS_MAX_WILDCARDS_PER_RULE } from './robots';

/**
 * The crawler's requests to one site: each through the network guard, announced with
 * the crawler's own user agent, at most `concurrency` at once and, when robots.txt
 * asks for a Crawl-delay, one at a time with that pause between them.
 */

/** `support-agent-crawler/0.1.0`: the package's name and version, read once. */
export const CRAWLER_USER_AGENT = crawlerUserAgent();

function crawlerUserAgent(): string {
  // src/ and dist/ both sit one level below the repository root (see tsconfig.build.json).
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { name: string; version: string };
  return `${manifest.name}-crawler/${manifest.version}`;
}

/** A Crawl-delay longer than this is taken as this: a site's typo must not stall a sync for hours. */
export const MAX_CRAWL_DELAY_MS = 60_000;

export interface SiteFetcherOptions {
  /** Loopback and private addresses may be reached: only when the operator named a site there. */
  allowPrivateNetwork: boolean;
  /** Requests in flight at once. Default 2. */
  concurrency: number;
  /** Each request's deadline (connection, same-host redirects, whole body). */
  timeoutMs: number;
  userAgent?: string;
  signal?: AbortSignal;
}

export interface SiteRequest {
  url: string;
  maxBytes: number;
  headers?: Record<string, string>;
  /** Past maxBytes: the guard's NetworkGuardError (default), or the body cut there. */
  overflow?: 'error' | 'truncate';
}

export class SiteFetcher {
  private active = 0;
  private nextStartAt = 0;
  private delayMs = 0;
  private readonly waiting: (() => void)[] = [];
  readonly userAgent: string;

  constructor(
    private readonly guard: NetworkGuard,
    private readonly options: SiteFetcherOptions,
  ) {
    this.userAgent = options.userAgent ?? CRAWLER_USER_AGENT;
  }

  /** robots.txt's Crawl-delay: from now on one request at a time, this far apart. */
  setCrawlDelay(ms: number): void {
    this.delayMs = Math.min(Math.max(ms, 0), MAX_CRAWL_DELAY_MS);
  }

  get crawlDelayMs(): number {
    return this.delayMs;
  }

  /** One GET through the guard (same-origin redirects and a same-host upgrade to https only, bytes capped while decoded). Throws NetworkGuardError. */
  async get(request: SiteRequest): Promise<GuardedResponse> {
    await this.acquire();
    try {
      return await this.guard.request({
        url: request.url,
        headers: { 'user-agent': this.userAgent, accept: 'text/html,application/xhtml+xml,application/pdf,application/xml;q=0.9,*/*;q=0.5', ...request.headers },
        allowPrivateNetwork: this.options.allowPrivateNetwork,
        timeoutMs: this.options.timeoutMs,
        maxBytes: request.maxBytes,
        overflow: request.overflow,
        maxRedirects: 5,
        followHttpsUpgrade: true,
        signal: this.options.signal,
      });
    } finally {
      this.release();
    }
  }

  private limit(): number {
    return this.delayMs > 0 ? 1 : this.options.concurrency;
  }

  private async acquire(): Promise<void> {
    while (this.active >= this.limit()) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    const wait = this.nextStartAt - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.nextStartAt = Date.now() + this.delayMs;
  }

  private release(): void {
    this.active -= 1;
    this.waiting.shift()?.();
  }
}

/** What robots.txt allows the crawler. */
export interface RobotsRules {
  /** Matched in a worker thread within ROBOTS_MATCH_TIMEOUT_MS; a URL whose check runs past it counts as disallowed. */
  isAllowed(url: string): Promise<boolean>;
  /** Crawl-delay for the crawler's user agent, in ms (0: none). */
  crawlDelayMs: number;
  /** What was found, for the report: "robots.txt: 3 rules", "no robots.txt (404)". */
  description: string;
}

/** Thrown when robots.txt cannot be read because the site does not answer: the site counts as unreachable. */
export class SiteUnreachableError extends Error {
  constructor(
    message: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** How long parsing robots.txt, or matching one URL against it, may take (in its worker) before the URL counts as disallowed. */
export const ROBOTS_MATCH_TIMEOUT_MS = 2_000;

/** robots.txt is parsed and matched in this worker thread: a costly file stalls it, not the service. */
const robotsWorker = new OffThreadRunner('robots', { maxHeapMb: 128, maxGrowthMb: 256 });
let robotsRuns = 0;

interface RobotsAnswer {
  crawlDelaySeconds: number;
  droppedRules: number;
  allowed: boolean[];
}

/**
 * The site's robots.txt for the crawler's user agent (RFC 9309): a 4xx means no
 * rules; a 5xx or no answer means the site is not reachable now (SiteUnreachableError),
 * so the run stops before it crawls anything or removes anything.
 */
export async function loadRobots(fetcher: SiteFetcher, origin: string): Promise<RobotsRules> {
  const url = `${origin}/robots.txt`;
  let response: GuardedResponse;
  try {
    response = await fetcher.get({ url, maxBytes: ROBOTS_MAX_BYTES });
  } catch (error) {
    if (error instanceof NetworkGuardError && ['timeout', 'connection', 'dns', 'aborted'].includes(error.reason)) {
      throw new SiteUnreachableError(`${origin} cannot be reached: ${error.message}`, url, { cause: error });
    }
    if (error instanceof NetworkGuardError && ['address', 'metadata', 'self', 'scheme'].includes(error.reason)) throw error;
    // A robots.txt that redirects elsewhere or is too large is as good as none.
    return { isAllowed: async () => true, crawlDelayMs: 0, description: `robots.txt not used (${(error as Error).message})` };
  }
  if (response.status >= 500) throw new SiteUnreachableError(`${origin} answers ${response.status} for robots.txt: the site is not available now`, url);
  if (response.status !== 200) return { isAllowed: async () => true, crawlDelayMs: 0, description: `no robots.txt (${response.status})` };
  const key = `${url}#${(robotsRuns += 1)}`;
  const text = response.body.toString('utf8');
  const ask = (check: string[]) => robotsWorker.run<RobotsAnswer>('robots', { key, url, text, userAgent: fetcher.userAgent, check }, ROBOTS_MATCH_TIMEOUT_MS);
  let parsed: RobotsAnswer;
  try {
    parsed = await ask([]);
  } catch (error) {
    if (!(error instanceof OffThreadLimitError)) throw error;
    return { isAllowed: async () => false, crawlDelayMs: 0, description: `robots.txt could not be read within its limits (${error.message}): nothing is crawled` };
  }
  return {
    isAllowed: async (u) => {
      try {
        return (await ask([u])).allowed[0] === true;
      } catch (error) {
        if (error instanceof OffThreadLimitError) return false;
        throw error;
      }
    },
    crawlDelayMs: parsed.crawlDelaySeconds * 1000,
    description: `robots.txt read${parsed.droppedRules > 0 ? ` (${parsed.droppedRules} rules with more than ${ROBOTS_MAX_WILDCARDS_PER_RULE} wildcards ignored)` : ''}`,
  };
}
