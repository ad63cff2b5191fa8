import type { AnswerFields, BindingSource } from './connector-config';

/**
 * What a tool of the shop's systems is, carried on the tool itself (its LangChain
 * `metadata`), so that code which lists or chooses tools without calling them (the
 * offline responder, `npm run shop -- check`, the console's tools page) reads the
 * same facts the wrapping acts on instead of working them out again.
 */
export interface ShopToolFacts {
  /** An operation of the shop's HTTP API, or a tool of an MCP server. */
  kind: 'action' | 'mcp';
  /** The API's host, or the MCP server's name. */
  source: string;
  /** The HTTP method of an action (GET, POST, …); null for MCP tools, which do not say whether they write. */
  method: string | null;
  /** Arguments filled on the server from the verified customer, and from what; the model is not offered them. */
  bound: Record<string, BindingSource>;
  /** Arguments a guest gives to prove an order is theirs (an action's guest_proof); empty when only a signed-in customer may call it. */
  guest_proof: string[];
  /** The answer's fields the offline responder reads to the customer (an action's `answer`); null: every scalar field. */
  answer: AnswerFields | null;
}

/** The key of the facts in a tool's metadata. */
export const SHOP_TOOL_FACTS_KEY = 'shop_tool';

/** The facts of a tool from the shop's systems; null for any other tool (the built-in ones). */
export function shopToolFacts(tool: unknown): ShopToolFacts | null {
  if (typeof tool !== 'object' || tool === null || !('metadata' in tool)) return null;
  const metadata = (tool as { metadata?: Record<string, unknown> }).metadata;
  const facts = metadata?.[SHOP_TOOL_FACTS_KEY];
  return typeof facts === 'object' && facts !== null ? (facts as ShopToolFacts) : null;
}

/** Whether the tool only reads: an action whose operation is a GET (MCP tools cannot be told apart, so never). */
export function isReadOnlyAction(facts: ShopToolFacts | null): boolean {
  return facts?.kind === 'action' && facts.method === 'GET';
}
