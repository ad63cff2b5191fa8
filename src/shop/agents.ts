import type { StructuredTool } from '@langchain/core/tools';
import { compileSupportGraph, type SupportGraphParts } from '../agent/graph';
import type { AgentSpec } from '../agent-specs/spec';
import type { AgentRuntime } from '../chat/chat-service';

/** Everything an agent's graph needs that is the same for every agent of the shop. */
export type SharedGraphParts = Omit<SupportGraphParts, 'tools' | 'instructions'>;

/**
 * The shop's agents, ready to answer, by key (the default first): each graph
 * gets the agent's instructions and exactly the tools its `tools` names, from
 * the built-in ones and the shop's own systems alike.
 */
export function compileAgents(agents: AgentSpec[], tools: StructuredTool[], shared: SharedGraphParts): Map<string, AgentRuntime> {
  const runtimes = new Map<string, AgentRuntime>();
  for (const spec of agents) {
    const graph = compileSupportGraph({
      ...shared,
      tools: tools.filter((t) => spec.tools.includes(t.name)),
      instructions: spec.instructions,
    });
    runtimes.set(spec.key, { spec, graph });
  }
  return runtimes;
}
