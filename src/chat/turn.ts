import type { Redactor } from '../privacy/redaction';
import type { AnswerListener, ChatOutcome, ChatRequest } from './answer-types';
import type { ChatService } from './chat-service';
import type { HandoffService, QueuedMessage } from './handoff';
import { IdempotentRequests } from './idempotency';

/** One customer message as the chat endpoints hand it over. */
export interface TurnRequest {
  /** The validated request. */
  request: ChatRequest;
  /** The Idempotency-Key header as sent (checked here: 400 when malformed), and who is asking (see idempotencyScope). */
  idempotencyKey?: string;
  idempotencyScope: string;
}

/** How a turn ended. */
export type TurnResult =
  /** The bot answered, and the turn is stored. */
  | { kind: 'answered'; outcome: ChatOutcome }
  /** An earlier request with the same Idempotency-Key was answered: its answer again, nothing new stored. */
  | { kind: 'replayed'; outcome: ChatOutcome }
  /**
   * A person holds the conversation: the message is stored for them and no answer
   * is (202). Also when a person took it over while the bot's answer was being
   * made: that answer is dropped. `replayed`: an earlier request with the same
   * Idempotency-Key queued it.
   */
  | { kind: 'queued'; queued: QueuedMessage; replayed?: boolean };

/** A streamed turn's listener: `onAnswering` once the model is about to be called (the stream may open then). */
export interface TurnListener extends AnswerListener {
  onAnswering?(): void;
}

export interface ChatTurnsParts {
  chatService: Pick<ChatService, 'answer' | 'bindCustomer'>;
  handoff: HandoffService;
  idempotency: IdempotentRequests;
  /** REDACT: masks card numbers (and IBANs) in the message before anything else sees it. */
  redactor: Redactor;
}

/**
 * One customer turn, in order: who holds the conversation, the Idempotency-Key,
 * the answer, and its storage. The chat routes translate HTTP into take() and
 * its result back into HTTP; everything a turn decides is here.
 */
export class ChatTurns {
  constructor(private readonly parts: ChatTurnsParts) {}

  async take(turn: TurnRequest, signal?: AbortSignal, listener?: TurnListener): Promise<TurnResult> {
    const { chatService, handoff, idempotency, redactor } = this.parts;

    // 0. Redaction, before anything stores, sends, logs or traces the message (the key's
    //    fingerprint included): a card number becomes `[card ending 4242]`.
    const { text, found } = redactor.redact(turn.request.message);
    let request: ChatRequest = Object.keys(found).length > 0 ? { ...turn.request, message: text, redacted: found } : turn.request;

    // 1. With an Idempotency-Key, first: the stored answer (or queued message) of an earlier
    //    request with that key, or the claim to run this one (a duplicate in progress waits,
    //    then 409). Everything after stores under the claim, so a retry stores nothing again.
    const key = IdempotentRequests.readKey(turn.idempotencyKey);
    const start = key ? await idempotency.begin(key, request, turn.idempotencyScope) : null;
    if (start && 'replay' in start) return { kind: 'replayed', outcome: start.replay };
    if (start && 'replayQueued' in start) return { kind: 'queued', queued: start.replayQueued, replayed: true };
    if (start) request = start.request;

    const steps = async (): Promise<TurnResult> => {
      // 2. A person holds the conversation: store the message for them (completing the key), call
      //    no model. A signed-in customer is checked against the session's as for any message (403).
      if (request.sessionId && request.mayContinueSession) {
        if (request.customerId) await chatService.bindCustomer(request.sessionId, request.customerId);
        const queued = await handoff.queueIfHeld(request.sessionId, request.message, request.idempotency, request.redacted);
        if (queued) return { kind: 'queued', queued };
      }

      // 3. The answer, stored with the question (and completing the key) in one transaction, only
      //    while the bot still holds the conversation: after a takeover meanwhile only the question
      //    is stored, queued for the person, and the customer is told so instead of answered.
      listener?.onAnswering?.();
      const outcome = await chatService.answer(request, signal, listener);
      if (outcome.takenOver) return { kind: 'queued', queued: outcome.takenOver };
      return { kind: 'answered', outcome };
    };
    // A claimed key is given up when the turn fails, so that a retry runs again.
    return start ? idempotency.run({ claim: start.claim }, steps) : steps();
  }
}
