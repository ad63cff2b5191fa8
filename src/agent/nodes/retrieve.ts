import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { Retriever } from '../../knowledge/retriever';
import { EmbeddingUnavailableError } from '../../errors';
import type { Logger } from '../../observability/logger';
import { DEGRADED_KNOWLEDGE, type SupportStateType, type SupportStateUpdate } from '../state';

/**
 * retrieve: the knowledge passages nearest to the question, and the confidence
 * they give (the best passage's similarity, clamped to 0–1; 0 when none matched).
 * When the embedding model is down it answers with no passages instead of failing.
 */
export function makeRetrieveNode(retriever: Retriever, logger: Logger) {
  return async function retrieve(state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> {
    let documents;
    try {
      documents = await retriever.retrieve(state.query, config.signal);
    } catch (error) {
      if (!(error instanceof EmbeddingUnavailableError) || config.signal?.aborted) throw error;
      // Better an answer without the help center, marked low-confidence (so escalated),
      // than no answer: the conversation and the tools still work.
      logger.warn({ err: error, session_id: state.session_id }, 'The embedding model is down: answering without the knowledge base');
      return { retrieved_documents: [], confidence: 0, degraded: [DEGRADED_KNOWLEDGE] };
    }
    const best = documents[0]?.similarity ?? 0;
    return { retrieved_documents: documents, confidence: Math.min(1, Math.max(0, best)) };
  };
}
