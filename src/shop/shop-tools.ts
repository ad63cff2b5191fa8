import type { StructuredTool } from '@langchain/core/tools';
import type { Logger } from '../observability/logger';
import type { Shop } from './load-shop';

/** The tools the shop's own systems provide (its actions and MCP servers), and how to let go of them on shutdown. */
export interface ShopSystemTools {
  tools: StructuredTool[];
  close(): Promise<void>;
}

/**
 * Connects the shop's own systems named in its file: `actions` (operations of
 * its HTTP API, from their OpenAPI documents) and `mcp_servers`. The agents'
 * `tools` were already checked against the names the file declares
 * (loadShop), so a missing tool here is a connection problem, not a typo.
 */
export async function connectShopSystems(shop: Shop, logger: Logger): Promise<ShopSystemTools> {
  // ── PLUG-IN POINT for src/connectors (branch `actions`) ──────────────────────
  // loadActionTools(shop.actions, ctx) and connectMcpServers(shop.mcpServers, ctx)
  // go here once merged; until then the shop's own systems provide no tools.
  if (shop.actions.length > 0 || shop.mcpServers.length > 0) {
    logger.warn(
      { actions: shop.actions.length, mcp_servers: shop.mcpServers.length },
      'The shop file names actions or MCP servers, but this build cannot connect them yet: their tools are left out',
    );
  }
  return { tools: [], close: async () => {} };
}
