import fs from 'node:fs/promises';
import path from 'node:path';
import type { DocumentChunk, KnowledgeStore } from '../store/types';
import { chunkDocument, markdownTitle, sha256 } from './chunking';
import { EmbeddingUnavailableError } from '../errors';
import { assertDimensions, type Embedder } from './embeddings';
import { documentLanguage, searchTextOf, textAnalysis } from './language/analysis';
import { loadLanguageDetector } from './language/detect';
import { convertDocument, DOCUMENT_EXTENSIONS, DOCUMENT_TITLE_MAX_CHARS, DocumentSkipped, formatOf, type DocumentFormat, type DocumentPart, type SkipReason } from './sources/convert';
import { eventLoopTurns } from '../background/event-loop-turns';

/** One file found for ingestion and the stable name its chunks are stored under. */
export interface SourceFile {
  file: string;
  source: string;
}

export type IngestOutcome = 'unchanged' | 'added' | 'updated';

/** A file that was not stored, and why (its reason and a sentence for people). */
export interface SkippedDocument {
  source: string;
  reason: SkipReason;
  message: string;
}

export interface IngestProgress {
  index: number;
  total: number;
  source: string;
  outcome: IngestOutcome | 'skipped';
  chunks: number;
  embedded: number;
  /** Why, when the outcome is `skipped`. */
  skipped?: SkippedDocument;
}

export interface IngestSummary {
  files: number;
  unchanged: number;
  added: number;
  updated: number;
  /** Files not stored (no text layer, empty, unreadable), listed in skippedFiles. */
  skipped: number;
  skippedFiles: SkippedDocument[];
  chunks: number;
  embedded: number;
}

/**
 * Finds the documents under the given paths: markdown and text, HTML, PDF and Word
 * (`.md`, `.markdown`, `.txt`, `.html`, `.htm`, `.pdf`, `.docx`). A file's source name is
 * its path relative to the working directory (`knowledge/help-center/refunds.md`),
 * so a file reached through its folder or named directly is the same source.
 */
export async function findSourceFiles(paths: string[], cwd = process.cwd()): Promise<SourceFile[]> {
  const found = new Map<string, SourceFile>();
  const add = (file: string) => {
    const source = path.relative(cwd, file).split(path.sep).join('/');
    found.set(source, { file, source });
  };
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const stat = await fs.stat(absolute).catch(() => null);
    if (!stat) throw new Error(`No such file or folder: ${given}`);
    if (stat.isFile()) {
      if (!isIngestible(absolute)) throw new Error(`Not a document the knowledge base takes (${DOCUMENT_EXTENSIONS.join(', ')}): ${given}`);
      add(absolute);
      continue;
    }
    const entries = await fs.readdir(absolute, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (entry.isFile() && isIngestible(entry.name)) add(path.join(entry.parentPath, entry.name));
    }
  }
  return [...found.values()].sort((a, b) => a.source.localeCompare(b.source));
}

function isIngestible(file: string): boolean {
  return formatOfFile(file) !== undefined;
}

/** A document's format by its file name (see DOCUMENT_EXTENSIONS); undefined for anything else. */
export function formatOfFile(file: string): DocumentFormat | undefined {
  return formatOf(null, file) ?? undefined;
}

/**
 * A found file read and converted for ingestDocument: markdown and text as they are, HTML,
 * PDF (a part per page) and DOCX converted to Markdown. Throws DocumentSkipped (with its
 * reason) for a file that has nothing to store or cannot be read.
 */
export async function readSourceFile(file: SourceFile): Promise<DocumentToIngest> {
  const format = formatOfFile(file.file);
  if (!format) throw new DocumentSkipped('unsupported_type', `Not a document the knowledge base takes: ${file.source}`);
  if (format === 'markdown' || format === 'text') {
    // As before HTML and PDF came: read leniently, chunked whatever it holds.
    return { source: file.source, text: await fs.readFile(file.file, 'utf8'), format };
  }
  const converted = await convertDocument(new Uint8Array(await fs.readFile(file.file)), format);
  return { source: file.source, title: converted.title, format: converted.format, parts: converted.parts };
}

/** What ingesting reads and writes of a knowledge store. */
export type KnowledgeWriter = Pick<KnowledgeStore, 'listSourceChunks' | 'findEmbeddingsByHash' | 'replaceSourceChunks'>;

