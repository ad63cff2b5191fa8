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
 * The least share of a question (its words weighed by idf) one document must hold for the
 * question to count as covered, in every language. Measured on XQuAD (each question beside
 * its translations, eval:answers): at 0.25 fewer than half of English questions about a
 * missing article were escalated; at 0.3, 2% of answerable English questions and about three
 * in four uncovered ones fell below it. One figure for every language: the idf calibrates it.
 */
export const WORD_COVERAGE_FLOOR = 0.3;

/**
 * The confidence retrieval gives (0–1; 0 when nothing matched): the weaker of two kinds of
 * evidence, each taken at the best document for it, so a question is answered only when
 * both say the help center covers it:
 *
 * - meaning: the best passage's cosine similarity (a document's best chunk, whichever of its
 *   chunks was returned), a passage found by its vector alone (no word in common with the
 *   query) counting at VECTOR_ONLY_CONFIDENCE_FACTOR of it. It has no say when the embedder
 *   does not know the question's language (evidence.semanticInLanguage false);
 * - words: the best document's coverage of the question (evidence.queryCoverage: the share of
 *   the question's words it holds, each weighed by its idf in the knowledge base). A question
 *   about something the help center never mentions asks for words no document has, in any
 *   language; the idf weighs a language's common words down without a list of them.
 *   Measured on XQuAD (npm run eval:answers): the sentence encoder's similarity alone let 7
 *   in 8 English questions about missing articles through, and every German one.
 *
 * Either evidence is used alone when the other is absent (match_documents has no full-text
 * side; a question of stop words only has no coverage). Coverage is put on the threshold's
 * scale (`escalationThreshold`, the embedder's): below WORD_COVERAGE_FLOOR it falls below the
 * threshold. Without a threshold, coverage counts as it is.
 */
export function retrievalConfidence(documents: RetrievedDocument[], escalationThreshold?: number): number {
  if (documents.length === 0) return 0;
  // A document's best chunk by meaning, even when another of its chunks was returned for its words.
  const similarity = (d: RetrievedDocument) => Math.max(d.similarity, d.evidence?.documentSimilarity ?? -1);
  const meaningful = documents.filter((d) => d.evidence?.semanticInLanguage !== false);
  const meaning = meaningful.length === 0 ? null : Math.max(...meaningful.map((d) => (d.fullTextRank === null ? similarity(d) * VECTOR_ONLY_CONFIDENCE_FACTOR : similarity(d))));
  const coverages = documents.flatMap((d) => (d.evidence?.queryCoverage === undefined ? [] : [d.evidence.queryCoverage]));
  const scale = escalationThreshold === undefined ? 1 : escalationThreshold / WORD_COVERAGE_FLOOR;
  const words = coverages.length === 0 ? null : Math.max(...coverages) * scale;
  const evidence = [meaning, words].filter((e): e is number => e !== null);
  return evidence.length === 0 ? 0 : Math.min(1, Math.max(0, Math.min(...evidence)));
}

/**
 * retrieve: the knowledge passages for the turn's search query (hybrid: words and
 * meaning), and the confidence they give (retrievalConfidence).
 * When the embedding model is down it answers with no passages instead of failing.
 */
export function makeRetrieveNode(retriever: Retriever, logger: Logger, escalationThreshold?: number) {
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
    return { retrieved_documents: documents, confidence: retrievalConfidence(documents, escalationThreshold) };
  };
}
