import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { LangfuseObservationType } from '@langfuse/tracing';
import type { Retriever } from '../knowledge/retriever';
import type { Observation, Tracing } from './langfuse';
import type { Metrics } from './metrics';

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
 * Each tool call as a `tool` observation with its arguments and result. The tool
 * objects are not changed: each traced one delegates to its original.
 */
export function tracedTools<T extends StructuredToolInterface>(tracing: Tracing | undefined, tools: T[]): T[] {
  if (!tracing?.enabled) return tools;
  return tools.map((tool) => {
    const original = tool as unknown as { _call(arg: unknown, runManager?: unknown, config?: unknown): Promise<unknown> };
    const traced = Object.create(tool) as typeof original;
    traced._call = (arg, runManager, config) =>
      tracing.observe(tool.name, 'tool', arg, async (observation: Observation) => {
        const result = await original._call(arg, runManager, config);
        observation.update({ output: result });
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
