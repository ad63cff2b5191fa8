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
 * Splits a document on its structure (markdown headings first), with overlap. Runs of spaces
 * and tabs are one space first, for every document: a web page shows one space where its
 * file had two, so a crawled article and the same article ingested as a file chunk alike.
 */
export async function chunkDocument(text: string, format: 'markdown' | 'text'): Promise<TextChunk[]> {
  const splitter = format === 'markdown' ? markdownSplitter : textSplitter;
  const pieces = (await splitter.splitText(collapseSpaces(text))).map((p) => p.trim()).filter((p) => p.length > 0);
  return pieces.map((content, chunkIndex) => ({ chunkIndex, content }));
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
