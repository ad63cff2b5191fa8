import type { MessageRole, ToolCall } from '../store/types';

/**
 * A message as the model may be sent it: a durable message (with its seq) or a
 * synthetic one a strategy made (the summary pair). `tokens` is what it costs as
 * it stands: the stored count, recounted when a strategy changed the message.
 */
export interface ContextMessage {
  role: MessageRole;
  content: string;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  name?: string | null;
  tokens: number;
  /** Position in the durable history; absent for synthetic messages. */
  seq?: number;
  /** A tool result (or call) whose payload compaction replaced with a placeholder. */
  compacted?: boolean;
  /** Made by a strategy (the summary pair), not stored in the history. */
  synthetic?: boolean;
}

/** Counts what a message costs the chat model (TokenCounter.countMessage in the service). */
export type CountMessageTokens = (message: Pick<ContextMessage, 'content' | 'tool_calls' | 'name'>) => number;

/**
 * Caps a tool result at maxChars for the model's context, with a visible marker
 * (the stored copy stays whole). Messages under the cap are returned as they are.
 */
export function capToolOutput(message: ContextMessage, maxChars: number, countTokens: CountMessageTokens): ContextMessage {
  if (message.role !== 'tool' || message.content.length <= maxChars) return message;
  const content = truncateToolOutput(message.content, maxChars);
  return { ...message, content, tokens: countTokens({ ...message, content }) };
}

export function truncateToolOutput(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  return `${content.slice(0, maxChars)}\n…[truncated: showing the first ${maxChars} of ${content.length} characters]`;
}
