import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { Retriever } from '../../knowledge/retriever';
import type { SupportStateType, SupportStateUpdate } from '../state';

/**
 * retrieve: the knowledge passages nearest to the question, and the confidence
 * they give (the best passage's similarity, clamped to 0–1; 0 when none matched).
 */
export function makeRetrieveNode(retriever: Retriever) {
  return async function retrieve(state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> {
    const documents = await retriever.retrieve(state.query, config.signal);
    const best = documents[0]?.similarity ?? 0;
    return { retrieved_documents: documents, confidence: Math.min(1, Math.max(0, best)) };
  };
}
