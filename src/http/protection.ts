import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';

export interface RateLimitSettings {
  windowMs: number;
  /** Chat requests one client address may make per window. */
  perClient: number;
  /** Chat requests into one session per window, whoever sends them. */
  perSession: number;
}

/**
 * CORS for the endpoints the widget calls: only the shops' origins in
 * WIDGET_ALLOWED_ORIGINS may call them from a browser (none: same origin only).
 * The review endpoints get no CORS at all; the console is served by us.
 */
export function widgetCors(allowedOrigins: string[]): RequestHandler {
  return cors({
    origin: allowedOrigins,
    methods: ['GET', 'POST'],
    allowedHeaders: ['Content-Type', 'X-Session-Token', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['Retry-After', 'X-Request-Id'],
    maxAge: 600,
  });
}

/**
 * Two limits on the chat endpoints: per client address and per session, each
 * answering 429 with Retry-After and the usual JSON error. Counted in this
 * process: behind N instances a client gets up to N times the limit.
 */
export function chatRateLimits(settings: RateLimitSettings): RequestHandler[] {
  const common = {
    windowMs: settings.windowMs,
    standardHeaders: 'draft-7' as const,
    legacyHeaders: false,
    handler: tooManyRequests,
  };
  return [
    rateLimit({ ...common, limit: settings.perClient }),
    rateLimit({
      ...common,
      limit: settings.perSession,
      keyGenerator: (req) => `session:${sessionIdOf(req)}`,
      // A request without a session id starts a new one: only the per-client limit applies.
      skip: (req) => sessionIdOf(req) === null,
    }),
  ];
}

function sessionIdOf(req: Request): string | null {
  const sessionId: unknown = (req.body as { session_id?: unknown } | undefined)?.session_id;
  return typeof sessionId === 'string' ? sessionId : null;
}

const tooManyRequests: RequestHandler = (req, res) => {
  const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
  const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : 60;
  res
    .status(429)
    .set('Retry-After', String(seconds))
    .json({ error: { code: 'rate_limited', message: `Too many messages. Please wait ${seconds} s and try again.` } });
};
