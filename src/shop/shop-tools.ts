import path from 'node:path';
import type { StructuredTool } from '@langchain/core/tools';
import { loadActionTools } from '../connectors/actions';
import type { ConnectorContext } from '../connectors/connector-context';
import { ShopFileError } from '../connectors/connector-config';
import { connectMcpServers, type McpToolSource } from '../connectors/mcp-servers';
import { ShopFileRejectedError, type Shop } from './load-shop';

/** The tools the shop's own systems provide (its actions and MCP servers), and how to let go of them on shutdown. */
export interface ShopSystemTools {
  /** The tools offered now: every action, and the MCP servers' allowlisted tools while their server is connected. */
  tools(): StructuredTool[];
  close(): Promise<void>;
}

/**
 * Connects the shop's own systems named in its file: `actions` (operations of
 * its HTTP API, from their OpenAPI documents, read now) and `mcp_servers` (a
 * server that is down is reported and joins once it connects). A mistake only
 * visible now (an operationId the document lacks, a base_url the network guard
 * refuses) stops the start like the file's other mistakes, naming the file.
 */
export async function connectShopSystems(shop: Shop, context: Omit<ConnectorContext, 'shopFileDir'>): Promise<ShopSystemTools> {
  const ctx: ConnectorContext = { ...context, shopFileDir: path.dirname(shop.file) };
  let mcp: McpToolSource | null = null;
  try {
    const actionTools = await loadActionTools(shop.actions, ctx);
    mcp = await connectMcpServers(shop.mcpServers, ctx);
    const servers = mcp;
    return {
      tools: () => (servers.tools().length === 0 ? actionTools : [...actionTools, ...servers.tools()]),
      close: () => servers.close(),
    };
  } catch (error) {
    await mcp?.close().catch(() => {});
    if (error instanceof ShopFileError) throw new ShopFileRejectedError(shop.file, error.problems);
    throw error;
  }
}
