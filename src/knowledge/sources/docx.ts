import { inflateRawSync } from 'node:zlib';
import mammoth from 'mammoth';
import { DocumentUnreadableError } from './errors';
import { wholeHtmlToMarkdown } from './html';
import { checkDocxInflation } from './inflate-limits';

/**
 * A Word file (.docx) as Markdown: mammoth turns its headings, lists and tables into HTML,
 * which becomes Markdown as a page's content does (tables as GFM tables). The title is the
 * file's own (`dc:title` of its document properties), else its first heading of level 1, or null.
 * Throws DocumentUnreadableError when the bytes are not a readable .docx (corrupt, or an old
 * binary .doc), DocumentSkipped('too_large') when one of its parts inflates past
 * DOCX_MAX_ENTRY_BYTES (or all past DOCX_MAX_TOTAL_BYTES).
 */
export async function docxToMarkdown(bytes: Uint8Array): Promise<{ title: string | null; markdown: string }> {
  // A .docx is a zip: a few kilobytes can hold gigabytes, which mammoth would inflate whole.
  await checkDocxInflation(bytes);
  let html: string;
  try {
    // Images are left out: their data would end up in the text.
    ({ value: html } = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      { convertImage: mammoth.images.imgElement(async () => ({ src: '' })), externalFileAccess: false },
    ));
  } catch (error) {
    throw new DocumentUnreadableError(`The Word file cannot be read (corrupt, or not a .docx): ${(error as Error).message}`, { cause: error });
  }
  const page = await wholeHtmlToMarkdown(html);
  return { ...page, title: documentPropertiesTitle(bytes) ?? page.title };
}

/** docProps/core.xml is a few hundred bytes; more is not a title worth reading. */
const CORE_PROPERTIES_MAX_BYTES = 64 * 1024;

/**
 * The `dc:title` of the file's document properties (docProps/core.xml), or null when it
 * has none or it cannot be read (a title is never worth refusing the text for).
 */
function documentPropertiesTitle(bytes: Uint8Array): string | null {
  try {
    const xml = zipEntryText(bytes, 'docProps/core.xml', CORE_PROPERTIES_MAX_BYTES);
    const raw = xml?.match(/<dc:title(?:\s[^>]*)?>([\s\S]*?)<\/dc:title>/)?.[1];
    const title = raw === undefined ? '' : decodeXmlText(raw).replace(/\s+/g, ' ').trim();
    return title === '' ? null : title;
  } catch {
    return null;
  }
}

/** One entry of a zip, as UTF-8 text, found through the central directory; null when absent, not deflated or stored, or larger than `maxBytes`. */
function zipEntryText(bytes: Uint8Array, name: string, maxBytes: number): string | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = endOfCentralDirectory(view, bytes.length);
  if (end < 0) return null;
  const entries = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  for (let k = 0; k < entries && at + 46 <= bytes.length && view.getUint32(at, true) === 0x02014b50; k++) {
    const nameLength = view.getUint16(at + 28, true);
    const entryName = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (entryName === name) {
      const method = view.getUint16(at + 10, true);
      const compressed = view.getUint32(at + 20, true);
      const local = view.getUint32(at + 42, true);
      if (compressed > maxBytes || local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) return null;
      const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      const data = bytes.subarray(start, start + compressed);
      if (method === 0) return new TextDecoder().decode(data);
      // maxOutputLength: the declared size can lie; inflating stops at the cap (and throws).
      if (method === 8) return new TextDecoder().decode(inflateRawSync(data, { maxOutputLength: maxBytes }));
      return null;
    }
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return null;
}

/** The end-of-central-directory record's offset: within the last 64 KiB + 22 bytes (its comment may precede it); -1 when absent. */
function endOfCentralDirectory(view: DataView, length: number): number {
  for (let at = length - 22; at >= Math.max(0, length - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === 0x06054b50) return at;
  }
  return -1;
}

/** XML character data: the five entities and numeric references. */
function decodeXmlText(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (_m, ref: string) => {
    if (ref[0] !== '#') return named[ref.toLowerCase()]!;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}