/**
 * One document and the source name its chunks are stored under: its whole `text`, or its
 * `parts` (a PDF's pages, as convertDocument gives them), which are chunked apart so a chunk
 * never spans two pages and remembers its `page`. `url` (where it came from) goes into every
 * chunk's metadata, so a citation can link to it.
 */
export type DocumentToIngest = {
  source: string;
  /** How the text is written (markdown is chunked on its headings first). */
  format: 'markdown' | 'text';
  /** Defaults to the markdown's first `# ` heading, else the source's last path segment without extension. */
  title?: string | null;
  /** The http(s) address the document came from (a page's canonical URL, a PDF's link). */
  url?: string;
} & ({ text: string; parts?: never } | { parts: DocumentPart[]; text?: never });

export interface DocumentIngestResult {
  outcome: IngestOutcome;
  title: string;
  chunks: number;
  embedded: number;
}

/** How a document is ingested beyond its text. */
export interface IngestOptions {
  /**
   * The shop's languages (its shop file's `languages`, the first the default): they guide
   * the detection of the document's language and are its fallback. Without them the
   * detector alone decides.
   */
  languages?: readonly string[];
}

/** A document's title and chunks as they would be stored, each with the hash of what is embedded and where it points. */
export interface DocumentPlan {
  title: string;
  /** The document's language (ISO 639-1), detected from its text (documentLanguage). */
  language: string;
  chunks: { chunkIndex: number; content: string; embeddingInput: string; contentHash: string; page?: number }[];
}

/** How ingestDocument chunks a document, without embedding or storing anything (a dry run compares it). */
export async function planDocument(doc: DocumentToIngest, options: IngestOptions = {}): Promise<DocumentPlan> {
  const { source, format, url } = doc;
  const parts: DocumentPart[] = doc.parts ?? [{ markdown: doc.text }];
  // A heading is a title as long as its line: bounded like a converted document's title, since
  // it is embedded and indexed with every chunk (a 260,000-character heading, 260 times over).
  const heading = format === 'markdown' && parts.length > 0 ? markdownTitle(parts[0]!.markdown)?.slice(0, DOCUMENT_TITLE_MAX_CHARS).toWellFormed() : undefined;
  const title = doc.title || heading || fallbackTitle(source);
  const chunks: DocumentPlan['chunks'] = [];
  // A long document is planned in turns, so the service answers others meanwhile.
  const turn = eventLoopTurns();
  for (const part of parts) {
    // Each part on its own: a chunk never spans two pages of a PDF.
    for (const c of await chunkDocument(part.markdown, format)) {
      // The title goes into the embedded text so a chunk deep in a document still carries its
      // topic; the hash covers what is embedded, so a new title re-embeds too, and where the
      // chunk points (url, page), so a moved page is stored again (text without either hashes
      // as it always did).
      const embeddingInput = chunkEmbeddingInput(title, c.content);
      chunks.push({
        chunkIndex: chunks.length,
        content: c.content,
        embeddingInput,
        contentHash: chunkContentHash(embeddingInput, url, part.page),
        ...(part.page !== undefined && { page: part.page }),
      });
      await turn();
    }
  }
  const detector = await loadLanguageDetector();
  const language = documentLanguage(detector, `${title}\n${parts.map((p) => p.markdown).join('\n')}`, options.languages);
  return { title, language, chunks };
}

/** What a chunk's vector is made from: its document's title, then its text. */
export function chunkEmbeddingInput(title: string, content: string): string {
  return `${title}\n\n${content}`;
}

/** A chunk's content hash: what is embedded and where it points (text without either hashes as it always did). */
export function chunkContentHash(embeddingInput: string, url: string | undefined, page: number | undefined): string {
  const location = url !== undefined || page !== undefined ? `\u0000${JSON.stringify({ url, page })}` : '';
  return sha256(embeddingInput + location);
}

