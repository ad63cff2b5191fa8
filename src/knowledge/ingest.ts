import fs from 'node:fs/promises';
import path from 'node:path';
import type { DocumentChunk, KnowledgeStore } from '../store/types';
import { chunkDocument, markdownTitle, sha256 } from './chunking';
import { EmbeddingUnavailableError } from '../errors';
import { assertDimensions, type Embedder } from './embeddings';

const INGESTIBLE = new Map<string, 'markdown' | 'text'>([
  ['.md', 'markdown'],
  ['.markdown', 'markdown'],
  ['.txt', 'text'],
]);

/** One file found for ingestion and the stable name its chunks are stored under. */
export interface SourceFile {
  file: string;
  source: string;
}

export type IngestOutcome = 'unchanged' | 'added' | 'updated';

export interface IngestProgress {
  index: number;
  total: number;
  source: string;
  outcome: IngestOutcome;
  chunks: number;
  embedded: number;
}

export interface IngestSummary {
  files: number;
  unchanged: number;
  added: number;
  updated: number;
  chunks: number;
  embedded: number;
}

/**
 * Finds the markdown and text files under the given paths. A file's source name is
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
      if (!isIngestible(absolute)) throw new Error(`Not a markdown or text file: ${given}`);
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

/** Markdown or plain text, by file name (`.md`, `.markdown`, `.txt`); undefined for anything else. */
export function formatOfFile(file: string): 'markdown' | 'text' | undefined {
  return INGESTIBLE.get(path.extname(file).toLowerCase());
}

/** What ingesting reads and writes of a knowledge store. */
export type KnowledgeWriter = Pick<KnowledgeStore, 'listSourceChunks' | 'findEmbeddingsByHash' | 'replaceSourceChunks'>;

/** One document's text and the source name its chunks are stored under. */
export interface DocumentToIngest {
  source: string;
  text: string;
  format: 'markdown' | 'text';
  /** Defaults to the markdown's first `# ` heading, else the source's file name without extension. */
  title?: string;
}

export interface DocumentIngestResult {
  outcome: IngestOutcome;
  title: string;
  chunks: number;
  embedded: number;
}

/** A document's title and chunks as they would be stored, each with the hash of what is embedded. */
export interface DocumentPlan {
  title: string;
  chunks: { chunkIndex: number; content: string; embeddingInput: string; contentHash: string }[];
}

/** How ingestDocument chunks a document, without embedding or storing anything (a dry run compares it). */
export async function planDocument(doc: DocumentToIngest): Promise<DocumentPlan> {
  const { source, text, format } = doc;
  const title = doc.title ?? ((format === 'markdown' && markdownTitle(text)) || path.basename(source, path.extname(source)));
  // The title goes into the embedded text so a chunk deep in a document still carries
  // its topic; the hash covers exactly what is embedded, so a new title re-embeds too.
  const chunks = (await chunkDocument(text, format)).map((c) => {
    const embeddingInput = `${title}\n\n${c.content}`;
    return { ...c, embeddingInput, contentHash: sha256(embeddingInput) };
  });
  return { title, chunks };
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
export async function ingestDocument(doc: DocumentToIngest, store: KnowledgeWriter, embedder: Embedder): Promise<DocumentIngestResult> {
  const { source, format } = doc;
  const { title, chunks } = await planDocument(doc);

  const stored = await store.listSourceChunks(source);
  const unchanged =
    stored.length === chunks.length &&
    stored.every((s, k) => s.contentHash === chunks[k]!.contentHash && s.embeddingModel === embedder.model);
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

  const rows: DocumentChunk[] = chunks.map((c) => ({
    source,
    title,
    chunkIndex: c.chunkIndex,
    content: c.content,
    contentHash: c.contentHash,
    metadata: { format },
    embedding: known.get(c.contentHash)!,
    embeddingModel: embedder.model,
  }));
  await store.replaceSourceChunks(source, rows);
  return { outcome: stored.length === 0 ? 'added' : 'updated', title, chunks: chunks.length, embedded: missing.length };
}

/** Ingests files one by one with ingestDocument, reporting each. */
export async function ingestFiles(
  files: SourceFile[],
  store: KnowledgeWriter,
  embedder: Embedder,
  onProgress: (progress: IngestProgress) => void = () => {},
): Promise<IngestSummary> {
  const summary: IngestSummary = { files: files.length, unchanged: 0, added: 0, updated: 0, chunks: 0, embedded: 0 };

  for (const [i, { file, source }] of files.entries()) {
    const text = await fs.readFile(file, 'utf8');
    const { outcome, chunks, embedded } = await ingestDocument({ source, text, format: formatOfFile(file)! }, store, embedder);
    summary[outcome] += 1;
    summary.chunks += chunks;
    summary.embedded += embedded;
    onProgress({ index: i + 1, total: files.length, source, outcome, chunks, embedded });
  }
  return summary;
}
