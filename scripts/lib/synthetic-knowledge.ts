/**
 * Synthetic knowledge bases for the benchmarks (bench:retrieval, bench:load): articles of
 * ten chunks of 150 made-up words drawn by Zipf's law from a vocabulary of 20,000, embedded
 * with the embedder given and written through the service's own store (replace_source_chunks,
 * one article a call, the full-text statistics maintained as in production), the HNSW index
 * dropped during the load and built again after it, as for any bulk import.
 */
import type { Embedder } from '../../src/knowledge/embeddings';
import type { SqlDatabase } from '../../src/store/database';
import type { DocumentChunk, KnowledgeStore } from '../../src/store/types';

export const CHUNKS_PER_ARTICLE = 10;
export const WORDS_PER_CHUNK = 150;
export const VOCABULARY = 20_000;

/** Pronounceable made-up words (never English stop words), drawn by Zipf's law (s = 1). */
export function zipfVocabulary(random: () => number): () => string {
  const syllables = 'ka lo mi ne su ta ri po ve du ga hi jo ze bu fa'.split(' ');
  const words = Array.from({ length: VOCABULARY }, (_, i) => {
    let n = i + 1;
    let word = '';
    while (n > 0) {
      word += syllables[n % syllables.length];
      n = Math.floor(n / syllables.length);
    }
    return `${word}x`;
  });
  const cumulative: number[] = [];
  let total = 0;
  for (let r = 1; r <= VOCABULARY; r++) cumulative.push((total += 1 / r));
  return () => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return words[low]!;
  };
}

export interface SyntheticKnowledge {
  /** n words of the vocabulary, separated by spaces. */
  text(n: number): string;
  /** Writes article a (`synthetic/article-<a>.md`) anew: a new title and ten new chunks. */
  article(a: number): Promise<void>;
}

/** Articles and texts drawn from `random`, embedded by `embedder`, written to `store`. */
export function syntheticKnowledge(store: Pick<KnowledgeStore, 'replaceSourceChunks'>, embedder: Embedder, random: () => number): SyntheticKnowledge {
  const word = zipfVocabulary(random);
  const text = (n: number) => Array.from({ length: n }, word).join(' ');
  const article = async (a: number) => {
    const source = `synthetic/article-${a}.md`;
    const title = text(4);
    const contents = Array.from({ length: CHUNKS_PER_ARTICLE }, () => text(WORDS_PER_CHUNK));
    const vectors = await embedder.embeddings.embedDocuments(contents.map((c) => `${title}\n\n${c}`));
    const rows: DocumentChunk[] = contents.map((content, i) => ({
      source,
      title,
      chunkIndex: i,
      content,
      contentHash: `${source}#${i}#${content.length}`,
      metadata: {},
      embedding: vectors[i]!,
      embeddingModel: embedder.model,
    }));
    await store.replaceSourceChunks(source, rows);
  };
  return { text, article };
}

/**
 * maintenance_work_mem for the index build on a PostgreSQL server, as an operator would set
 * it for a bulk import: pgvector builds the graph in memory when it fits (100,000 vectors of
 * 1,536 dimensions need about 800 MB), on disk many times slower when it does not (measured
 * here at 100,000 chunks: 842 s at the default 64 MB, about 60 s with this). PGlite keeps its own.
 */
export const INDEX_BUILD_MEMORY = '1GB';

export interface SyntheticLoad {
  articles: number;
  ingestPerSecond: number;
  indexSeconds: number;
  /** The maintenance_work_mem the index was built with, when it was set. */
  indexBuildMemory?: string;
}

/**
 * Loads ceil(chunks / 10) articles (0 … articles - 1) on a migrated database with the HNSW
 * index dropped, builds it again as the migrations defined it (on a server with
 * INDEX_BUILD_MEMORY, set locally in the build's transaction), then analyzes.
 */
export async function loadSyntheticKnowledge(
  db: SqlDatabase,
  knowledge: SyntheticKnowledge,
  chunks: number,
  options: { progress(message: string): void; server: boolean },
): Promise<SyntheticLoad> {
  const { progress, server } = options;
  const articles = Math.ceil(chunks / CHUNKS_PER_ARTICLE);
  // The definition of the index as the migrations made it, to build it again after the load.
  const [index] = await db.query<{ definition: string }>(`select pg_get_indexdef('documents_embedding_hnsw_idx'::regclass) as definition`);
  await db.query('drop index documents_embedding_hnsw_idx');
  const startedAt = performance.now();
  for (let a = 0; a < articles; a++) {
    await knowledge.article(a);
    if ((a + 1) % Math.max(1, Math.floor(articles / 10)) === 0) {
      const done = (a + 1) * CHUNKS_PER_ARTICLE;
      progress(`loaded ${done} chunks (${(done / ((performance.now() - startedAt) / 1000)).toFixed(0)} chunks/s)`);
    }
  }
  const ingestPerSecond = (articles * CHUNKS_PER_ARTICLE) / ((performance.now() - startedAt) / 1000);
  progress('building the HNSW index');
  const indexStartedAt = performance.now();
  if (server) {
    await db.transaction(async (tx) => {
      await tx.query(`set local maintenance_work_mem = '${INDEX_BUILD_MEMORY}'`);
      await tx.query(index!.definition);
    });
  } else {
    await db.query(index!.definition);
  }
  const indexSeconds = (performance.now() - indexStartedAt) / 1000;
  await db.query('analyze');
  return { articles, ingestPerSecond, indexSeconds, ...(server && { indexBuildMemory: INDEX_BUILD_MEMORY }) };
}
