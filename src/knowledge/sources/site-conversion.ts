import { convertDocument, formatOf } from './convert';

/** The formats a crawl stores; anything else is skipped as unsupported. */
export type FetchedFormat = 'html' | 'pdf' | 'docx';

/** A converted document (the converters' ConvertedDocument). */
export interface ConvertedPage {
  title: string | null;
  format: 'markdown' | 'text';
  parts: { markdown: string; page?: number }[];
  canonicalUrl?: string | null;
  links?: string[];
}

/**
 * Turns fetched bytes into a document: the format by content type (then by the URL's
 * extension), null when it is none the crawl stores; convert throws DocumentSkipped (with
 * its reason) when the document is not to be stored.
 */
export interface DocumentConversion {
  formatOf(contentType: string | null, url: string): FetchedFormat | null;
  convert(bytes: Uint8Array, format: FetchedFormat, options: { url: string; contentType: string | null; maxBytes: number }): Promise<ConvertedPage>;
}

const CRAWLED_FORMATS = new Set<string>(['html', 'pdf', 'docx']);

/**
 * How a crawl turns what it fetched into documents: HTML, PDF and Word only (by content
 * type, then by the URL's extension when the type is generic), converted as files and
 * uploads are. A page served as text/plain or markdown is not a site's article: skipped.
 */
export const siteDocumentConversion: DocumentConversion = {
  formatOf(contentType, url) {
    const format = formatOf(contentType, url);
    return format && CRAWLED_FORMATS.has(format) ? (format as FetchedFormat) : null;
  },
  // A plain Uint8Array, not the Buffer the guard returns: pdf.js refuses Buffers.
  convert: (bytes, format, options) => convertDocument(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), format, options),
};
