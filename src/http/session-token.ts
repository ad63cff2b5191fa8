import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Per-session tokens, so a customer's browser can read back its own conversation
 * and nobody else's. A token is an HMAC of the session id, so nothing is stored
 * and every instance that shares the secret can check it.
 */
export class SessionTokens {
  constructor(private readonly secret: string) {}

  issue(sessionId: string): string {
    return createHmac('sha256', this.secret).update(`session-token:${sessionId}`).digest('base64url');
  }

  /** Constant-time check of a presented token. */
  verify(sessionId: string, token: string | undefined): boolean {
    if (!token) return false;
    const expected = Buffer.from(this.issue(sessionId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

export const SESSION_TOKEN_HEADER = 'x-session-token';
