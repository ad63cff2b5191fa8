import type { RunnableConfig } from '@langchain/core/runnables';

/**
 * The customer this conversation belongs to, from the run config
 * (`configurable.user_id`, set by whoever invokes the graph); null for an
 * anonymous widget session. The tools decide what to share from this, never
 * from what the model passes, since the model's arguments come from the chat.
 */
export function conversationUserId(config: RunnableConfig | undefined): string | null {
  const userId: unknown = config?.configurable?.user_id;
  return typeof userId === 'string' && userId.trim() !== '' ? userId.trim() : null;
}

/** Customer ids are e-mail addresses in practice: compare them as the shop does, ignoring case. */
export function isSameCustomer(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
