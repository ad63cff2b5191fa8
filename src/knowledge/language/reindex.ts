/**
 * The one-time analysis of chunks stored before documents had a language (migration
 * 20261126000800_document_languages), run at start like a migration: each such source's
 * language is detected from its chunks, its chunks are indexed with that language's analysis,
 * and their runs of spaces collapsed as chunking now does (re-embedding only the chunks whose
 * text changed). The documents' own files are not kept, so the chunks are analysed where they
 * are, not split again: the next ingest or sync of a source chunks it anew as usual.
 *
 * Resumable: a source is done once its chunks carry a language (one transaction each), so an
 * interrupted start picks up where it stopped, and two instances starting together skip what
 * the other wrote (analyse_knowledge_source checks the chunks it read are still the ones stored).
 */
import type { KnowledgeAdminStore } from '../../store/knowledge-admin-store';
import type { DocumentChunk, KnowledgeStore } from '../../store/types';
import { collapseSpaces } from '../chunking';
import { assertDimensions, type Embedder } from '../embeddings';
import { chunkContentHash, chunkEmbeddingInput, type IngestOptions } from '../ingest';
import { documentLanguage, searchTextOf, textAnalysis } from './analysis';
import { loadLanguageDetector } from './detect';

/** What the analysis reads and writes. */
export interface StoredKnowledgeParts {
  store: Pick<KnowledgeStore, 'findEmbeddingsByHash'>;
  admin: Pick<KnowledgeAdminStore, 'unanalysedSources' | 'sourceChunks' | 'analyseSource'>;
  embedder: Embedder;
}

export interface StoredKnowledgeAnalysis {
  /** Sources analysed and written. */
  sources: number;
  chunks: number;
  /** Chunks whose text changed (collapsed spaces) and were embedded again. */
  embedded: number;
  /** Sources another writer rewrote meanwhile (theirs stands). */
  skipped: number;
  /** How many sources each detected language has. */
  languages: Record<string, number>;
}

const SOURCES_PER_READ = 50;

/** Analyses every source whose chunks have no language yet; a no-op (one indexed read) when there is none. */
export async function analyseStoredKnowledge(
  parts: StoredKnowledgeParts,
  options: IngestOptions = {},
  onSource: (source: string, language: string) => void = () => {},
): Promise<StoredKnowledgeAnalysis> {
  const result: StoredKnowledgeAnalysis = { sources: 0, chunks: 0, embedded: 0, skipped: 0, languages: {} };
  let after: string | null = null;
  for (;;) {
    const sources = await parts.admin.unanalysedSources(after, SOURCES_PER_READ);
    if (sources.length === 0) return result;
    for (const source of sources) {
      const analysed = await analyseSource(parts, source, options);
      if (analysed === null) {
        result.skipped += 1;
        continue;
      }
      result.sources += 1;
      result.chunks += analysed.chunks;
      result.embedded += analysed.embedded;
      result.languages[analysed.language] = (result.languages[analysed.language] ?? 0) + 1;
      onSource(source, analysed.language);
    }
    // Keyset order: a source left unanalysed (a writer without languages) is not read twice.
    after = sources.at(-1)!;
  }
}

async function analyseSource(
  parts: StoredKnowledgeParts,
  source: string,
  options: IngestOptions,
): Promise<{ language: string; chunks: number; embedded: number } | null> {
  const stored = await parts.admin.sourceChunks(source);
  if (stored.length === 0) return null;
  const detector = await loadLanguageDetector();
  const language = documentLanguage(detector, `${stored[0]!.title}\n${stored.map((c) => c.content).join('\n')}`, options.languages);
  const analysis = textAnalysis(language);

  const planned = stored.map((c) => {
    // A chunk of another embedding model keeps its text: it cannot be embedded again here.
    const content = c.embeddingModel === parts.embedder.model ? collapseSpaces(c.content).trim() || c.content : c.content;
    const url = typeof c.metadata.url === 'string' ? c.metadata.url : undefined;
    const page = typeof c.metadata.page === 'number' ? c.metadata.page : undefined;
    const embeddingInput = chunkEmbeddingInput(c.title, content);
    const contentHash = content === c.content ? c.contentHash : chunkContentHash(embeddingInput, url, page);
    return { stored: c, content, embeddingInput, contentHash };
  });

  const vectors = new Map<string, number[]>();
  for (const model of new Set(stored.map((c) => c.embeddingModel))) {
    const hashes = planned.filter((p) => p.stored.embeddingModel === model).map((p) => p.contentHash);
    for (const [hash, vector] of await parts.store.findEmbeddingsByHash(hashes, model)) vectors.set(`${model}\u0000${hash}`, vector);
  }
  const missing = planned.filter((p) => !vectors.has(`${p.stored.embeddingModel}\u0000${p.contentHash}`));
  if (missing.some((p) => p.stored.embeddingModel !== parts.embedder.model)) return null;
  if (missing.length > 0) {
    const embedded = await parts.embedder.embeddings.embedDocuments(missing.map((p) => p.embeddingInput));
    missing.forEach((p, k) => {
      assertDimensions(parts.embedder.model, embedded[k]!);
      vectors.set(`${p.stored.embeddingModel}\u0000${p.contentHash}`, embedded[k]!);
    });
  }

  const rows: DocumentChunk[] = planned.map((p) => ({
    source,
    title: p.stored.title,
    chunkIndex: p.stored.chunkIndex,
    content: p.content,
    contentHash: p.contentHash,
    metadata: p.stored.metadata,
    embedding: vectors.get(`${p.stored.embeddingModel}\u0000${p.contentHash}`)!,
    embeddingModel: p.stored.embeddingModel,
    language,
    textConfig: analysis.config,
    searchText: searchTextOf(p.stored.title, p.content),
  }));
  const written = await parts.admin.analyseSource(
    source,
    stored.map((c) => c.contentHash),
    rows,
  );
  return written ? { language, chunks: rows.length, embedded: missing.length } : null;
}
