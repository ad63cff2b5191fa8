import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A secret that signed tokens before a rotation, accepted (never used to sign) until `until`. */
export interface PreviousSecret {
  secret: string;
  until: Date;
}

/**
 * Per-session tokens, so a customer's browser can read back its own conversation
 * and nobody else's. A token is an HMAC of the session id under the session-token
 * secret (SESSION_TOKEN_SECRET, its own secret, not the agent key), so nothing is
 * stored and every instance that shares the secret can check it. After a rotation
 * the previous secret's tokens stay valid until its date; every answer carries a
 * token made with the current secret, so an active conversation moves over.
 */
export class SessionTokens {
  constructor(
    private readonly secret: string,
    private readonly previous: PreviousSecret | null = null,
    private readonly now: () => Date = () => new Date(),
  ) {}

  issue(sessionId: string): string {
    return sign(this.secret, sessionId);
  }

  /** Constant-time check of a presented token. */
  verify(sessionId: string, token: string | undefined): boolean {
    if (!token) return false;
    if (sameText(token, this.issue(sessionId))) return true;
    return this.previous !== null && this.now() < this.previous.until && sameText(token, sign(this.previous.secret, sessionId));
  }
}

function sign(secret: string, sessionId: string): string {
  return createHmac('sha256', secret).update(`session-token:${sessionId}`).digest('base64url');
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
