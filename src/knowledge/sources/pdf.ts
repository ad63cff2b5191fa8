import { extractText, getDocumentProxy, getMeta } from 'unpdf';
import { DocumentUnreadableError } from './errors';
import { checkPdfStreams } from './inflate-limits';

/** One page's text; `page` counts from 1. */
export interface PdfPage {
  page: number;
  text: string;
}

/**
 * The text of a PDF, page by page (pages without text left out, the others keep their
 * number). An empty result means the PDF has no text layer (a scan): callers report it
 * skipped, never store it empty. Throws DocumentUnreadableError for an encrypted PDF that
 * needs a password and for bytes that are not a readable PDF, DocumentSkipped('too_large') when
 * a stream inflates past PDF_MAX_STREAM_BYTES (or all past PDF_MAX_TOTAL_BYTES).
 */
export async function pdfToPages(bytes: Uint8Array): Promise<PdfPage[]> {
  return (await readPdf(bytes)).pages;
}

/**
 * A PDF's pages (as pdfToPages) and its own title: the document information's `/Title`,
 * else its XMP `dc:title`; null when it has none (the caller falls back to the file's
 * name). Throws as pdfToPages does.
 */
export async function readPdf(bytes: Uint8Array): Promise<{ title: string | null; pages: PdfPage[] }> {
  // Flate streams can inflate a thousandfold: pdf.js would hold each one whole.
  await checkPdfStreams(bytes);
  let pdf;
  try {
    // pdf.js may take over (detach) the buffer it is given, and refuses a Buffer: hand it a plain copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false });
  } catch (error) {
    throw unreadable(error);
  }
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    const pages = text.map((t, k) => ({ page: k + 1, text: tidyPageText(t) })).filter((p) => p.text !== '');
    return { title: await pdfTitle(pdf), pages };
  } catch (error) {
    throw unreadable(error);
  } finally {
    await pdf.destroy().catch(() => {});
  }
}

/** The title the PDF declares; a metadata problem only loses the title, never the text. */
async function pdfTitle(pdf: Parameters<typeof getMeta>[0]): Promise<string | null> {
  try {
    const { info, metadata } = await getMeta(pdf);
    // Without XMP, pdf.js gives an empty object for the metadata.
    const xmpTitle = typeof metadata?.get === 'function' ? metadata.get('dc:title') : null;
    for (const candidate of [info?.Title, xmpTitle]) {
      const title = typeof candidate === 'string' ? candidate.replace(/\s+/g, ' ').trim() : '';
      if (title && !/^untitled$/i.test(title)) return title;
    }
  } catch {
    // Unreadable metadata: no title.
  }
  return null;
}

function unreadable(error: unknown): DocumentUnreadableError {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'PasswordException') {
    return new DocumentUnreadableError('The PDF is encrypted and needs a password: save it without protection and send it again.', { cause: error });
  }
  const detail = name === 'InvalidPDFException' ? 'its structure is invalid (corrupt or truncated)' : (error as Error)?.message ?? String(error);
  return new DocumentUnreadableError(`The PDF cannot be read: ${detail}.`, { cause: error });
}

/** Lines trimmed, runs of spaces collapsed, at most one empty line in a row. */
function tidyPageText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
