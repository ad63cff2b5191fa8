import { EmbeddingModelMismatchError, EmbeddingUnavailableError } from '../errors';
import type { KnowledgeStore, RetrievedDocument } from '../store/types';
import { EMBEDDING_DIMENSIONS, type Embedder } from './embeddings';

export interface RetrieverOptions {
  topK: number;
  minSimilarity: number;
}

/** Finds the knowledge chunks nearest to a question. */
export interface Retriever {
  retrieve(query: string, signal?: AbortSignal): Promise<RetrievedDocument[]>;
}

export function createRetriever(store: KnowledgeStore, embedder: Embedder, options: RetrieverOptions): Retriever {
  return {
    async retrieve(query, signal) {
      const embedding = await embedQuery(embedder, query, signal);
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
export async function embedQuery(embedder: Embedder, text: string, signal?: AbortSignal): Promise<number[]> {
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

export function assertDimensions(model: string, embedding: number[]): void {
  if (embedding.length !== EMBEDDING_DIMENSIONS) {
    throw new EmbeddingModelMismatchError(
      `The embedding model "${model}" returned ${embedding.length} dimensions; the knowledge base stores ${EMBEDDING_DIMENSIONS}.`,
    );
  }
}
