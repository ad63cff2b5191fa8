import path from 'node:path';
import type { StructuredTool } from '@langchain/core/tools';
import { TOOL_NAMES } from '../agent/tools';
import { exampleOrderNumber } from '../agent/tools/lookup-order';
import { loadActionTools } from '../connectors/actions';
import { ShopFileError, type ActionConfig, type ShopFileProblem } from '../connectors/connector-config';
import type { ConnectorContext } from '../connectors/connector-context';
import { connectMcpServers, type McpServerStatus } from '../connectors/mcp-servers';
import { parseOpenApiDocument, readOpenApiText } from '../connectors/openapi-document';
import { offlineActionsOf } from '../models/offline-actions';
import { loadShop, ShopFileRejectedError, type Shop } from './load-shop';
import { describeShopTools, type ToolDescription } from './tool-descriptions';

/** A base URL reached with a harmless request (HEAD), and what answered. */
export interface ReachedBaseUrl {
  /** The field it comes from: `actions[0].base_url` (or the document's first server). */
  at: string;
  url: string;
  status: number;
}

/** What `npm run shop -- check` found. */
export interface ShopCheck {
  file: string;
  /** null when the file itself could not be read. */
  name: string | null;
  agents: Array<{ key: string; tools: string[]; offline: string | null }>;
  tools: ToolDescription[];
  mcpServers: McpServerStatus[];
  reached: ReachedBaseUrl[];
  /** One line each (`<file>: <field>: <what is wrong>`); none when the shop is ready. */
  problems: string[];
}

/** The most bytes read of the harmless request's answer (a HEAD has none; a server may send one anyway). */
const REACH_MAX_BYTES = 64 * 1024;

/**
 * Checks a shop file as the service would use it, and more: the file (fields,
 * `${VAR}`s, the agents' tool names), every OpenAPI document read and every
 * allowlisted operation found in it, every MCP server connected and asked for its
 * allowlisted tools, and every action's base URL reached with a HEAD request (any
 * HTTP answer counts: a refused connection, a name that does not resolve or a
 * timeout is a problem). Nothing is written anywhere; MCP connections are closed.
 */
export async function checkShop(options: { file: string; context: Omit<ConnectorContext, 'shopFileDir'> }): Promise<ShopCheck> {
  let shop: Shop;
  try {
    shop = loadShop({ file: options.file, sample: false, env: options.context.env, builtInTools: TOOL_NAMES });
  } catch (error) {
    if (!(error instanceof ShopFileRejectedError)) throw error;
    return { file: error.file, name: null, agents: [], tools: [], mcpServers: [], reached: [], problems: error.message.split('\n') };
  }
  const ctx: ConnectorContext = { ...options.context, shopFileDir: path.dirname(shop.file) };
  const problems: ShopFileProblem[] = [];

  let actionTools: StructuredTool[] = [];
  try {
    actionTools = await loadActionTools(shop.actions, ctx);
  } catch (error) {
    if (!(error instanceof ShopFileError)) throw error;
    problems.push(...error.problems);
    // What the other actions offer is still listed: each alone (its own problems are reported above).
    for (const action of shop.actions) actionTools.push(...(await loadActionTools([action], ctx).catch(() => [])));
  }

  const reached: ReachedBaseUrl[] = [];
  for (const [index, action] of shop.actions.entries()) {
    const at = `actions[${index}]`;
    // A document that could not be read, or a base URL the guard refused, is reported already.
    if (problems.some((p) => p.path === `${at}.openapi` || p.path === `${at}.base_url`)) continue;
    const base = await baseUrlOf(action, ctx);
    if (base === null) continue;
    try {
      const response = await ctx.guard.request({
        url: base,
        method: 'HEAD',
        timeoutMs: action.timeout_ms,
        maxBytes: REACH_MAX_BYTES,
        overflow: 'truncate',
        maxRedirects: 0,
        allowPrivateNetwork: action.allow_private_network,
      });
      reached.push({ at: `${at}.base_url`, url: base, status: response.status });
    } catch (error) {
      problems.push({ path: `${at}.base_url`, message: `${base} cannot be reached: ${(error as Error).message}` });
    }
  }

  let mcpTools: StructuredTool[] = [];
  let mcpServers: McpServerStatus[] = [];
  try {
    const mcp = await connectMcpServers(shop.mcpServers, ctx);
    mcpServers = mcp.status();
    mcpTools = mcp.tools();
    await mcp.close();
  } catch (error) {
    if (!(error instanceof ShopFileError)) throw error;
    problems.push(...error.problems);
  }
  for (const [index, server] of mcpServers.entries()) {
    const config = shop.mcpServers[index]!;
    if (!server.connected) {
      problems.push({ path: `mcp_servers[${index}]`, message: `MCP server ${server.name} cannot be reached (${server.error ?? 'no answer'})` });
      continue;
    }
    config.tools.forEach((name, k) => {
      if (!server.tools.includes(name)) problems.push({ path: `mcp_servers[${index}].tools[${k}]`, message: `MCP server ${server.name} does not offer a tool named "${name}"` });
    });
  }

  const shopTools = [...actionTools, ...mcpTools];
  return {
    file: shop.file,
    name: shop.name,
    agents: shop.agents.map((agent) => ({ key: agent.key, tools: agent.tools, offline: offlineRuleOf(shop, shopTools.filter((t) => agent.tools.includes(t.name))) })),
    tools: describeShopTools(shopTools),
    mcpServers,
    reached,
    problems: problems.map((p) => `${shop.file}: ${p.path}: ${p.message}`),
  };
}

/** Which action the offline responder calls for this agent (offline-actions.ts), in words; null when none. */
function offlineRuleOf(shop: Shop, tools: StructuredTool[]): string | null {
  if (!shop.orderNumbers) return null;
  const [first] = offlineActionsOf(tools);
  if (!first) return null;
  return `with no model, a verified customer's order number (like ${exampleOrderNumber(shop.orderNumbers)}) calls ${first.name}(${first.argument})`;
}

/** The action's base URL as loadActionTools takes it: base_url, else the document's first server (relative to the document's URL). */
async function baseUrlOf(action: ActionConfig, ctx: ConnectorContext): Promise<string | null> {
  if (action.base_url) return action.base_url.replace(/\/+$/, '');
  try {
    const read = await readOpenApiText(action.openapi, ctx.shopFileDir, ctx.guard, action.allow_private_network);
    const first = parseOpenApiDocument(read.text).servers[0];
    if (first === undefined) return null;
    if (/^https?:\/\//i.test(first)) return first.replace(/\/+$/, '');
    return read.baseUrl ? new URL(first, read.baseUrl).href.replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
}
