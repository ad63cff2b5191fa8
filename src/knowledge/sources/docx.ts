import mammoth from 'mammoth';
import { DocumentUnreadableError } from './errors';
import { wholeHtmlToMarkdown } from './html';

/**
 * The most the XML parts of a Word file may declare they inflate to. A .docx is a zip: a few
 * kilobytes can hold gigabytes of XML, which mammoth would inflate whole into memory. The text
 * of a long manual is a few megabytes; images are not read.
 */
export const DOCX_MAX_XML_BYTES = 50 * 1024 * 1024;

/**
 * A Word file (.docx) as Markdown: mammoth turns its headings, lists and tables into HTML,
 * which becomes Markdown as a page's content does (tables as GFM tables). The title is its
 * first heading of level 1, or null. Throws DocumentUnreadableError when the bytes are not a
 * readable .docx (corrupt, or an old binary .doc).
 */
export async function docxToMarkdown(bytes: Uint8Array): Promise<{ title: string | null; markdown: string }> {
  const declared = declaredXmlBytes(bytes);
  if (declared > DOCX_MAX_XML_BYTES) {
    throw new DocumentUnreadableError(`The Word file's text would inflate to ${declared} bytes, more than the ${DOCX_MAX_XML_BYTES} read.`);
  }
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
  return wholeHtmlToMarkdown(html);
}

/**
 * The uncompressed sizes the zip's central directory declares for its XML parts (.xml, .rels),
 * summed; 0 when there is no central directory (mammoth then refuses the file). A zip can lie
 * about sizes, so this stops the plain bombs, not a crafted one.
 */
function declaredXmlBytes(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record: within the last 64 KiB + 22 bytes (its comment may precede it).
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return 0;
  const entries = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  let total = 0;
  for (let k = 0; k < entries && at + 46 <= bytes.length && view.getUint32(at, true) === 0x02014b50; k++) {
    const uncompressed = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (/\.(xml|rels)$/i.test(name)) total += uncompressed;
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return total;
}
