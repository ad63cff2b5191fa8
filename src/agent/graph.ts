import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { END, START, StateGraph } from '@langchain/langgraph';
import type { Retriever } from '../knowledge/retriever';
import { makeGenerateResponseNode } from './nodes/generate-response';
import { makeRetrieveNode } from './nodes/retrieve';
import { SupportState } from './state';

export interface SupportGraphParts {
  retriever: Retriever;
  chatModel: BaseChatModel;
  modelName: string;
  escalationThreshold: number;
  timeoutMs: number;
  instructions?: string;
}

/** The graph builder, exported so tests can compile it with their own parts. */
export function buildSupportGraph(parts: SupportGraphParts) {
  return new StateGraph(SupportState)
    .addNode('retrieve', makeRetrieveNode(parts.retriever))
    .addNode('generate_response', makeGenerateResponseNode(parts))
    .addEdge(START, 'retrieve')
    .addEdge('retrieve', 'generate_response')
    .addEdge('generate_response', END);
}

/** Compiled once at start; each request is one invoke. */
export function compileSupportGraph(parts: SupportGraphParts) {
  return buildSupportGraph(parts).compile();
}

export type SupportGraph = ReturnType<typeof compileSupportGraph>;
