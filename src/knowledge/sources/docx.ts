import mammoth from 'mammoth';
import { DocumentUnreadableError } from './errors';
import { wholeHtmlToMarkdown } from './html';
import { checkDocxInflation } from './inflate-limits';

/**
 * A Word file (.docx) as Markdown: mammoth turns its headings, lists and tables into HTML,
 * which becomes Markdown as a page's content does (tables as GFM tables). The title is its
 * first heading of level 1, or null. Throws DocumentUnreadableError when the bytes are not a
 * readable .docx (corrupt, or an old binary .doc), DocumentSkipped('too_large') when one of its
 * parts inflates past DOCX_MAX_ENTRY_BYTES (or all past DOCX_MAX_TOTAL_BYTES).
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
  return wholeHtmlToMarkdown(html);
}
