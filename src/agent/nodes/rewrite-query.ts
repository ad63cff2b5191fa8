import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { ModelQueryRewriter } from '../../knowledge/query-rewriter';
import { standsAlone, topicSearchQuery, type EarlierMessage, type HistoryWeights, type SearchQuery } from '../../knowledge/search-query';
import type { Logger } from '../../observability/logger';
import type { SideModelCall } from '../../models/token-usage';
import type { SupportStateType, SupportStateUpdate } from '../state';
import { promptCacheKeyFor } from './generate-response';

export interface RewriteQueryOptions {
  /** QUERY_REWRITE: `model` (with `rewriter`), `topic` or `off`. */
  queryRewrite: 'model' | 'topic' | 'off';
  rewriter?: ModelQueryRewriter;
  /** How much earlier customer messages count in the full-text query (the offline method). */
  historyWeights: HistoryWeights;
  /** Send the conversation's prompt_cache_key with the rewrite call, as with the answer's (OPENAI_PROMPT_CACHE_KEY). */
  sendPromptCacheKey?: boolean;
  logger: Logger;
}

/**
 * rewrite_query: what the knowledge base is searched with for this turn. A first
 * message is searched for as it is; a follow-up that cannot stand alone is
 * rewritten by the model (`model`, no call for any other message); otherwise, and
 * when the rewrite fails, the message's words are searched for with the earlier
 * customer messages' words at a reduced weight (topicSearchQuery). `off` searches
 * for the message alone.
 */
export function makeRewriteQueryNode(options: RewriteQueryOptions) {
  return async function rewriteQuery(state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> {
    const earlier: EarlierMessage[] = state.conversation_history.filter((m) => (m.role === 'user' || m.role === 'assistant') && !m.synthetic);
    const asItIs: SearchQuery = { text: state.query, method: 'message' };
    if (options.queryRewrite === 'off' || !earlier.some((m) => m.role === 'user')) {
      return { search_query: asItIs };
    }
    // The rewrite's call is on the turn's bill, whether its answer was usable or not.
    const side_calls: SideModelCall[] = [];
    if (options.queryRewrite === 'model' && options.rewriter && !standsAlone(state.query)) {
      try {
        const text = await options.rewriter.rewrite(state.query, earlier, config.signal, {
          ...(options.sendPromptCacheKey && { promptCacheKey: promptCacheKeyFor(state.session_id) }),
          onModelCall: (call) => side_calls.push({ purpose: 'rewrite', ...call }),
        });
        return { search_query: { text, method: 'model' }, side_calls };
      } catch (error) {
        if (config.signal?.aborted) throw error;
        options.logger.warn({ err: error, session_id: state.session_id }, 'The query rewrite failed: searching with the conversation topic instead');
      }
    }
    return { search_query: topicSearchQuery(state.query, earlier, options.historyWeights), side_calls };
  };
}
