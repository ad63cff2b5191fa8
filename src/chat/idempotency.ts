import { createHash, randomUUID } from 'node:crypto';
import { IdempotencyInProgressError, IdempotencyKeyReusedError, ValidationError } from '../errors';
import type { Logger } from '../observability/logger';
import type { IdempotencyClaimToken, IdempotencyStore } from '../store/types';
import type { ChatAnswer, ChatOutcome, ChatRequest } from './answer-types';
import type { QueuedMessage } from './handoff';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set on an answer that was stored by an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** A UUID fits, as does any client-made token up to 255 characters without spaces or quotes. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.:+/=-]{1,255}$/;

/**
 * A claim not completed within this time is taken to belong to a request whose
 * instance died, and a retry may take it over. Longer than any request can run
 * (model timeouts, a few tool rounds); if the first request does finish later,
 * its turn is refused (IdempotencyKeyLostError), so a turn is still stored once.
 */
const LEASE_SECONDS = 300;

/** How often a duplicate asks whether the first request has finished: quickly at first, then every 250 ms. */
const POLL_START_MS = 20;
const POLL_MAX_MS = 250;

export interface IdempotencyParts {
  store: IdempotencyStore;
  /** IDEMPOTENCY_KEY_TTL_HOURS: how long a key is remembered after its first use. */
  ttlHours: number;
  /** IDEMPOTENCY_WAIT_MS: how long a duplicate of a request in progress waits for its answer (0: 409 at once). */
  waitMs: number;
  logger: Logger;
}

/** What to do with a request that carries an Idempotency-Key. */
export type IdempotentStart =
  /** Answer again with what the first request with this key got. */
  | { replay: ChatOutcome }
  /** Answer again 202: the first request's message was queued for the person holding the conversation. */
  | { replayQueued: QueuedMessage }
  /** Run it: the request carries the claim, which storing its turn completes. */
  | { request: ChatRequest; claim: IdempotencyClaimToken };

/**
 * Idempotency-Key handling for the chat endpoints. The key is claimed in the
 * database before the model is called and completed in the statement that stores
 * the turn, so with any number of instances a key yields one stored turn: a retry
 * after it gets the stored answer; a duplicate arriving while it runs waits for it
 * (at most waitMs) or is told 409 idempotency_in_progress; the same key with
 * another body is refused with 422 idempotency_key_reused.
 */
export class IdempotentRequests {
  constructor(private readonly parts: IdempotencyParts) {}

  /** The request's key: undefined without the header, 400 when it is malformed. */
  static readKey(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
      throw new ValidationError(`${IDEMPOTENCY_KEY_HEADER} must be 1–255 characters of letters, digits and - _ . : + / = (a UUID is ideal)`);
    }
    return value;
  }

  /**
   * `scope` is who the caller is, where that is known (see idempotencyScope): the
   * key is stored as a digest of scope and key, so another caller reusing the key
   * makes a new request, never a replay of someone else's answer, and the database
   * never holds the key itself.
   *
   * The key's record belongs to the session the request runs in, so a request that
   * starts a conversation gets its session id here, before the claim (the digest is
   * of the request as sent, so a retry of it still matches).
   */
  async begin(key: string, request: ChatRequest, scope: string): Promise<IdempotentStart> {
    const { store, ttlHours, waitMs, logger } = this.parts;
    const requestHash = fingerprint(request);
    const storedKey = scopedKey(scope, key);
    const sessionId = request.sessionId ?? randomUUID();
    const options = { ttlSeconds: Math.round(ttlHours * 3600), leaseSeconds: LEASE_SECONDS };
    const deadline = performance.now() + waitMs;
    for (let pause = POLL_START_MS; ; pause = Math.min(pause * 2, POLL_MAX_MS)) {
      const found = await store.claimIdempotencyKey(storedKey, requestHash, sessionId, options);
      switch (found.outcome) {
        case 'claimed':
          return { request: { ...request, sessionId, idempotency: found.claim }, claim: found.claim };
        case 'completed':
          // A message queued for a person is kept as {"queued": {...}} (migration 20261125000200).
          if ('queued' in found.response) {
            const queued = found.response['queued'] as QueuedMessage;
            logger.info({ idempotency_key_hash: keyHash(key), session_id: queued.session_id }, 'Replayed a queued message for a repeated Idempotency-Key');
            return { replayQueued: queued };
          }
          logger.info({ idempotency_key_hash: keyHash(key), session_id: found.response['session_id'] }, 'Replayed a stored answer for a repeated Idempotency-Key');
          return { replay: { answer: found.response as unknown as ChatAnswer, sessionCreated: found.sessionCreated } };
        case 'mismatch':
          logger.info({ idempotency_key_hash: keyHash(key) }, 'Refused an Idempotency-Key reused with another request');
          throw new IdempotencyKeyReusedError();
        case 'in_progress':
          if (performance.now() + pause > deadline) throw new IdempotencyInProgressError();
          await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Runs the claimed request; when it fails, the key is given up so that a retry runs it again. */
  async run<T>(start: { claim: IdempotencyClaimToken }, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await this.parts.store.releaseIdempotencyKey(start.claim).catch((releaseError: unknown) => {
        // The claim then lapses after LEASE_SECONDS instead.
        this.parts.logger.warn({ err: releaseError, idempotency_key_hash: start.claim.key.slice(0, 12) }, 'Could not release an idempotency key');
      });
      throw error;
    }
  }
}

/**
 * Who is asking, for scoping Idempotency-Keys: the agent key's holder, a verified
 * customer (X-Customer-Token), the holder of a session's token, or the public (a
 * visitor starting a conversation, whom nothing identifies yet: their key is the
 * secret of the new conversation).
 */
export function idempotencyScope(caller: { agent: boolean; customerId?: string; provenSessionId?: string }): string {
  if (caller.agent) return 'agent';
  if (caller.customerId !== undefined) return `customer:${caller.customerId}`;
  return caller.provenSessionId === undefined ? 'public' : `session:${caller.provenSessionId}`;
}

/** The form a key is stored in: sha256 of scope and key, hex. */
function scopedKey(scope: string, key: string): string {
  return createHash('sha256').update(`${scope}\n${key}`).digest('hex');
}

/**
 * A key as logs show it: the first 12 hex digits of its sha256, enough to find a
 * client's retries (a client can compute it), useless to replay the key.
 */
export function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

/** The request's digest: the same fields with the same values give the same hash, whatever their order. */
export function fingerprint(request: ChatRequest): string {
  // The client's address is not part of the request: a retry may come over another network.
  // Nor is the browser's language (Accept-Language), which the same retry may send otherwise.
  const { idempotency: _claim, clientAddress: _address, widgetLanguage: _widget, ...fields } = request;
  return createHash('sha256').update(stableJson(fields)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
