import { createHash } from 'node:crypto';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';

/** Chunk size in characters: about 250 tokens, one help-center section. */
export const CHUNK_SIZE = 1000;
export const CHUNK_OVERLAP = 150;

export interface TextChunk {
  chunkIndex: number;
  content: string;
}

const markdownSplitter = RecursiveCharacterTextSplitter.fromLanguage('markdown', {
  chunkSize: CHUNK_SIZE,
  chunkOverlap: CHUNK_OVERLAP,
});
const textSplitter = new RecursiveCharacterTextSplitter({ chunkSize: CHUNK_SIZE, chunkOverlap: CHUNK_OVERLAP });

/**
 * The longest run without a space or line break that reaches the splitter whole: two chunks.
 * Longer than any word, URL or paragraph of Chinese or Japanese (written without spaces) in a
 * help article, so ordinary text is never cut. A longer run is hostile (one 260,000-character
 * word) and is cut into pieces of RUN_PIECE_CHARS first, so the splitter, the encoder and the
 * text search each see bounded pieces, and the splitter need not split it by characters.
 */
export const MAX_RUN_CHARS = 2 * CHUNK_SIZE;

/** A piece of a cut run: one chunk each (the splitter keeps a piece whole only when it is shorter than a chunk). */
export const RUN_PIECE_CHARS = CHUNK_SIZE - 1;

/**
 * Splits a document on its structure (markdown headings first), with overlap. Runs of spaces
 * and tabs are one space first, for every document: a web page shows one space where its
 * file had two, so a crawled article and the same article ingested as a file chunk alike.
 * Runs longer than MAX_RUN_CHARS are cut (cutLongRuns).
 */
export async function chunkDocument(text: string, format: 'markdown' | 'text'): Promise<TextChunk[]> {
  const splitter = format === 'markdown' ? markdownSplitter : textSplitter;
  const pieces = (await splitter.splitText(cutLongRuns(collapseSpaces(text)))).map((p) => p.trim()).filter((p) => p.length > 0);
  return pieces.map((content, chunkIndex) => ({ chunkIndex, content }));
}

/**
 * Each run without whitespace longer than `longest` characters cut into pieces of `piece`
 * characters, a space between them (never between the two halves of a surrogate pair); text
 * without such a run is returned as it is. One pass.
 */
export function cutLongRuns(text: string, longest = MAX_RUN_CHARS, piece = RUN_PIECE_CHARS): string {
  const out: string[] = [];
  let copied = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isSpaceAt(text, i)) continue;
    if (i - runStart > longest) {
      out.push(text.slice(copied, runStart));
      for (let at = runStart; at < i; ) {
        let end = Math.min(i, at + piece);
        // A low surrogate stays with its high half.
        if (end < i && isLowSurrogate(text.charCodeAt(end))) end += 1;
        out.push(text.slice(at, end), end < i ? ' ' : '');
        at = end;
      }
      copied = i;
    }
    runStart = i + 1;
  }
  if (copied === 0) return text;
  out.push(text.slice(copied));
  return out.join('');
}

function isSpaceAt(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code > 0x7f && /\s/.test(text[i]!));
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Every run of horizontal whitespace as one space, none at a line's end; line breaks kept. */
export function collapseSpaces(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[^\S\n]+/g, ' ').replace(/ \n/g, '\n');
}

/**
 * The first markdown `# ` heading, if the document has one, without its closing
 * hashes. Line by line and trimmed by hand: the one-regex form (/^#\s+(.+?)\s*#*\s*$/m)
 * backtracks cubically on a heading line of spaces, minutes for 4,000 of them.
 */
export function markdownTitle(text: string): string | undefined {
  for (const line of text.split('\n')) {
    if (!/^#\s/.test(line)) continue;
    let end = line.length;
    while (end > 1 && (line[end - 1] === '#' || /\s/.test(line[end - 1]!))) end--;
    const title = line.slice(1, end).trim();
    if (title !== '') return title;
  }
  return undefined;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
