import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { LangfuseObservationType } from '@langfuse/tracing';
import type { TokenUsage } from '../models/token-usage';
import type { Retriever } from '../knowledge/retriever';
import type { Observation, Tracing } from './langfuse';
import type { Metrics, ModelCallPurpose } from './metrics';
import { traceMessages, traceText, traceValue } from './personal-data';

/** A graph node as LangGraph calls it. */
type Node<S, U> = (state: S, config: LangGraphRunnableConfig) => Promise<U>;

/** What a node's observation shows: its input from the state, its output and metadata from the update. */
export interface NodeDescription<S, U> {
  input?(state: S): unknown;
  output?(update: U): { output?: unknown; metadata?: Record<string, unknown> };
}

/**
 * The node as one observation of the request's trace. With tracing off the node
 * is returned as it is: nothing is added to a request.
 */
export function tracedNode<S, U>(
  tracing: Tracing | undefined,
  name: string,
  type: LangfuseObservationType,
  node: Node<S, U>,
  describe: NodeDescription<S, U> = {},
): Node<S, U> {
  if (!tracing?.enabled) return node;
  return (state, config) =>
    tracing.observe(name, type, describe.input?.(state), async (observation) => {
      const update = await node(state, config);
      if (describe.output) observation.update(describe.output(update));
      return update;
    });
}

/**
 * Each tool call as a `tool` observation with its arguments and result (their
 * lengths only, unless LANGFUSE_CAPTURE_PERSONAL_DATA is on). The tool
 * objects are not changed: each traced one delegates to its original.
 */
export function tracedTools<T extends StructuredToolInterface>(tracing: Tracing | undefined, tools: T[]): T[] {
  if (!tracing?.enabled) return tools;
  return tools.map((tool) => {
    const original = tool as unknown as { _call(arg: unknown, runManager?: unknown, config?: unknown): Promise<unknown> };
    const traced = Object.create(tool) as typeof original;
    traced._call = (arg, runManager, config) =>
      tracing.observe(tool.name, 'tool', traceValue(tracing, arg), async (observation: Observation) => {
        const result = await original._call(arg, runManager, config);
        observation.update({ output: traceValue(tracing, result) });
        return result;
      });
    return traced as unknown as T;
  });
}

/** Retrieval latency and hits in the metrics, for the graph's retrieval and the search tool alike. */
export function measuredRetriever(retriever: Retriever, metrics: Metrics): Retriever {
  return {
    async retrieve(query, signal) {
      const startedAt = performance.now();
      const documents = await retriever.retrieve(query, signal);
      metrics.recordRetrieval((performance.now() - startedAt) / 1000, documents.length);
      return documents;
    },
  };
}

/** The token usage a model reply reports (zeros when it reports none). */
export function usageOf(reply: AIMessage): TokenUsage {
  const usage = reply.usage_metadata;
  return {
    prompt_tokens: usage?.input_tokens ?? 0,
    completion_tokens: usage?.output_tokens ?? 0,
    total_tokens: usage?.total_tokens ?? 0,
    // LangChain maps OpenAI's prompt_tokens_details.cached_tokens to input_token_details.cache_read.
    cached_tokens: usage?.input_token_details?.cache_read ?? 0,
  };
}

/** The model that answered, as the reply names it, or the configured name. */
export function answeringModel(reply: AIMessage, modelName: string): string {
  return (reply.response_metadata?.model_name as string | undefined) ?? modelName;
}

/**
 * The model call as a Langfuse generation: what it was sent, what it answered,
 * the model's name and the token usage it reported (streamed calls report it in
 * their last chunk, which LangChain joins into the reply).
 */
export async function traceModelCall(
  tracing: Tracing | undefined,
  modelName: string,
  messages: BaseMessage[],
  call: () => Promise<AIMessage>,
  name = 'model',
): Promise<AIMessage> {
  if (!tracing?.enabled) return call();
  const input = traceMessages(
    tracing,
    messages.map((m) => ({ role: m.getType(), content: m.text })),
  );
  return tracing.observe(name, 'generation', input, async (generation) => {
    generation.update({ model: modelName });
    const reply = await call();
    const usage = usageOf(reply);
    generation.update({
      model: answeringModel(reply, modelName),
      output: reply.tool_calls?.length
        ? { tool_calls: reply.tool_calls.map((c) => ({ name: c.name, args: traceValue(tracing, c.args) })) }
        : traceText(tracing, reply.text),
      usageDetails: langfuseUsage(usage),
    });
    return reply;
  });
}

/**
 * Usage as Langfuse prices it: tokens served from the prompt cache are their own
 * usage type (input_cached_tokens, the name of OpenAI's cached-input price in
 * Langfuse's model table), and `input` is then only the uncached rest, so the
 * input types still add up to the prompt and the cost view bills each at its price.
 */
export function langfuseUsage(usage: TokenUsage): Record<string, number> {
  if (usage.cached_tokens <= 0) return { input: usage.prompt_tokens, output: usage.completion_tokens, total: usage.total_tokens };
  return {
    input: usage.prompt_tokens - usage.cached_tokens,
    input_cached_tokens: usage.cached_tokens,
    output: usage.completion_tokens,
    total: usage.total_tokens,
  };
}

/**
 * Model calls made beside the answer (the rolling summary's): each one a
 * generation of the request's trace, named after its purpose, and its tokens
 * counted in llm_tokens_total, so dashboards see every token the service spends.
 */
export function observedModelCalls(tracing: Tracing | undefined, metrics: Metrics, modelName: string, purpose: ModelCallPurpose) {
  return async (messages: BaseMessage[], call: () => Promise<AIMessage>): Promise<AIMessage> => {
    const reply = await traceModelCall(tracing, modelName, messages, call, `${purpose}_model`);
    metrics.recordModelTokens(answeringModel(reply, modelName), purpose, usageOf(reply));
    return reply;
  };
}
