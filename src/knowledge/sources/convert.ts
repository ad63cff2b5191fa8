import { docxToMarkdown } from './docx';
import { DocumentSkipped, DocumentUnreadableError, type SkipReason } from './errors';
import { htmlToMarkdown } from './html';
import { OffThreadLimitError, OffThreadRunner, WorkerJobError } from './off-thread';
import { readPdf } from './pdf';

export { DocumentSkipped, DocumentUnreadableError, type SkipReason } from './errors';

/** Titles longer than this are cut (the knowledge API takes at most this many characters). */
export const DOCUMENT_TITLE_MAX_CHARS = 200;

/** The kinds of document the knowledge base takes. */
export type DocumentFormat = 'markdown' | 'text' | 'html' | 'pdf' | 'docx';

/** One piece of a converted document: the whole text, or one page of a PDF. */
export interface DocumentPart {
  markdown: string;
  /** The PDF page this part is (from 1); chunks are cut within a part, so a chunk knows its page. */
  page?: number;
}

/** A document turned into text that keeps its meaning, ready for ingestDocument. */
export interface ConvertedDocument {
  /** The page's or file's own title; null lets ingest fall back to the first `# ` heading or the source's name. */
  title: string | null;
  /** How the parts are written: `text` only for plain text files, everything else is Markdown. */
  format: 'markdown' | 'text';
  /** At least one part with text (an empty document is DocumentSkipped instead). */
  parts: DocumentPart[];
  /** HTML only: the page's `<link rel="canonical">`, absolute, or null. */
  canonicalUrl?: string | null;
  /** HTML only: the absolute http(s) links of the whole page (see HtmlPage.links). */
  links?: string[];
}

