import type { MemoryStrategyInput } from '../memory/settings';

/**
 * What makes one kind of agent: its instructions, the tools it may call and its
 * default conversation memory, as the shop file's `agents` list them. A request
 * picks one with `agent_type`.
 */
export interface AgentSpec {
  key: string;
  description: string;
  instructions: string;
  /** Names of the tools it may call: built-in (src/agent/tools), the shop's actions' operations and MCP servers' tools. */
  tools: string[];
  /** The agent's default memory strategy; a conversation's or a request's setting wins. */
  memoryStrategy?: MemoryStrategyInput;
  memoryInjection?: boolean;
  /** Whether the model is offered hand_off_to_person (built in, not listed in `tools`); default true. */
  handOff?: boolean;
}
