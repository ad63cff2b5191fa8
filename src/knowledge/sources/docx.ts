import mammoth from 'mammoth';
import { DocumentUnreadableError } from './errors';
import { wholeHtmlToMarkdown } from './html';

/**
 * A Word file (.docx) as Markdown: mammoth turns its headings, lists and tables into HTML,
 * which becomes Markdown as a page's content does (tables as GFM tables). The title is its
 * first heading of level 1, or null. Throws DocumentUnreadableError when the bytes are not a
 * readable .docx (corrupt, or an old binary .doc).
 */
export async function docxToMarkdown(bytes: Uint8Array): Promise<{ title: string | null; markdown: string }> {
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
