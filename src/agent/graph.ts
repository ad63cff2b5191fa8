import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { END, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { Retriever } from '../knowledge/retriever';
import type { CountMessageTokens } from '../memory/context';
import type { Summarizer } from '../memory/summarizer';
import type { Logger } from '../observability/logger';
import type { ChatStore } from '../store/types';
import { makeApplyMemoryNode } from './nodes/apply-memory';
import { makeGenerateResponseNode, routeAfterResponse } from './nodes/generate-response';
import { makeRetrieveNode } from './nodes/retrieve';
import { SupportState } from './state';

export interface SupportGraphParts {
  retriever: Retriever;
  chatModel: BaseChatModel;
  modelName: string;
  /** The agent's tools; none: the model answers in one call. */
  tools: StructuredToolInterface[];
  instructions: string;
  escalationThreshold: number;
  timeoutMs: number;
  toolOutputMaxChars: number;
  countTokens: CountMessageTokens;
  summarizer: Summarizer;
  store: Pick<ChatStore, 'saveSummary'>;
  windowLimits: { maxMessages: number; maxTokens: number };
  logger: Logger;
}

/**
 * START → retrieve → apply_memory → generate_response ⇄ tools → END.
 * Exported so tests can compile it with their own parts.
 */
export function buildSupportGraph(parts: SupportGraphParts) {
  return new StateGraph(SupportState)
    .addNode('retrieve', makeRetrieveNode(parts.retriever))
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
