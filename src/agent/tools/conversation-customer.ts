import type { RunnableConfig } from '@langchain/core/runnables';

/**
 * Who the conversation is with, as the tools may rely on it: set by whoever
 * invokes the graph (`configurable.identity`), never from what the model passes,
 * since the model's arguments come from the chat.
 */
export interface ConversationIdentity {
  /** The customer a valid customer token vouched for on this request; null: anonymous, whatever user_id says. */
  verifiedCustomerId: string | null;
  /** The verified customer's e-mail, when their customer token carries an `email` claim; for actions that bind `customer.email`. */
  verifiedCustomerEmail?: string | null;
  sessionId: string;
  /** The client's address, for the per-client limit on wrong order proofs; null when unknown. */
  clientAddress: string | null;
  /** The shop's fixed sentences for the customer, in the conversation's language (the shop file's words over the built-in words of that language, src/shop/shop-words.ts); absent (a tool called outside a conversation): the English hints for the model. */
  sentences?: CustomerSentences;
  /**
   * Ends the turn with this error (an HTTP error the caller gets, such as 429):
   * a tool's refusal that must reach the client, not only the model.
   */
  stopTurn(error: Error): void;
}

const ANONYMOUS: ConversationIdentity = {
  verifiedCustomerId: null,
  sessionId: '',
  clientAddress: null,
  stopTurn: (error) => {
    throw error;
  },
};

/** The run's identity; without one (a tool called directly), an anonymous visitor with no session. */
export function conversationIdentity(config: RunnableConfig | undefined): ConversationIdentity {
  const identity: unknown = config?.configurable?.identity;
  return identity && typeof identity === 'object' ? (identity as ConversationIdentity) : ANONYMOUS;
}

/** Customer ids are e-mail addresses in practice: compare them as the shop does, ignoring case. */
export function isSameCustomer(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** How a visitor becomes a verified customer: said in every refusal of personal data. */
export const SIGN_IN_HINT = 'To see their orders and account, the customer can sign in to their account on the shop and open the chat there.';

/** The sentences the tools pass on to the customer word for word, from the customer's words (wordsFor). */
export interface CustomerSentences {
  sign_in: string;
  tool_failure: string;
  /** The shop's API has no such order for this customer (it answered 404). */
  order_not_found: string;
  /** Too many order lookups with details that did not match: try later. */
  proof_limited: string;
}

/** The sign-in hint of a refusal: the shop's own sentence in the customer's language, quoted for the model, else SIGN_IN_HINT. */
export function signInHint(identity: Pick<ConversationIdentity, 'sentences'>): string {
  return identity.sentences ? `Tell the customer, in these words: "${identity.sentences.sign_in}"` : SIGN_IN_HINT;
}
