import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { Retriever } from '../../knowledge/retriever';
import { EmbeddingUnavailableError } from '../../errors';
import type { Logger } from '../../observability/logger';
import type { RetrievedDocument } from '../../store/types';
import { DEGRADED_KNOWLEDGE, type SupportStateType, type SupportStateUpdate } from '../state';

/**
 * How much of its similarity a passage that shares no word with the search query
 * lends to confidence. Meaning alone is weak evidence: measured offline, an
 * off-topic question ("How do I fix the brakes on my car?") had a passage at 0.42
 * by vectors alone, above most covered questions, while every off-topic question's
 * best passage that also shared a word stayed at or below 0.22 (npm run eval:answers).
 */
export const VECTOR_ONLY_CONFIDENCE_FACTOR = 0.5;

/**
 * The confidence retrieval gives: the best passage's cosine similarity (of the
 * retrieved documents' passages, whichever of them was returned), clamped to
 * 0–1 (0 when none matched), a passage found by its vector alone (no word in common
 * with the query) counting at VECTOR_ONLY_CONFIDENCE_FACTOR of it. A passage found
 * by words alone counts with its own similarity, so words never raise confidence
 * by themselves and the escalation threshold stays on the embedder's scale.
 * Passages from match_documents (no full-text side) count whole.
 */
export function retrievalConfidence(documents: RetrievedDocument[]): number {
  // A document's best chunk by meaning, even when another of its chunks was returned for its words.
  const similarity = (d: RetrievedDocument) => Math.max(d.similarity, d.evidence?.documentSimilarity ?? -1);
  const evidence = documents.map((d) => (d.fullTextRank === null ? similarity(d) * VECTOR_ONLY_CONFIDENCE_FACTOR : similarity(d)));
  return Math.min(1, Math.max(0, ...evidence));
}

/**
 * retrieve: the knowledge passages for the turn's search query (hybrid: words and
 * meaning), and the confidence they give (retrievalConfidence).
 * When the embedding model is down it answers with no passages instead of failing.
 */
export function makeRetrieveNode(retriever: Retriever, logger: Logger) {
  return async function retrieve(state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> {
    let documents;
    try {
      documents = await retriever.retrieve(state.search_query ?? state.query, config.signal);
    } catch (error) {
      if (!(error instanceof EmbeddingUnavailableError) || config.signal?.aborted) throw error;
      // Better an answer without the help center, marked low-confidence (so escalated),
      // than no answer: the conversation and the tools still work.
      logger.warn({ err: error, session_id: state.session_id }, 'The embedding model is down: answering without the knowledge base');
      return { retrieved_documents: [], confidence: 0, degraded: [DEGRADED_KNOWLEDGE] };
    }
    return { retrieved_documents: documents, confidence: retrievalConfidence(documents) };
  };
}
