import type { StructuredTool } from '@langchain/core/tools';
import { compileSupportGraph, type SupportGraphParts } from '../agent/graph';
import { derivedFromTools, type ToolList } from '../agent/tool-list';
import { withHandOffInstructions } from '../agent/prompts';
import { createHandOffTool } from '../agent/tools/hand-off-to-person';
import { createSupportTools, type SupportToolParts } from '../agent/tools';
import { DESCRIBED_TITLES_MAX, KnowledgeTitles } from '../agent/tools/search-knowledge-base';
import type { AgentSpec } from '../agent-specs/spec';
import type { AgentRuntime } from '../chat/chat-service';
import type { SupportHours } from '../chat/support-hours';
import type { ConnectorContext } from '../connectors/connector-context';
import type { KnowledgeAdminStore } from '../store/knowledge-admin-store';
import type { Shop } from './load-shop';
import { connectShopSystems } from './shop-tools';
import { escalationOffer } from './shop-words';

/** Everything an agent's graph needs that is the same for every agent of the shop. */
export type SharedGraphParts = Omit<SupportGraphParts, 'tools' | 'instructions'>;

/** The shop's agents, ready to answer, and the connections to its own systems to let go of on shutdown. */
export interface ShopAgents {
  agents: Map<string, AgentRuntime>;
  /** The agent a request without agent_type gets: the shop file's first. */
  defaultAgentType: string;
  /** The tools of the shop's own systems offered now (actions, connected MCP servers' tools): the console's tools page. */
  shopTools(): StructuredTool[];
  close(): Promise<void>;
}

/**
 * The shop file's agents: the built-in tools speaking for the shop (its name,
 * its order numbers, the titles of its stored knowledge), the tools of its own
 * systems (actions, MCP servers), and one graph per agent with exactly the
 * tools it names and the shop's words at the end of an escalated answer.
 */
export async function createShopAgents(parts: {
  shop: Shop;
  builtInTools: Omit<SupportToolParts, 'shop' | 'knowledgeTitles'>;
  knowledgeAdmin: KnowledgeAdminStore;
  supportHours: SupportHours;
  graph: SharedGraphParts;
  /** What the connectors need (network guard, redactor, token counter, tracing, logger, the environment for `${VAR}`). */
  connectors: Omit<ConnectorContext, 'shopFileDir'>;
}): Promise<ShopAgents> {
  const { shop } = parts;
  const readTitles = async () => (await parts.knowledgeAdmin.listSources({ limit: DESCRIBED_TITLES_MAX })).sources.map((s) => s.title);
  // The knowledge tool's description names what is stored: read again when a source is written.
  const knowledgeTitles = new KnowledgeTitles(readTitles, await readTitles(), undefined, (error) =>
    parts.connectors.logger.warn({ err: error }, 'Could not read the knowledge titles for the search tool; it keeps the ones it had'),
  );
  parts.knowledgeAdmin.onWrite(() => knowledgeTitles.changed());
  let builtIn = createSupportTools({ ...parts.builtInTools, shop, knowledgeTitles: knowledgeTitles.titles() });
  let builtForVersion = knowledgeTitles.version;
  const builtInNow = () => {
    const titles = knowledgeTitles.titles();
    if (knowledgeTitles.version !== builtForVersion) {
      builtIn = createSupportTools({ ...parts.builtInTools, shop, knowledgeTitles: titles });
      builtForVersion = knowledgeTitles.version;
    }
    return builtIn;
  };
  const systems = await connectShopSystems(shop, parts.connectors);
  // Read per answer: an MCP server's tools join once it connects, the knowledge tool's description follows what is stored.
  const agents = compileAgents(shop.agents, () => [...builtInNow(), ...systems.tools()], parts.graph, escalationOffer(shop, parts.supportHours));
  return { agents, defaultAgentType: shop.agents[0]!.key, shopTools: () => systems.tools(), close: () => systems.close() };
}

/**
 * One graph per agent, by key (the default first), each with the instructions and exactly the
 * tools it names (read per answer), plus hand_off_to_person unless the agent turned it off.
 */
export function compileAgents(
  agents: AgentSpec[],
  tools: ToolList,
  shared: SharedGraphParts,
  offer?: (language: string, customerAsked: boolean) => string,
): Map<string, AgentRuntime> {
  const runtimes = new Map<string, AgentRuntime>();
  const handOff = createHandOffTool();
  for (const spec of agents) {
    const own = derivedFromTools(tools, (now) => [...now.filter((t) => spec.tools.includes(t.name)), ...(spec.handOff === false ? [] : [handOff])]);
    const instructions = spec.handOff === false ? spec.instructions : withHandOffInstructions(spec.instructions);
    const graph = compileSupportGraph({ ...shared, tools: own, instructions });
    runtimes.set(spec.key, { spec, graph, escalation: { threshold: shared.escalationThreshold, ...(offer && { offer }) } });
  }
  return runtimes;
}
