import type { StructuredTool } from '@langchain/core/tools';
import type { Retriever } from '../../knowledge/retriever';
import type { OrderProofs } from '../../identity/order-proofs';
import type { CommerceStore } from '../../store/commerce-store';
import { createGetUserProfileTool, GET_USER_PROFILE } from './get-user-profile';
import { createLookupOrderTool, LOOKUP_ORDER, UNNAMED_SHOP, type ShopIdentity } from './lookup-order';
import { createSearchKnowledgeBaseTool, SEARCH_KNOWLEDGE_BASE } from './search-knowledge-base';

export { normalizeOrderId, type OrderNumberFormat, type ShopIdentity } from './lookup-order';

/** The built-in tools, by the names the model calls them (a shop file's agents name them in `tools`). */
export const TOOL_NAMES = [LOOKUP_ORDER, GET_USER_PROFILE, SEARCH_KNOWLEDGE_BASE] as const;
export type SupportToolName = (typeof TOOL_NAMES)[number];

export interface SupportToolParts {
  commerce: CommerceStore;
  /** Anonymous order lookups' proofs (order number + e-mail or postcode) and their limits. */
  orderProofs: OrderProofs;
  retriever: Retriever;
  /** The shop the tools speak for (its name, its order number format); default: an unnamed shop, any order reference. */
  shop?: ShopIdentity;
  /** Titles of the stored knowledge sources, which describe the knowledge base to the model. */
  knowledgeTitles?: string[];
}

/**
 * The support agent's tools, in TOOL_NAMES order. They read who the conversation
 * is with from the run config, so invoke the graph (or a tool) with
 * `{ configurable: { identity } }` (a ConversationIdentity; absent: anonymous).
 * Every tool returns a string: JSON for data, a plain sentence for "not found"
 * and refusals.
 */
export function createSupportTools(parts: SupportToolParts): StructuredTool[] {
  return [
    createLookupOrderTool(parts.commerce, parts.orderProofs, parts.shop ?? UNNAMED_SHOP),
    createGetUserProfileTool(parts.commerce),
    createSearchKnowledgeBaseTool(parts.retriever, { shopName: (parts.shop ?? UNNAMED_SHOP).name, titles: parts.knowledgeTitles ?? [] }),
  ];
}
