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
 * question to count as covered, in any language. Measured on XQuAD (eval:answers): at 0.25
 * fewer than half of the English questions about a missing article fell below it; at 0.3,
 * 2% of the answerable English ones and about three in four uncovered ones. One figure for
 * every language: the knowledge base's idf calibrates it.
 */
export const WORD_COVERAGE_FLOOR = 0.3;

/**
 * The confidence retrieval gives (0–1; 0 when nothing matched).
 *
 * - Meaning, when the embedder knows the question's language: the best passage's cosine
 *   similarity (a document's best chunk, whichever of its chunks was returned), a passage
 *   found by its vector alone (no word in common with the query) counting at
 *   VECTOR_ONLY_CONFIDENCE_FACTOR of it.
 * - Words, when it does not (evidence.semanticInLanguage false: the offline sentence encoder
 *   and a question reliably in another language than English): the best document's coverage
 *   of the question (evidence.queryCoverage, the share of its words the document holds, each
 *   weighed by its idf in the knowledge base), put on the threshold's scale so that below
 *   WORD_COVERAGE_FLOOR is below `escalationThreshold` (without a threshold, as it is). The
 *   encoder's similarity says nothing there (any German paragraph is about 0.75 from any
 *   German question): measured on XQuAD, it let every German and Spanish question about a
 *   missing article through.
 *
 * Coverage does not veto meaning in English: measured on this repository's dialogues, the
 * weaker of the two escalated ten covered follow-ups and paraphrases ("money back" holds no
 * word of the refunds article), which the encoder placed right (BENCHMARKS.md).
 *
 * `meaningScale` puts a similarity on the threshold's scale where the threshold was measured
 * for this knowledge base and embedder (EscalationCalibration.meaningScale; 1 otherwise).
 */
export function retrievalConfidence(documents: RetrievedDocument[], escalationThreshold?: number, meaningScale = 1): number {
  if (documents.length === 0) return 0;
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  // A document's best chunk by meaning, even when another of its chunks was returned for its words.
  const similarity = (d: RetrievedDocument) => Math.max(d.similarity, d.evidence?.documentSimilarity ?? -1);
  if (!confidenceReadsWords(documents)) {
    const meaningful = documents.filter((d) => d.evidence?.semanticInLanguage !== false);
    return clamp(meaningScale * Math.max(...meaningful.map((d) => (d.fullTextRank === null ? similarity(d) * VECTOR_ONLY_CONFIDENCE_FACTOR : similarity(d)))));
  }
  const coverages = documents.flatMap((d) => (d.evidence?.queryCoverage === undefined ? [] : [d.evidence.queryCoverage]));
  if (coverages.length === 0) return 0;
  const scale = escalationThreshold === undefined ? 1 : escalationThreshold / WORD_COVERAGE_FLOOR;
  return clamp(Math.max(...coverages) * scale);
}

/**
 * Whether retrievalConfidence reads the question's words (coverage) rather than meaning: the
 * embedder knows the language of none of the passages found (a question in a language the
 * offline sentence encoder does not know). Nothing found reads as meaning (confidence 0).
 */
export function confidenceReadsWords(documents: readonly RetrievedDocument[]): boolean {
  return documents.length > 0 && documents.every((d) => d.evidence?.semanticInLanguage === false);
}

/**
 * retrieve: the knowledge passages for the turn's search query (hybrid: words and
 * meaning), and the confidence they give (retrievalConfidence).
 * When the embedding model is down it answers with no passages instead of failing.
 */
export function makeRetrieveNode(retriever: Retriever, logger: Logger, escalationThreshold?: number, meaningScale: () => number = () => 1) {
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
    return { retrieved_documents: documents, confidence: retrievalConfidence(documents, escalationThreshold, meaningScale()) };
  };
}
