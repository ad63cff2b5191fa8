import { EmbeddingUnavailableError } from '../errors';
import type { KnowledgeStore, RetrievedDocument } from '../store/types';
import { assertDimensions, type Embedder } from './embeddings';
import { boundedSearchText, type SearchQuery } from './search-query';
import type { LanguageGuess } from './language/detect';

export interface RetrieverOptions {
  topK: number;
  minSimilarity: number;
  /** Score fusion: each side's weight (defaults: FUSION_DEFAULTS, as the settings'). */
  fullTextWeight?: number;
  semanticWeight?: number;
  /**
   * Tells a question's language; needed only when the embedder knows some languages alone
   * (Embedder.languages). Without it every question is taken to be in the embedder's languages.
   */
  detectLanguage?: (text: string) => Promise<LanguageGuess>;
  /**
   * Hand over the best document's closest chunk by meaning beside its chunk by words (one
   * passage more): for the offline responder, which can only quote what it is given. A model
   * reads around a passage, and one more passage a turn is tokens on every turn.
   */
  closestPassage?: boolean;
}

/** RETRIEVAL_FULL_TEXT_WEIGHT and RETRIEVAL_SEMANTIC_WEIGHT by default. */
export const FUSION_DEFAULTS = { fullTextWeight: 1, semanticWeight: 1 } as const;

/**
 * Finds the knowledge chunks that answer a question: by its words and by its meaning
 * (hybrid_search). A plain string is searched for as it is; a SearchQuery may add
 * earlier turns' words and a topic for the vectors.
 */
export interface Retriever {
  retrieve(query: string | SearchQuery, signal?: AbortSignal): Promise<RetrievedDocument[]>;
}

export function createRetriever(store: KnowledgeStore, embedder: Embedder, options: RetrieverOptions): Retriever {
  return {
    async retrieve(query, signal) {
      const search: SearchQuery = typeof query === 'string' ? { text: query, method: 'message' } : query;
      const text = boundedSearchText(search.text);
      const embedding = await embedQuery(embedder, boundedSearchText(search.vectorText ?? search.text), signal);
      const semanticInLanguage = await embedderKnowsLanguage(embedder, text, options.detectLanguage);
      const documents = await store.hybridSearch({
        text,
        history: (search.history ?? []).map((h) => ({ text: boundedSearchText(h.text), weight: h.weight })),
        embedding,
        embeddingModel: embedder.model,
        count: options.topK,
        minSimilarity: options.minSimilarity,
        fullTextWeight: options.fullTextWeight ?? FUSION_DEFAULTS.fullTextWeight,
        // A vector that means nothing in the question's language must not rank either.
        semanticWeight: semanticInLanguage ? (options.semanticWeight ?? FUSION_DEFAULTS.semanticWeight) : 0,
        closestPassage: options.closestPassage ?? false,
      });
      // Meaning decides confidence wherever the embedder knows the language (retrievalConfidence):
      // the coverage query, a second round trip, is made only for a question where it does not.
      if (semanticInLanguage) return documents;
      // The question's own words (not earlier turns'): how much of what it asks each document holds.
      const coverage = await store.queryCoverage(text, [...new Set(documents.map((d) => d.source))]);
      return documents.map((d) =>
        d.evidence ? { ...d, evidence: { ...d.evidence, ...(coverage.has(d.source) && { queryCoverage: coverage.get(d.source)! }), semanticInLanguage } } : d,
      );
    },
  };
}

/**
 * Whether the embedder's similarity means something for this question: always for an
 * embedder of every language; else unless the question is reliably in a language it
 * does not know (a short or unclear text keeps it: "ok" says nothing of a language).
 */
async function embedderKnowsLanguage(embedder: Embedder, text: string, detect?: (text: string) => Promise<LanguageGuess>): Promise<boolean> {
  if (!embedder.languages || !detect) return true;
  const guess = await detect(text);
  return !(guess.reliable && guess.language !== null && !embedder.languages.includes(guess.language));
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
