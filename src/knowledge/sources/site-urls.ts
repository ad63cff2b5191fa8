/**
 * URLs as the crawler compares them: one spelling per page, what belongs to the site,
 * and a guard against link mazes (calendars, faceted search, session ids in paths)
 * that would otherwise generate new URLs forever.
 */

/** Query parameters that only track the visitor: dropped, so they never make a page look new. */
const TRACKING_PARAMETERS = /^(utm_[a-z]+|gclid|fbclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmkt|ref|sessionid|sid|phpsessid|jsessionid)$/i;

/** File types that are never a document to ingest: not fetched when found as links. */
const NEVER_DOCUMENTS = new Set([
  '.png', '.jpg', '.jpeg', '.gif', '.webp', '.svg', '.ico', '.bmp', '.tif', '.tiff', '.avif',
  '.css', '.js', '.mjs', '.json', '.map', '.woff', '.woff2', '.ttf', '.otf', '.eot',
  '.zip', '.gz', '.tgz', '.rar', '.7z', '.tar', '.dmg', '.exe', '.msi', '.apk',
  '.mp3', '.mp4', '.m4a', '.wav', '.ogg', '.webm', '.mov', '.avi',
  '.xls', '.xlsx', '.ppt', '.pptx', '.doc', '.csv', '.rss', '.atom', '.xml',
]);

/** Extensions of the files linked from pages that are fetched even outside the crawled path. */
const LINKED_DOCUMENTS = new Set(['.pdf', '.docx']);

/**
 * One spelling of a URL: no fragment, lower-case host, default port dropped, tracking
 * parameters dropped and the rest sorted, `/./` and `/../` resolved (URL does that).
 * Null for anything that is not an absolute http(s) URL.
 */
export function normaliseUrl(raw: string, base?: string | URL): string | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  url.hash = '';
  const kept = [...url.searchParams.entries()].filter(([name]) => !TRACKING_PARAMETERS.test(name));
  kept.sort(([a, x], [b, y]) => (a === b ? x.localeCompare(y) : a.localeCompare(b)));
  url.search = new URLSearchParams(kept).toString();
  return url.href;
}

/** A page's source name when it declares no canonical URL: the URL without query and fragment. */
export function withoutQuery(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

/** The lower-case extension of a URL's last path segment (`.pdf`), or ''. */
export function urlExtension(url: string): string {
  const path = new URL(url).pathname;
  const file = path.slice(path.lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(dot).toLowerCase() : '';
}

/** Whether a link is a PDF or Word file by its name (fetched when linked from a page on the same host). */
export function looksLikeLinkedDocument(url: string): boolean {
  return LINKED_DOCUMENTS.has(urlExtension(url));
}

/** Whether a link is an image, script, archive or the like, never worth a request. */
export function isNeverADocument(url: string): boolean {
  return NEVER_DOCUMENTS.has(urlExtension(url));
}

/**
 * What a start page's crawl covers: its host, and paths under the start page's folder
 * (`/help/en/` for `/help/en/index.html` or `/help/en/`).
 */
export class SiteScope {
  readonly origin: string;
  readonly pathPrefix: string;

  constructor(startUrl: string) {
    const url = new URL(startUrl);
    this.origin = url.origin;
    this.pathPrefix = url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1) || '/';
  }

  /** Same scheme, host and port as the site. */
  sameOrigin(url: string): boolean {
    return new URL(url).origin === this.origin;
  }

  /** On the site and under the start page's folder. */
  contains(url: string): boolean {
    const parsed = new URL(url);
    return parsed.origin === this.origin && parsed.pathname.startsWith(this.pathPrefix);
  }
}

/** The limits of the link-maze guard; the defaults allow any help center we know of. */
export interface MazeLimits {
  /** Longer URLs are skipped (and a source name may be at most 512 characters). Default 512. */
  maxUrlLength: number;
  /** URLs with more path segments are skipped. Default 12. */
  maxPathDepth: number;
  /** Links followed from the start page at most (a chain of "next" links). Default 30. */
  maxLinkDepth: number;
  /** Query-string variants of one path followed at most (`?page=`, filters). Default 5. */
  maxQueryVariants: number;
  /** URLs with a path segment repeated this many times are skipped (`/a/b/a/b/a/b/`). Default 3. */
  maxRepeatedSegment: number;
}

export const DEFAULT_MAZE_LIMITS: MazeLimits = {
  maxUrlLength: 512,
  maxPathDepth: 12,
  maxLinkDepth: 30,
  maxQueryVariants: 5,
  maxRepeatedSegment: 3,
};

/**
 * Decides whether a newly found link is followed. A maze is caught by whichever
 * limit it reaches first; --max-pages bounds the rest. Keeps one counter per path
 * (the query variants), which is bounded by the pages the crawl takes.
 */
export class LinkMazeGuard {
  private readonly variantsByPath = new Map<string, number>();

  constructor(private readonly limits: MazeLimits = DEFAULT_MAZE_LIMITS) {}

  /** Null when the link may be followed, else why not (for the report). */
  refuse(url: string, linkDepth: number): string | null {
    const { maxUrlLength, maxPathDepth, maxLinkDepth, maxQueryVariants, maxRepeatedSegment } = this.limits;
    if (url.length > maxUrlLength) return `the URL is longer than ${maxUrlLength} characters`;
    const parsed = new URL(url);
    const segments = parsed.pathname.split('/').filter((s) => s !== '');
    if (segments.length > maxPathDepth) return `the path is deeper than ${maxPathDepth} folders`;
    if (linkDepth > maxLinkDepth) return `it is more than ${maxLinkDepth} links away from the start page`;
    const repeats = new Map<string, number>();
    for (const s of segments) repeats.set(s, (repeats.get(s) ?? 0) + 1);
    if ([...repeats.values()].some((n) => n >= maxRepeatedSegment)) return 'a path segment repeats (a link maze?)';
    if (parsed.search !== '') {
      const key = `${parsed.origin}${parsed.pathname}`;
      const seen = this.variantsByPath.get(key) ?? 0;
      if (seen >= maxQueryVariants) return `more than ${maxQueryVariants} query variants of ${parsed.pathname}`;
      this.variantsByPath.set(key, seen + 1);
    }
    return null;
  }
}
