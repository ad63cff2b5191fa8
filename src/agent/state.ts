import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, messagesStateReducer } from '@langchain/langgraph';
import type { ContextMessage } from '../memory/context';
import type { MemorySettings } from '../memory/settings';
import type { MemoryReport, MemoryState } from '../memory/strategies';
import type { SearchQuery } from '../knowledge/search-query';
import type { RetrievedDocument } from '../store/types';
import { addUsage, NO_USAGE, type SideModelCall, type TokenUsage } from '../models/token-usage';

/** The knowledge base could not be searched (embeddings down): answered without it, low confidence. */
export const DEGRADED_KNOWLEDGE = 'knowledge_unavailable';
/** The hosted model failed: the offline responder answered (MODEL_FALLBACK=offline). */
export const DEGRADED_MODEL = 'model_fallback_offline';

/** The support graph's state. Fields are replaced by the node that writes them unless a reducer says otherwise. */
export const SupportState = Annotation.Root({
  query: Annotation<string>,
  session_id: Annotation<string>,
  user_id: Annotation<string | null>,
  /** The durable messages loaded for the memory strategy, oldest first. */
  conversation_history: Annotation<ContextMessage[]>,
  /** Tokens of the whole durable history (for the memory report). */
  history_tokens_total: Annotation<number>,
  /** Messages in the whole durable history (whether the window must cut). */
  history_messages_total: Annotation<number>,
  memory_settings: Annotation<MemorySettings>,
  memory_state: Annotation<MemoryState>,
  /** Whether a new summary also becomes the customer's cross-session memory. */
  memory_injection: Annotation<boolean>,
  /** The customer's summary from an earlier session, for the system prompt (memory_injection). */
  cross_session_memory: Annotation<string | null>,
  /** The customer's language for this turn (ISO 639-1), resolved by the chat service (see src/chat/conversation-language.ts). */
  language: Annotation<string>,
  /** What the knowledge base was searched with: the message, or a follow-up made standalone (rewrite_query). */
  search_query: Annotation<SearchQuery>,
  retrieved_documents: Annotation<RetrievedDocument[]>,
  /** Instructions and cross-session memory: the stable head of every prompt of the conversation. */
  system_prompt: Annotation<string>,
  /** This turn's knowledge passages (formatKnowledge), sent after the history, just before the question. */
  knowledge_prompt: Annotation<string>,
  /** What the model is sent of the history, after the memory strategy. */
  model_history: Annotation<ContextMessage[]>,
  memory_report: Annotation<MemoryReport>,
  /** Tool results the strategy replaced by placeholders, by tool (for the metrics). */
  compacted_by_tool: Annotation<Record<string, number>>,
  /** This turn's tool calls and results, in order (appended as the graph loops). */
  messages: Annotation<BaseMessage[]>({ reducer: messagesStateReducer, default: () => [] }),
  /** The answer's text, unset when the turn ended with the model's hand-off (hand_off_to_person). */
  response: Annotation<string>,
  /** Similarity of the best retrieved passage, 0–1. */
  confidence: Annotation<number>,
  /** The offline responder read the passages and found no sentence that answers (the judge weighs it: src/chat/escalation.ts). */
  nothing_answers: Annotation<boolean>,
  /** The offline responder's best-supported quote: its share of the question's word weight (0 with a model, or nothing quoted). */
  quote_support: Annotation<number>,
  /** How well the passages hold the question's own words, the offline responder's reading (0 when a model answered). */
  own_words_support: Annotation<number>,
  /** Summed over the answering node's model calls of the turn (generate_response; the calls beside it are side_calls). */
  usage: Annotation<TokenUsage>({ reducer: addUsage, default: () => NO_USAGE }),
  /** The turn's model calls beside the answer's (summary, query rewrite), each with its usage, in order. */
  side_calls: Annotation<SideModelCall[]>({ reducer: (all, more) => [...all, ...more], default: () => [] }),
  /** The model that wrote the response. */
  model: Annotation<string>,
  /** What went wrong but was worked around (DEGRADED_* codes), reported with the answer. */
  degraded: Annotation<string[]>({ reducer: (all, more) => [...new Set([...all, ...more])], default: () => [] }),
});

export type SupportStateType = typeof SupportState.State;
export type SupportStateUpdate = typeof SupportState.Update;
