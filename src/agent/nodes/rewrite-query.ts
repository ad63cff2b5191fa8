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
  /**
   * The knowledge base's languages, most chunks first (cached by the caller). When
   * the customer's is not among them, the model writes the search query in the
   * first: an English help center then serves a German customer. Absent or empty:
   * the query stays in the customer's language.
   */
  knowledgeLanguages?: () => Promise<readonly string[]>;
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
 * for the message alone. With `model`, a message in another language than the
 * knowledge base's is always rewritten, first messages too, into the knowledge
 * base's language (searchLanguageFor).
 */
export function makeRewriteQueryNode(options: RewriteQueryOptions) {
  return async function rewriteQuery(state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> {
    const earlier: EarlierMessage[] = state.conversation_history.filter((m) => (m.role === 'user' || m.role === 'assistant') && !m.synthetic);
    const asItIs: SearchQuery = { text: state.query, method: 'message' };
    const canRewrite = options.queryRewrite === 'model' && options.rewriter !== undefined;
    const searchLanguage = canRewrite ? await searchLanguageFor(state.language, options) : null;
    const firstMessage = !earlier.some((m) => m.role === 'user');
    if (options.queryRewrite === 'off' || (firstMessage && !searchLanguage)) {
      return { search_query: asItIs };
    }
    // The rewrite's call is on the turn's bill, whether its answer was usable or not.
    const side_calls: SideModelCall[] = [];
    if (canRewrite && (searchLanguage || !standsAlone(state.query, state.language))) {
      try {
        const text = await options.rewriter!.rewrite(state.query, earlier, config.signal, {
          ...(options.sendPromptCacheKey && { promptCacheKey: promptCacheKeyFor(state.session_id) }),
          onModelCall: (call) => side_calls.push({ purpose: 'rewrite', ...call }),
          ...(searchLanguage && { searchLanguage }),
        });
        return { search_query: { text, method: 'model' }, side_calls };
      } catch (error) {
        if (config.signal?.aborted) throw error;
        options.logger.warn({ err: error, session_id: state.session_id }, 'The query rewrite failed: searching with the conversation topic instead');
      }
    }
    if (firstMessage) return { search_query: asItIs, side_calls };
    return { search_query: topicSearchQuery(state.query, earlier, options.historyWeights, state.language), side_calls };
  };
}

/**
 * The knowledge base's language to write the query in, when the customer's is not
 * one of the knowledge base's (its most-used one); null when no translation is
 * needed or the languages are not known (a failed listing searches as written).
 */
async function searchLanguageFor(customerLanguage: string | undefined, options: RewriteQueryOptions): Promise<string | null> {
  if (!customerLanguage || !options.knowledgeLanguages) return null;
  let languages: readonly string[];
  try {
    languages = await options.knowledgeLanguages();
  } catch (error) {
    options.logger.warn({ err: error }, "The knowledge base's languages could not be listed: searching in the customer's language");
    return null;
  }
  if (languages.length === 0 || languages.includes(customerLanguage)) return null;
  return languages[0]!;
}
