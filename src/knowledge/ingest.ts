import fs from 'node:fs/promises';
import path from 'node:path';
import type { DocumentChunk, KnowledgeStore } from '../store/types';
import { chunkDocument, markdownTitle, sha256 } from './chunking';
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
  return INGESTIBLE.has(path.extname(file).toLowerCase());
}

/**
 * Chunks, embeds and stores files idempotently: a file whose chunks and embedding
 * model are unchanged is left alone; a changed file's chunks are replaced in one
 * transaction. Chunks whose text is already stored for this model reuse their
 * vector, so an edit re-embeds only what changed.
 */
export async function ingestFiles(
  files: SourceFile[],
  store: KnowledgeStore,
  embedder: Embedder,
  onProgress: (progress: IngestProgress) => void = () => {},
): Promise<IngestSummary> {
  const summary: IngestSummary = { files: files.length, unchanged: 0, added: 0, updated: 0, chunks: 0, embedded: 0 };

  for (const [i, { file, source }] of files.entries()) {
    const text = await fs.readFile(file, 'utf8');
    const format = INGESTIBLE.get(path.extname(file).toLowerCase())!;
    const title = (format === 'markdown' && markdownTitle(text)) || path.basename(file, path.extname(file));
    // The title goes into the embedded text so a chunk deep in a document still carries
    // its topic; the hash covers exactly what is embedded, so a new title re-embeds too.
    const chunks = (await chunkDocument(text, format)).map((c) => {
      const embeddingInput = `${title}\n\n${c.content}`;
      return { ...c, embeddingInput, contentHash: sha256(embeddingInput) };
    });

    const stored = await store.listSourceChunks(source);
    const unchanged =
      stored.length === chunks.length &&
      stored.every((s, k) => s.contentHash === chunks[k]!.contentHash && s.embeddingModel === embedder.model);

    let embedded = 0;
    let outcome: IngestOutcome = 'unchanged';
    if (!unchanged) {
      const known = await store.findEmbeddingsByHash(
        chunks.map((c) => c.contentHash),
        embedder.model,
      );
      const missing = chunks.filter((c) => !known.has(c.contentHash));
      const vectors = await embedder.embeddings.embedDocuments(missing.map((c) => c.embeddingInput));
      missing.forEach((c, k) => {
        assertDimensions(embedder.model, vectors[k]!);
        known.set(c.contentHash, vectors[k]!);
      });
      embedded = missing.length;

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
      outcome = stored.length === 0 ? 'added' : 'updated';
    }

    summary[outcome] += 1;
    summary.chunks += chunks.length;
    summary.embedded += embedded;
    onProgress({ index: i + 1, total: files.length, source, outcome, chunks: chunks.length, embedded });
  }
  return summary;
}
