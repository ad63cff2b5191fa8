import zlib from 'node:zlib';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { OffThreadLimitError, OffThreadRunner, WorkerJobError } from './off-thread';

/**
 * Sitemaps (sitemaps.org): a `urlset` lists pages, a `sitemapindex` lists other
 * sitemaps. Parsed with fast-xml-parser after validation, so a malformed file is
 * refused whole, never half-read.
 */

/** One `<url>` or `<sitemap>` entry: its location and, when given, its `<lastmod>`. */
export interface SitemapEntry {
  loc: string;
  lastmod: string | null;
}

export type ParsedSitemap = { kind: 'urlset'; urls: SitemapEntry[] } | { kind: 'index'; sitemaps: SitemapEntry[] };

/** Why a sitemap was not read. */
export type SitemapProblem = 'malformed' | 'too_large' | 'too_many_entries' | 'loop' | 'too_deep' | 'too_many_sitemaps' | 'unreachable' | 'http_status';

export class SitemapError extends Error {
  constructor(
    readonly problem: SitemapProblem,
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The protocol's own limits: 50,000 entries and 50 MiB uncompressed per file. */
export const SITEMAP_MAX_ENTRIES = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  isArray: (name) => name === 'url' || name === 'sitemap',
  // Only XML's five entities (&amp; in URLs); a DOCTYPE's own entities are refused before parsing.
  processEntities: true,
  htmlEntities: false,
  parseTagValue: false,
  trimValues: true,
});

/**
 * The bytes of a sitemap as text: a gzip file (`sitemap.xml.gz`, served as is) is
 * inflated, up to maxBytes (a small file that inflates past it is refused).
 */
export function sitemapText(bytes: Buffer, url: string, maxBytes = SITEMAP_MAX_BYTES): string {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return zlib.gunzipSync(bytes, { maxOutputLength: maxBytes }).toString('utf8');
    } catch (error) {
      const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError;
      throw tooLarge
        ? new SitemapError('too_large', `${url}: the sitemap inflates to more than ${maxBytes} bytes; not read`, url)
        : new SitemapError('malformed', `${url}: the gzip sitemap cannot be inflated (${(error as Error).message})`, url);
    }
  }
  return bytes.toString('utf8');
}

/** Reading one sitemap file (inflating and parsing it) in its worker may take this long. */
export const SITEMAP_PARSE_TIMEOUT_MS = 30_000;

/** Sitemaps are inflated and parsed in this worker thread: a 47 MB file took 1.8 s of one synchronous block. */
const sitemapWorker = new OffThreadRunner('sitemap', { maxHeapMb: 1024, maxGrowthMb: 1024 });

/**
 * sitemapText and parseSitemap together, in a worker thread, within SITEMAP_PARSE_TIMEOUT_MS.
 * Throws SitemapError as they do, and `too_large` for a file that cannot be read within the
 * worker's time or memory.
 */
export async function readSitemap(bytes: Buffer, url: string, maxBytes = SITEMAP_MAX_BYTES, maxEntries = SITEMAP_MAX_ENTRIES): Promise<ParsedSitemap> {
  try {
    return await sitemapWorker.run<ParsedSitemap>('sitemap', { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), url, maxBytes, maxEntries }, SITEMAP_PARSE_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof OffThreadLimitError) throw new SitemapError('too_large', `${url}: the sitemap cannot be read within its limits (${error.message}); not read`, url);
    if (error instanceof WorkerJobError && error.failure.name === 'SitemapError') {
      throw new SitemapError(error.failure.fields.problem as SitemapProblem, error.message, url);
    }
    if (error instanceof WorkerJobError) throw new SitemapError('malformed', `${url}: the sitemap cannot be read (${error.message}); not read`, url);
    throw error;
  }
}

/**
 * Parses a sitemap's XML. Throws SitemapError: `malformed` for XML that does not
 * validate, declares its own entities, that the parser refuses (nesting too deep), or has
 * neither a urlset nor a sitemapindex root; `too_many_entries` past maxEntries.
 */
export function parseSitemap(xml: string, url: string, maxEntries = SITEMAP_MAX_ENTRIES): ParsedSitemap {
  if (/<!ENTITY/i.test(xml)) throw new SitemapError('malformed', `${url}: the sitemap declares XML entities; refused`, url);
  let doc: Record<string, unknown>;
  try {
    const valid = XMLValidator.validate(xml);
    if (valid !== true) {
      throw new SitemapError('malformed', `${url}: the sitemap is not well-formed XML (line ${valid.err.line}: ${valid.err.msg}); not read`, url);
    }
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    // The parser's own refusals (`Maximum nested tags exceeded`) are this sitemap's problem, not the sync's.
    if (error instanceof SitemapError) throw error;
    throw new SitemapError('malformed', `${url}: the sitemap cannot be parsed (${(error as Error).message}); not read`, url);
  }
  const root = (name: string) => {
    const value = doc[name];
    return value === undefined ? undefined : typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  };
  const urlset = root('urlset');
  const index = root('sitemapindex');
  const entries = (items: unknown): SitemapEntry[] => {
    const list = Array.isArray(items) ? items : [];
    if (list.length > maxEntries) {
      throw new SitemapError('too_many_entries', `${url}: the sitemap lists ${list.length} entries, more than ${maxEntries}; not read`, url);
    }
    return list.flatMap((item) => {
      const loc = typeof item?.loc === 'string' ? item.loc.trim() : '';
      const lastmod = typeof item?.lastmod === 'string' && item.lastmod.trim() !== '' ? item.lastmod.trim() : null;
      return loc === '' ? [] : [{ loc, lastmod }];
    });
  };
  if (urlset) return { kind: 'urlset', urls: entries(urlset.url) };
  if (index) return { kind: 'index', sitemaps: entries(index.sitemap) };
  throw new SitemapError('malformed', `${url}: neither a <urlset> nor a <sitemapindex>; not a sitemap`, url);
}

/** Whether a response looks like a sitemap rather than a page: XML by its type, or by its first bytes. */
export function looksLikeSitemap(contentType: string | undefined, body: Buffer): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml') && type !== 'application/xhtml+xml') return true;
  if (type === 'application/gzip' || type === 'application/x-gzip') return true;
  if (body[0] === 0x1f && body[1] === 0x8b) return true;
  const head = body.subarray(0, 512).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  return /^<\?xml[^>]*>\s*(<!--[\s\S]*?-->\s*)*<(\w+:)?(urlset|sitemapindex)\b/.test(head) || /^<(\w+:)?(urlset|sitemapindex)\b/.test(head);
}
