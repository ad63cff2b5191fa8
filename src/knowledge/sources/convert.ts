import { docxToMarkdown } from './docx';
import { DocumentSkipped, DocumentUnreadableError } from './errors';
import { htmlToMarkdown } from './html';
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
}

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
 * `maxBytes` (too_large), a PDF without a text layer (no_text_layer), empty once its chrome and
 * markup are gone (empty), or unreadable (DocumentUnreadableError: an encrypted or corrupt PDF,
 * a corrupt DOCX, text that is not valid in its charset).
 */
export async function convertDocument(bytes: Uint8Array, format: DocumentFormat, options: ConvertOptions = {}): Promise<ConvertedDocument> {
  if (options.maxBytes !== undefined && bytes.byteLength > options.maxBytes) {
    throw new DocumentSkipped('too_large', `The document is ${bytes.byteLength} bytes, more than the ${options.maxBytes} allowed.`);
  }
  const converted = await convert(bytes, format, options);
  const parts = converted.parts.map((p) => ({ ...p, markdown: storableText(p.markdown) })).filter((p) => p.markdown.trim() !== '');
  if (parts.length === 0) throw new DocumentSkipped('empty', 'The document has no text once converted.');
  return { ...converted, title: storableTitle(converted.title), parts };
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
