import { END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { Retriever } from '../knowledge/retriever';
import { tracedNode, tracedTools } from '../observability/instrument';
import type { Tracing } from '../observability/langfuse';
import { traceText } from '../observability/personal-data';
import { makeApplyMemoryNode, type ApplyMemoryOptions } from './nodes/apply-memory';
import { makeGenerateResponseNode, routeAfterResponse, routeAfterTools, type GenerateResponseOptions } from './nodes/generate-response';
import { makeRetrieveNode } from './nodes/retrieve';
import { makeRewriteQueryNode, type RewriteQueryOptions } from './nodes/rewrite-query';
import { derivedFromTools } from './tool-list';
import { SupportState, type SupportStateType, type SupportStateUpdate } from './state';

/** Everything the nodes need: the retriever, the memory step's parts and the model's. */
export interface SupportGraphParts extends ApplyMemoryOptions, GenerateResponseOptions, Omit<RewriteQueryOptions, 'logger'> {
  retriever: Retriever;
  /** Puts a similarity on the escalation threshold's scale, where the threshold was calibrated (EscalationCalibration); 1 otherwise. */
  meaningScale?: () => number;
  /** Retrieval confidence below this means the help center does not cover the question (word coverage is put on its scale). */
  escalationThreshold: number;
  /** Each node (and model and tool call) as an observation of the request's trace; off when omitted. */
  tracing?: Tracing;
}

/**
 * START → rewrite_query → retrieve → apply_memory → generate_response ⇄ tools → END
 * (after the tools too, when the model called hand_off_to_person).
 * Exported so tests can compile it with their own parts.
 */
export function buildSupportGraph(parts: SupportGraphParts) {
  const { tracing } = parts;
  // A ToolNode per set of tools: the list is read per run (tools from MCP servers come and go).
  const toolNodeNow = derivedFromTools(parts.tools, (tools) => new ToolNode(tracedTools(tracing, tools)));
  const runTools = (state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> => toolNodeNow().invoke(state, config);
  return new StateGraph(SupportState)
    .addNode(
      'rewrite_query',
      tracedNode(tracing, 'rewrite_query', 'span', makeRewriteQueryNode(parts), {
        input: (state) => traceText(tracing, state.query),
        output: (update) => ({
          output: update.search_query && { text: traceText(tracing, update.search_query.text), method: update.search_query.method },
          metadata: { method: update.search_query?.method },
        }),
      }),
    )
    .addNode(
      'retrieve',
      tracedNode(tracing, 'retrieve', 'retriever', makeRetrieveNode(parts.retriever, parts.logger, parts.escalationThreshold, parts.meaningScale), {
        input: (state) => traceText(tracing, state.search_query?.text ?? state.query),
        output: (update) => ({
          output: {
            confidence: update.confidence,
            documents: update.retrieved_documents?.map((d) => ({ source: d.source, title: d.title, similarity: d.similarity, full_text_rank: d.fullTextRank ?? null })),
          },
          metadata: { hits: update.retrieved_documents?.length ?? 0 },
        }),
      }),
    )
    .addNode(
      'apply_memory',
      tracedNode(tracing, 'apply_memory', 'span', makeApplyMemoryNode(parts), {
        input: (state) => ({ strategy: state.memory_settings.mode, loaded_messages: state.conversation_history.length }),
        // tokens_before / tokens_after: the prompt with the whole history, and as the model is sent it.
        output: (update) => ({ output: update.memory_report, metadata: { ...update.memory_report } }),
      }),
    )
    .addNode(
      'generate_response',
      tracedNode(tracing, 'generate_response', 'span', makeGenerateResponseNode(parts), {
        output: (update) => ({
          output:
            update.response !== undefined
              ? { nothing_answers: update.nothing_answers, quote_support: update.quote_support, own_words_support: update.own_words_support }
              : { tool_calls: toolCallNames(update) },
        }),
      }),
    )
    .addNode(
      'tools',
      tracedNode<SupportStateType, SupportStateUpdate>(tracing, 'tools', 'span', runTools),
    )
    .addEdge(START, 'rewrite_query')
    .addEdge('rewrite_query', 'retrieve')
    .addEdge('retrieve', 'apply_memory')
    .addEdge('apply_memory', 'generate_response')
    .addConditionalEdges('generate_response', routeAfterResponse, ['tools', END])
    .addConditionalEdges('tools', routeAfterTools, ['generate_response', END]);
}

function toolCallNames(update: SupportStateUpdate): string[] {
  const messages = Array.isArray(update.messages) ? update.messages : [];
  return messages.flatMap((m) => ('tool_calls' in m && Array.isArray(m.tool_calls) ? m.tool_calls.map((c: { name: string }) => c.name) : []));
}

/** Compiled once per agent at start; each request is one invoke. */
export function compileSupportGraph(parts: SupportGraphParts) {
  return buildSupportGraph(parts).compile();
}

export type SupportGraph = ReturnType<typeof compileSupportGraph>;
