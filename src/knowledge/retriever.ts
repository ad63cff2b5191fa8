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
