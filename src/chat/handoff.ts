import { AppError, NotFoundError } from '../errors';
import type { TokenCounter } from '../memory/tokens';
import type { RedactionCounts } from '../privacy/redaction';
import type { Logger } from '../observability/logger';
import { ReplyRefusedError, type HandoffStore } from '../store/handoff-store';
import type { IdempotencyClaimToken, StoredMessage } from '../store/types';
import type { ConversationFeed } from './conversation-feed';
import type { SupportAvailability, SupportHours } from './support-hours';
import { DEFAULT_LABELS, fill } from '../shop/widget-labels';

/** Who wrote a message, as the history, the read-back and the event stream show it. */
export type MessageAuthor = { type: 'customer' } | { type: 'bot' } | { type: 'human'; name: string } | { type: 'system' };

/** A person's reply carries its author in metadata; everything else follows from the role. */
export function authorOf(m: StoredMessage): MessageAuthor {
  const author = m.metadata['author'] as { type?: unknown; name?: unknown } | undefined;
  if (m.role === 'assistant' && author?.type === 'human' && typeof author.name === 'string') return { type: 'human', name: author.name };
  if (m.role === 'user') return { type: 'customer' };
  if (m.role === 'system') return { type: 'system' };
  return { type: 'bot' };
}

/** The handler change a takeover or release note records, or null for any other message. */
export function handoffOf(m: StoredMessage): { handler: 'bot' | 'human'; agent_name: string | null } | null {
  const handoff = m.metadata['handoff'] as { handler?: unknown; agent_name?: unknown } | undefined;
  if (m.role !== 'system' || (handoff?.handler !== 'bot' && handoff?.handler !== 'human')) return null;
  return { handler: handoff.handler, agent_name: typeof handoff.agent_name === 'string' ? handoff.agent_name : null };
}

/** A customer's message stored while a person holds the conversation (no model was called). */
export interface QueuedMessage {
  session_id: string;
  handler: 'human';
  agent_name: string;
  message_id: string;
  /** What was masked in the message before it was stored (REDACT); absent when nothing was. */
  redacted?: RedactionCounts;
}

/** A stored customer message queued for a person (metadata.queued_for names them), as the client is told of it. */
export function queuedMessageOf(stored: StoredMessage): QueuedMessage {
  const redacted = stored.metadata['redacted'] as RedactionCounts | undefined;
  return {
    session_id: stored.sessionId,
    handler: 'human',
    agent_name: String(stored.metadata['queued_for'] ?? ''),
    message_id: stored.id,
    ...(redacted && { redacted }),
  };
}

export interface HandoffParts {
  store: HandoffStore;
  feed: ConversationFeed;
  tokenCounter: TokenCounter;
  supportHours: SupportHours;
  logger: Logger;
}

/**
 * A conversation answered by a person: takeover, the person's replies, release,
 * and the customer's messages while a person holds it. Every change is one SQL
 * function call (the session row lock decides races between instances); this
 * process's event streams are woken at once, other instances' by the feed.
 */
export class HandoffService {
  constructor(private readonly parts: HandoffParts) {}

  /** 404 unknown session; 409 `conversation_held` when another person holds it and `force` is not set. */
  async takeOver(sessionId: string, agentName: string, force: boolean): Promise<{ session_id: string; handler: 'human'; agent_name: string }> {
    // Stored in English for the console and the audit; customers' pages write the note in their own language from `handoff`.
    const content = fill(DEFAULT_LABELS.joined, { name: agentName });
    const change = await this.parts.store.takeOver(sessionId, agentName, force, {
      role: 'system',
      content,
      tokenCount: this.count(content),
      metadata: { handoff: { handler: 'human', agent_name: agentName } },
    });
    if (change.outcome === 'not_found') throw noSuchConversation(sessionId);
    if (change.outcome === 'held') {
      throw new AppError(409, 'conversation_held', `${change.agentName} holds this conversation. Send "force": true to take it over anyway.`);
    }
    if (change.outcome === 'changed') {
      this.parts.logger.info({ session_id: sessionId, agent_name: agentName, previous_agent_name: change.previousAgentName }, 'A person took over the conversation');
      this.parts.feed.touch(sessionId);
    }
    return { session_id: sessionId, handler: 'human', agent_name: agentName };
  }

  /** 404 unknown session. Releasing a conversation the bot already answers changes nothing. */
  async release(sessionId: string): Promise<{ session_id: string; handler: 'bot' }> {
    const content = DEFAULT_LABELS.handed_back;
    const change = await this.parts.store.release(sessionId, {
      role: 'system',
      content,
      tokenCount: this.count(content),
      metadata: { handoff: { handler: 'bot', agent_name: null } },
    });
    if (change.outcome === 'not_found') throw noSuchConversation(sessionId);
    if (change.outcome === 'changed') {
      this.parts.logger.info({ session_id: sessionId, previous_agent_name: change.previousAgentName }, 'The conversation went back to the bot');
      this.parts.feed.touch(sessionId);
    }
    return { session_id: sessionId, handler: 'bot' };
  }

  /**
   * Stores a person's reply (an assistant message authored by the holder). With
   * `agentName`, only while that person holds it. 404 unknown session, 409
   * `not_held` (the bot answers it) or `conversation_held` (someone else holds it).
   */
  async reply(sessionId: string, content: string, agentName: string | null): Promise<StoredMessage> {
    try {
      const stored = await this.parts.store.appendHumanReply(sessionId, agentName, { role: 'assistant', content, tokenCount: this.count(content) });
      this.parts.feed.touch(sessionId);
      return stored;
    } catch (error) {
      if (!(error instanceof ReplyRefusedError)) throw error;
      if (error.reason === 'not_found') throw noSuchConversation(sessionId);
      if (error.reason === 'held_by_bot') throw new AppError(409, 'not_held', 'The bot answers this conversation: take it over first.');
      throw new AppError(409, 'conversation_held', 'Another person holds this conversation now; your reply was not sent.');
    }
  }

  /**
   * While a person holds the session: stores the customer's message and returns
   * what the client gets (202), completing the request's Idempotency-Key claim if
   * it has one. Else null, nothing stored: the bot answers.
   */
  async queueIfHeld(sessionId: string, message: string, claim?: IdempotencyClaimToken, redacted?: RedactionCounts): Promise<QueuedMessage | null> {
    const stored = await this.parts.store.queueCustomerMessage(
      sessionId,
      { role: 'user', content: message, tokenCount: this.count(message), ...(redacted && { metadata: { redacted } }) },
      claim,
    );
    if (!stored) return null;
    this.parts.feed.touch(sessionId);
    return queuedMessageOf(stored);
  }

  availability(): SupportAvailability {
    return this.parts.supportHours.availability();
  }

  private count(content: string): number {
    return this.parts.tokenCounter.countMessage({ content });
  }
}

function noSuchConversation(sessionId: string): NotFoundError {
  return new NotFoundError(`No conversation with session_id "${sessionId}".`);
}