export interface ConvertOptions {
  /** Where the document came from: resolves an HTML page's relative links. */
  url?: string;
  /** The Content-Type it came with: an HTML page's charset is read from it first. */
  contentType?: string | null;
  /** Larger documents are DocumentSkipped('too_large') before anything is parsed. */
  maxBytes?: number;
  /** How long the conversion may take before it is stopped (too_large). Default DOCUMENT_CONVERSION_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * HTML larger than this is not read: the DOM, Readability and turndown cost seconds per
 * megabyte (a 3 MB page took 13.6 s), and a help article is a few dozen kilobytes.
 */
export const HTML_MAX_BYTES = 2 * 1024 * 1024;

/** A conversion (in its worker) that takes longer than this is stopped and the document refused. */
export const DOCUMENT_CONVERSION_TIMEOUT_MS = 30_000;

/**
 * The conversion worker's limits: its V8 heap, and how far the process's resident memory may
 * grow while one document converts (inflated data lives outside the heap).
 */
export const DOCUMENT_WORKER_LIMITS = { maxHeapMb: 512, maxGrowthMb: 512 };

/** Documents convert one at a time in this worker thread, never on the service's event loop. */
const conversionWorker = new OffThreadRunner('document-conversion', { ...DOCUMENT_WORKER_LIMITS, preload: true });

/** Content types and the format each is; `application/octet-stream` and the like fall back to the name. */
const FORMAT_BY_CONTENT_TYPE: Record<string, DocumentFormat> = {
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/** Content types that say nothing about the content: the file's name decides. */
const GENERIC_CONTENT_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary', 'application/x-download']);

const FORMAT_BY_EXTENSION: Record<string, DocumentFormat> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
};

/** The file extensions the knowledge base takes, lower case with the dot. */
export const DOCUMENT_EXTENSIONS: readonly string[] = Object.keys(FORMAT_BY_EXTENSION);

/** The content types the knowledge base takes (without parameters). */
export const DOCUMENT_CONTENT_TYPES: readonly string[] = Object.keys(FORMAT_BY_CONTENT_TYPE);

/**
 * A document's format: by its content type first (parameters ignored), by the extension of
 * its file name or URL path when the type is missing or generic (`application/octet-stream`).
 * `text/plain` for a `.md` or `.markdown` name is Markdown (servers often send that). Null
 * for anything else (an image, a spreadsheet, an unknown extension).
 */
export function formatOf(contentTypeOrNull: string | null, nameOrUrl: string): DocumentFormat | null {
  const type = (contentTypeOrNull ?? '').split(';')[0]!.trim().toLowerCase();
  const byName = FORMAT_BY_EXTENSION[extensionOf(nameOrUrl)] ?? null;
  if (GENERIC_CONTENT_TYPES.has(type)) return byName;
  const byType = FORMAT_BY_CONTENT_TYPE[type] ?? null;
  if (byType === 'text' && byName === 'markdown') return 'markdown';
  return byType;
}

/** A document's format by its content type alone (parameters ignored); null for any other type. */
export function formatOfContentType(contentType: string | null): DocumentFormat | null {
  return FORMAT_BY_CONTENT_TYPE[(contentType ?? '').split(';')[0]!.trim().toLowerCase()] ?? null;
}

function extensionOf(nameOrUrl: string): string {
  let name = nameOrUrl;
  if (/^https?:\/\//i.test(nameOrUrl)) {
    try {
      name = decodeURIComponent(new URL(nameOrUrl).pathname);
    } catch {
      name = new URL(nameOrUrl).pathname;
    }
  }
  const file = name.slice(name.lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(dot).toLowerCase() : '';
}

/**
 * Turns a document's bytes into Markdown parts (a PDF: one part per page with text). Throws
 * DocumentSkipped with its reason, having kept nothing, when the document is larger than
 * `maxBytes` or an HTML page larger than HTML_MAX_BYTES (too_large), a file whose parts inflate
 * past their caps, or whose conversion needs more than DOCUMENT_WORKER_LIMITS' memory or
 * `timeoutMs` (too_large), a PDF without a text layer (no_text_layer), empty once its chrome and
 * markup are gone (empty), or unreadable (DocumentUnreadableError: an encrypted or corrupt PDF,
 * a corrupt DOCX, text that is not valid in its charset). The conversion runs in a worker
 * thread: a hostile file stalls or exhausts that worker, never the caller's event loop.
 */
export async function convertDocument(bytes: Uint8Array, format: DocumentFormat, options: ConvertOptions = {}): Promise<ConvertedDocument> {
  checkSize(bytes, format, options);
  const { timeoutMs = DOCUMENT_CONVERSION_TIMEOUT_MS, ...rest } = options;
  try {
    return await conversionWorker.run<ConvertedDocument>('convert', { bytes, format, options: rest }, timeoutMs);
  } catch (error) {
    if (error instanceof OffThreadLimitError) {
      throw new DocumentSkipped('too_large', `The document is too costly to convert: ${error.message}; not read.`, { cause: error });
    }
    if (error instanceof WorkerJobError && error.failure.name === 'DocumentUnreadableError') throw new DocumentUnreadableError(error.message);
    if (error instanceof WorkerJobError && error.failure.name === 'DocumentSkipped') {
      throw new DocumentSkipped(error.failure.fields.reason as SkipReason, error.message);
    }
    // Anything else the file made the converter do (a parser's stack overflow, a crashed worker) is this file's fault.
    throw new DocumentUnreadableError(`The document cannot be converted: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * convertDocument's work, on the calling thread: what the conversion worker runs. Call
 * convertDocument instead; this one has no time or memory limit of its own.
 */
export async function convertDocumentHere(bytes: Uint8Array, format: DocumentFormat, options: ConvertOptions = {}): Promise<ConvertedDocument> {
  checkSize(bytes, format, options);
  const converted = await convert(bytes, format, options);
  const parts = converted.parts.map((p) => ({ ...p, markdown: storableText(p.markdown) })).filter((p) => p.markdown.trim() !== '');
  if (parts.length === 0) throw new DocumentSkipped('empty', 'The document has no text once converted.');
  return { ...converted, title: storableTitle(converted.title), parts };
}

function checkSize(bytes: Uint8Array, format: DocumentFormat, options: ConvertOptions): void {
  if (options.maxBytes !== undefined && bytes.byteLength > options.maxBytes) {
    throw new DocumentSkipped('too_large', `The document is ${bytes.byteLength} bytes, more than the ${options.maxBytes} allowed.`);
  }
  if (format === 'html' && bytes.byteLength > HTML_MAX_BYTES) {
    throw new DocumentSkipped('too_large', `The page is ${bytes.byteLength} bytes, more than the ${HTML_MAX_BYTES} read of an HTML page.`);
  }
}

/** Text as the knowledge base stores it: no NUL or other control characters but line breaks and tabs, valid unicode. */
function storableText(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '').toWellFormed();
}

function storableTitle(title: string | null): string | null {
  const clean = title?.replace(/\p{Cc}+/gu, ' ').replace(/\s+/g, ' ').trim().slice(0, DOCUMENT_TITLE_MAX_CHARS).toWellFormed().trim();
  return clean ? clean : null;
}

async function convert(bytes: Uint8Array, format: DocumentFormat, options: ConvertOptions): Promise<ConvertedDocument> {
  switch (format) {
    case 'markdown':
    case 'text': {
      const text = decodeUtf8(bytes);
      return { title: null, format: format === 'markdown' ? 'markdown' : 'text', parts: [{ markdown: text }] };
    }
    case 'html': {
      const page = await htmlToMarkdown(decodeHtml(bytes, options.contentType ?? null), options.url);
      return {
        title: page.title,
        format: 'markdown',
        parts: hasBody(page.markdown, page.title) ? [{ markdown: page.markdown }] : [],
        canonicalUrl: page.canonicalUrl,
        links: page.links,
      };
    }
    case 'pdf': {
      // The PDF's own title (its /Title); without one, ingest falls back to the file's name.
      const { title, pages } = await readPdf(bytes);
      if (pages.length === 0) throw new DocumentSkipped('no_text_layer', 'The PDF has no text layer (a scan?): there is no text to store.');
      return { title, format: 'markdown', parts: pages.map((p) => ({ markdown: p.text, page: p.page })) };
    }
    case 'docx': {
      const { title, markdown } = await docxToMarkdown(bytes);
      return { title, format: 'markdown', parts: hasBody(markdown, title) ? [{ markdown }] : [] };
    }
    default:
      throw new DocumentSkipped('unsupported_type', `Documents of format "${String(format)}" are not supported.`);
  }
}

/** Whether the markdown holds more than its `# title` line. */
function hasBody(markdown: string, title: string | null): boolean {
  const body = title && markdown.startsWith(`# ${title}`) ? markdown.slice(title.length + 2) : markdown;
  return body.trim() !== '';
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new DocumentUnreadableError('The text is not valid UTF-8.', { cause: error });
  }
}

/**
 * An HTML page's text in its charset: a byte order mark's, else the Content-Type's, else the
 * page's `<meta charset>` (in its first 1,024 bytes, as browsers look), else UTF-8. Bytes
 * invalid in that charset become U+FFFD, as in a browser.
 */
function decodeHtml(bytes: Uint8Array, contentType: string | null): string {
  const declared =
    bomCharset(bytes) ?? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1] ?? sniffMetaCharset(bytes);
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes); // an unknown charset label
  }
}

function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return /<meta[^>]{0,200}?charset\s*=\s*["']?([\w-]{1,40})/i.exec(head)?.[1];
}
