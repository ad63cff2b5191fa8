import type { StructuredTool } from '@langchain/core/tools';
import type { Retriever } from '../../knowledge/retriever';
import type { OrderProofs } from '../../identity/order-proofs';
import type { CommerceStore } from '../../store/commerce-store';
import { createGetUserProfileTool, GET_USER_PROFILE } from './get-user-profile';
import { createLookupOrderTool, LOOKUP_ORDER } from './lookup-order';
import { createSearchKnowledgeBaseTool, SEARCH_KNOWLEDGE_BASE } from './search-knowledge-base';

export { normalizeOrderId } from './lookup-order';

/** The support agent's tools, by the names the model calls them. */
export const TOOL_NAMES = [LOOKUP_ORDER, GET_USER_PROFILE, SEARCH_KNOWLEDGE_BASE] as const;
export type SupportToolName = (typeof TOOL_NAMES)[number];

export interface SupportToolParts {
  commerce: CommerceStore;
  /** Anonymous order lookups' proofs (order number + e-mail or postcode) and their limits. */
  orderProofs: OrderProofs;
  retriever: Retriever;
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
    createLookupOrderTool(parts.commerce, parts.orderProofs),
    createGetUserProfileTool(parts.commerce),
    createSearchKnowledgeBaseTool(parts.retriever),
  ];
}
