import { EmbeddingUnavailableError } from '../errors';
import type { KnowledgeStore, RetrievedDocument } from '../store/types';
import { assertDimensions, type Embedder } from './embeddings';

export interface RetrieverOptions {
  topK: number;
  minSimilarity: number;
}

/** Finds the knowledge chunks nearest to a question. */
export interface Retriever {
  retrieve(query: string, signal?: AbortSignal): Promise<RetrievedDocument[]>;
  /**
   * Starts embedding `query` now, so that the next retrieve() of the same text
   * finds the embedding under way (or done) instead of starting it: a caller can
   * overlap the embedding model's round trip with its own database reads. An
   * embedding nobody retrieves is dropped after a minute.
   */
  prefetch?(query: string): void;
}

/** How long a prefetched embedding waits for its retrieve() (the request failed before it, say). */
const PREFETCH_TTL_MS = 60_000;

export function createRetriever(store: KnowledgeStore, embedder: Embedder, options: RetrieverOptions): Retriever {
  const prefetched = new Map<string, Promise<number[]>>();
  return {
    prefetch(query) {
      if (prefetched.has(query)) return;
      const embedding = embedQuery(embedder, query);
      embedding.catch(() => {}); // reported by the retrieve() that takes it
      prefetched.set(query, embedding);
      setTimeout(() => {
        if (prefetched.get(query) === embedding) prefetched.delete(query);
      }, PREFETCH_TTL_MS).unref();
    },
    async retrieve(query, signal) {
      const started = prefetched.get(query);
      prefetched.delete(query);
      const embedding = await (started ?? embedQuery(embedder, query, signal));
      return store.matchDocuments({
        embedding,
        embeddingModel: embedder.model,
        count: options.topK,
        minSimilarity: options.minSimilarity,
      });
    },
  };
}

/** Embeds a text, turning client failures and wrong widths into clear errors. */
async function embedQuery(embedder: Embedder, text: string, signal?: AbortSignal): Promise<number[]> {
  let embedding: number[];
  try {
    embedding = await embedder.embeddings.embedQuery(text);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new EmbeddingUnavailableError(
      `The embedding model (${embedder.model}) is unavailable, so the knowledge base cannot be searched. Please try again.`,
      { cause: error },
    );
  }
  assertDimensions(embedder.model, embedding);
  return embedding;
}
