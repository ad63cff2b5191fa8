/**
 * A help-center website on 127.0.0.1, for tests, benchmarks and evaluations that
 * crawl: pages wrapped in realistic site chrome (navigation, header, footer, cookie
 * banner, related links), sitemaps, robots.txt, PDFs, redirects, any status. It
 * answers conditional requests (ETag, Last-Modified → 304) as real servers do and
 * keeps a log of the requests it saw.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the site answers for one path. */
export interface LoopbackResponse {
  /** Default 200. */
  status?: number;
  /** Default `text/html; charset=utf-8` when there is a body. */
  contentType?: string;
  body?: string | Buffer;
  /** Extra headers (Location for a redirect, Content-Encoding for a pre-compressed body…). */
  headers?: Record<string, string>;
  /** Answer with ETag and Last-Modified and honour If-None-Match / If-Modified-Since. Default true for 200s. */
  conditional?: boolean;
  /** Wait this long before answering (a slow page). */
  delayMs?: number;
}

export interface LoopbackRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  at: number;
  status: number;
}

export interface LoopbackSiteOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port); give the old port to bring a stopped site back at the same address. */
  port?: number;
  /** Answers paths not in the table (a generated site); undefined: 404. */
  generate?: (path: string) => LoopbackResponse | undefined;
  /** Keep the request log (default true; a benchmark turns it off). */
  logRequests?: boolean;
}

export interface LoopbackSite {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  origin: string;
  port: number;
  /** Sets what a path (with its query, if any) answers; a string is an HTML page as is. */
  set(path: string, response: LoopbackResponse | string): void;
  /** Makes a path answer 404. */
  remove(path: string): void;
  /** Every request seen, oldest first. */
  requests: LoopbackRequest[];
  /** The most requests it was answering at one time. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

/** Text of the chrome every wrapped page carries: no stored chunk may hold it. */
export const SITE_CHROME_TEXT = {
  navigation: 'Browse all help topics',
  header: 'Example Shop Help Center',
  footer: 'Example Shop GmbH, Imprint, Privacy settings, Careers',
  banner: 'We use cookies to improve your experience. Accept all cookies?',
  related: 'Customers also read these articles',
};

/** A page as a help-center platform renders it: the article inside navigation, header, footer, cookie banner and related links. */
export function pageInSiteChrome(page: { title: string; articleHtml: string; canonical?: string; relatedLinks?: { href: string; text: string }[] }): string {
  const related = (page.relatedLinks ?? []).map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(page.title)} | Example Shop Help</title>
${page.canonical ? `<link rel="canonical" href="${escapeHtml(page.canonical)}">` : ''}
<script>window.dataLayer = [{ event: 'pageview' }];</script>
<style>.cookie-banner{position:fixed}</style></head>
<body>
<div class="cookie-banner" id="cookie-consent" role="dialog"><p>${SITE_CHROME_TEXT.banner}</p><button>Accept</button><button>Reject</button></div>
<header class="site-header"><a href="/">${SITE_CHROME_TEXT.header}</a><form role="search"><input name="q" placeholder="Search"></form></header>
<nav class="main-nav" aria-label="Main"><p>${SITE_CHROME_TEXT.navigation}</p><ul><li><a href="/help/">Help home</a></li><li><a href="/help/orders/">Orders</a></li><li><a href="/help/returns/">Returns</a></li><li><a href="/contact">Contact us</a></li></ul></nav>
<main><article class="article-body">
<h1>${escapeHtml(page.title)}</h1>
${page.articleHtml}
</article>
<section class="related-articles"><h2>${SITE_CHROME_TEXT.related}</h2><ul>${related}</ul></section>
</main>
<footer class="site-footer"><p>${SITE_CHROME_TEXT.footer}</p><a href="/imprint">Imprint</a></footer>
</body></html>`;
}

/** A `<urlset>` sitemap of absolute URLs, each with its lastmod when given. */
export function sitemapXml(entries: { loc: string; lastmod?: string }[]): string {
  const urls = entries.map((e) => `<url><loc>${escapeHtml(e.loc)}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}</url>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}

/** A `<sitemapindex>` naming other sitemaps. */
export function sitemapIndexXml(locs: string[]): string {
  const items = locs.map((loc) => `<sitemap><loc>${escapeHtml(loc)}</loc></sitemap>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items}\n</sitemapindex>\n`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Fixed, so Last-Modified is stable across runs of one test. */
const LAST_MODIFIED = new Date('2026-11-01T00:00:00Z').toUTCString();

/**
 * Starts a site on loopback with the given pages (path → response; a string is an
 * HTML page as is). Close it when done.
 */
export async function startLoopbackSite(pages: Record<string, LoopbackResponse | string> = {}, options: LoopbackSiteOptions = {}): Promise<LoopbackSite> {
  const table = new Map<string, LoopbackResponse>();
  for (const [path, response] of Object.entries(pages)) table.set(path, typeof response === 'string' ? { body: response } : response);
  const requests: LoopbackRequest[] = [];
  const logRequests = options.logRequests ?? true;

  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => (inFlight -= 1));
    const path = req.url ?? '/';
    const found = table.get(path) ?? options.generate?.(path);
    const respond = () => {
      const status = found ? (found.status ?? 200) : 404;
      if (logRequests) requests.push({ path, headers: req.headers, at: Date.now(), status });
      if (!found) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not found</h1>');
        return;
      }
      const body = found.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(found.body) ? found.body : Buffer.from(found.body, 'utf8');
      const headers: Record<string, string> = { ...found.headers };
      if (found.body !== undefined) headers['content-type'] = found.contentType ?? 'text/html; charset=utf-8';
      if (status === 200 && (found.conditional ?? true)) {
        const etag = `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
        headers.etag = etag;
        headers['last-modified'] = LAST_MODIFIED;
        if (req.headers['if-none-match'] === etag) {
          if (logRequests) requests[requests.length - 1]!.status = 304;
          res.writeHead(304, { etag }).end();
          return;
        }
      }
      headers['content-length'] = String(body.length);
      res.writeHead(status, headers).end(req.method === 'HEAD' ? undefined : body);
    };
    if (found?.delayMs) setTimeout(respond, found.delayMs);
    else respond();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    set: (path, response) => table.set(path, typeof response === 'string' ? { body: response } : response),
    remove: (path) => table.delete(path),
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
