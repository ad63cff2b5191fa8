import { Annotation } from '@langchain/langgraph';
import type { MessageRole, RetrievedDocument, ToolCall } from '../store/types';

/** A message of the conversation so far, as the graph receives it from the history window. */
export interface HistoryMessage {
  role: MessageRole;
  content: string;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  name?: string | null;
}

/** Tokens the model call used, as the model (or the offline responder) reported them. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The support graph's state. Every field is replaced by the node that writes it. */
export const SupportState = Annotation.Root({
  query: Annotation<string>,
  session_id: Annotation<string>,
  user_id: Annotation<string | null>,
  conversation_history: Annotation<HistoryMessage[]>,
  retrieved_documents: Annotation<RetrievedDocument[]>,
  response: Annotation<string>,
  /** Similarity of the best retrieved passage, 0–1. */
  confidence: Annotation<number>,
  /** True when confidence fell below the threshold and a human was offered. */
  escalated: Annotation<boolean>,
  usage: Annotation<TokenUsage>,
  /** The model that wrote the response. */
  model: Annotation<string>,
});

export type SupportStateType = typeof SupportState.State;
export type SupportStateUpdate = typeof SupportState.Update;
