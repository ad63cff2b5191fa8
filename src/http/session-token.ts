import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A secret that signed tokens before a rotation, accepted (never used to sign) until `until`. */
export interface PreviousSecret {
  secret: string;
  until: Date;
}

/**
 * Where a session's token nonce is kept (the database: every instance sees the
 * same): null for a conversation made before nonces existed, undefined when there
 * is no such conversation.
 */
export interface SessionTokenNonces {
  sessionTokenNonce(sessionId: string): Promise<string | null | undefined>;
}

/** A nonce as the database makes it (32 hex digits); a token carries it before its signature. */
const NONCE = /^[0-9a-f]{32}$/;

/**
 * Per-session tokens, so a customer's browser can read back its own conversation
 * and nobody else's. A token is an HMAC under the session-token secret
 * (SESSION_TOKEN_SECRET, its own secret, not the agent key) of the session id and
 * the conversation's nonce, a random value the database gives each conversation
 * when it is created: `<nonce>.<hmac>`. Nothing is stored per token and every
 * instance that shares the secret and the database can check one.
 *
 * The nonce is what makes an erasure final for tokens: a conversation created
 * again under an erased id gets a new nonce, so the erased one's tokens no longer
 * open it. A token is accepted when its signature is right and the conversation it
 * names carries its nonce (or does not exist: then it opens nothing, and the
 * caller answers 404 or starts the conversation). Conversations made before nonces
 * existed (null nonce) keep their tokens of the id alone until they are erased.
 *
 * After a rotation the previous secret's tokens stay valid until its date; every
 * answer carries a token made with the current secret, so an active conversation
 * moves over.
 */
export class SessionTokens {
  constructor(
    private readonly secret: string,
    private readonly previous: PreviousSecret | null,
    private readonly nonces: SessionTokenNonces,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A token for the session as it is stored now (call it after the conversation is stored). */
  async issue(sessionId: string): Promise<string> {
    return tokenFor(this.secret, sessionId, (await this.nonces.sessionTokenNonce(sessionId)) ?? null);
  }

  /** Constant-time check of a presented token, then whether it was made for this conversation (not an erased one of the same id). */
  async verify(sessionId: string, token: string | undefined): Promise<boolean> {
    if (!token) return false;
    const dot = token.indexOf('.');
    const nonce = dot === -1 ? null : token.slice(0, dot);
    if (nonce !== null && !NONCE.test(nonce)) return false;
    if (!this.signedHere(sessionId, nonce, token)) return false;
    const current = await this.nonces.sessionTokenNonce(sessionId);
    return current === undefined || current === nonce;
  }

  private signedHere(sessionId: string, nonce: string | null, token: string): boolean {
    if (sameText(token, tokenFor(this.secret, sessionId, nonce))) return true;
    return this.previous !== null && this.now() < this.previous.until && sameText(token, tokenFor(this.previous.secret, sessionId, nonce));
  }
}

/** `<nonce>.<hmac of id and nonce>`, or (a conversation without a nonce) the hmac of the id alone, as tokens were made before. */
function tokenFor(secret: string, sessionId: string, nonce: string | null): string {
  if (nonce === null) return createHmac('sha256', secret).update(`session-token:${sessionId}`).digest('base64url');
  return `${nonce}.${createHmac('sha256', secret).update(`session-token:${sessionId}:${nonce}`).digest('base64url')}`;
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new random secret for service_secrets: 32 bytes, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The name the generated session-token secret is kept under in service_secrets. */
export const SESSION_TOKEN_SECRET_NAME = 'session_token_secret';

export const SESSION_TOKEN_HEADER = 'x-session-token';