/** A source's last path segment without its extension: `refunds` for `knowledge/refunds.md` or `https://help.example.com/refunds/`. */
function fallbackTitle(source: string): string {
  const segment = source.replace(/[?#].*$/s, '').replace(/\/+$/, '').split('/').pop() || source;
  return path.basename(segment, path.extname(segment)) || segment;
}

/** A whole source's hash, as the knowledge_sources() SQL function computes it: sha256 over its chunks' hashes in order, joined by commas. */
export function sourceContentHash(chunkHashes: string[]): string {
  return sha256(chunkHashes.join(','));
}

/**
 * Chunks, embeds and stores one document idempotently: when its chunks and embedding
 * model are unchanged nothing is written; otherwise its chunks are replaced in one
 * call of store.replaceSourceChunks. Chunks whose text is already stored for this
 * model reuse their vector, so an edit re-embeds only what changed. Throws
 * EmbeddingUnavailableError, with nothing written, when the embedder fails.
 */
export async function ingestDocument(
  doc: DocumentToIngest,
  store: KnowledgeWriter,
  embedder: Embedder,
  options: IngestOptions = {},
): Promise<DocumentIngestResult> {
  const { source, format, url } = doc;
  const { title, language, chunks } = await planDocument(doc, options);
  const analysis = textAnalysis(language);

  const stored = await store.listSourceChunks(source);
  // The same text in another language (the shop's languages changed) is indexed anew.
  const unchanged =
    stored.length === chunks.length &&
    stored.every(
      (s, k) => s.contentHash === chunks[k]!.contentHash && s.embeddingModel === embedder.model && (s.language ?? null) === language,
    );
  if (unchanged) return { outcome: 'unchanged', title, chunks: chunks.length, embedded: 0 };

  const known = await store.findEmbeddingsByHash(
    chunks.map((c) => c.contentHash),
    embedder.model,
  );
  const missing = chunks.filter((c) => !known.has(c.contentHash));
  let vectors: number[][] = [];
  if (missing.length > 0) {
    try {
      vectors = await embedder.embeddings.embedDocuments(missing.map((c) => c.embeddingInput));
    } catch (error) {
      throw new EmbeddingUnavailableError(
        `The embedding model (${embedder.model}) is unavailable, so "${source}" could not be embedded; nothing was changed. Please try again.`,
        { cause: error },
      );
    }
  }
  missing.forEach((c, k) => {
    assertDimensions(embedder.model, vectors[k]!);
    known.set(c.contentHash, vectors[k]!);
  });

  const rows: DocumentChunk[] = [];
  const turn = eventLoopTurns();
  for (const c of chunks) {
    rows.push({
      source,
      title,
      chunkIndex: c.chunkIndex,
      content: c.content,
      contentHash: c.contentHash,
      metadata: { format, ...(url !== undefined && { url }), ...(c.page !== undefined && { page: c.page }) },
      embedding: known.get(c.contentHash)!,
      embeddingModel: embedder.model,
      language,
      textConfig: analysis.config,
      // Cutting Thai or Chinese into words costs milliseconds a chunk: in turns too.
      searchText: searchTextOf(title, c.content),
    });
    await turn();
  }
  await store.replaceSourceChunks(source, rows);
  return { outcome: stored.length === 0 ? 'added' : 'updated', title, chunks: chunks.length, embedded: missing.length };
}

/**
 * Ingests files one by one with readSourceFile and ingestDocument, reporting each. A file
 * with nothing to store (a PDF without a text layer, an empty page) or that cannot be read
 * (an encrypted PDF) is skipped, with why, and the others go on.
 */
export async function ingestFiles(
  files: SourceFile[],
  store: KnowledgeWriter,
  embedder: Embedder,
  onProgress: (progress: IngestProgress) => void = () => {},
  options: IngestOptions = {},
): Promise<IngestSummary> {
  const summary: IngestSummary = { files: files.length, unchanged: 0, added: 0, updated: 0, skipped: 0, skippedFiles: [], chunks: 0, embedded: 0 };

  for (const [i, file] of files.entries()) {
    const { source } = file;
    let doc: DocumentToIngest;
    try {
      doc = await readSourceFile(file);
    } catch (error) {
      if (!(error instanceof DocumentSkipped)) throw error;
      const skipped = { source, reason: error.reason, message: error.message };
      summary.skipped += 1;
      summary.skippedFiles.push(skipped);
      onProgress({ index: i + 1, total: files.length, source, outcome: 'skipped', chunks: 0, embedded: 0, skipped });
      continue;
    }
    const { outcome, chunks, embedded } = await ingestDocument(doc, store, embedder, options);
    summary[outcome] += 1;
    summary.chunks += chunks;
    summary.embedded += embedded;
    onProgress({ index: i + 1, total: files.length, source, outcome, chunks, embedded });
  }
  return summary;
}
