import { END, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { Retriever } from '../knowledge/retriever';
import { makeApplyMemoryNode, type ApplyMemoryOptions } from './nodes/apply-memory';
import { makeGenerateResponseNode, routeAfterResponse, type GenerateResponseOptions } from './nodes/generate-response';
import { makeRetrieveNode } from './nodes/retrieve';
import { SupportState } from './state';

/** Everything the nodes need: the retriever, the memory step's parts and the model's. */
export interface SupportGraphParts extends ApplyMemoryOptions, GenerateResponseOptions {
  retriever: Retriever;
}

/**
 * START → retrieve → apply_memory → generate_response ⇄ tools → END.
 * Exported so tests can compile it with their own parts.
 */
export function buildSupportGraph(parts: SupportGraphParts) {
  return new StateGraph(SupportState)
    .addNode('retrieve', makeRetrieveNode(parts.retriever, parts.logger))
    .addNode('apply_memory', makeApplyMemoryNode(parts))
    .addNode('generate_response', makeGenerateResponseNode(parts))
    .addNode('tools', new ToolNode(parts.tools))
    .addEdge(START, 'retrieve')
    .addEdge('retrieve', 'apply_memory')
    .addEdge('apply_memory', 'generate_response')
    .addConditionalEdges('generate_response', routeAfterResponse, ['tools', END])
    .addEdge('tools', 'generate_response');
}

/** Compiled once per agent at start; each request is one invoke. */
export function compileSupportGraph(parts: SupportGraphParts) {
  return buildSupportGraph(parts).compile();
}

export type SupportGraph = ReturnType<typeof compileSupportGraph>;
