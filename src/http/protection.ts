import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { rateLimit, type Logger as RateLimitLogger } from 'express-rate-limit';
import type { Logger } from '../observability/logger';
import { DatabaseRateLimitStore, RateLimitStoreError, type RateLimitCounters } from '../store/rate-limit-store';

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
 * answering 429 with Retry-After and the usual JSON error. With `counters`, the
 * hits are counted in the database, so every instance over it enforces the same
 * limit; without, in this process (enough for one instance). Should the database
 * fail, a request goes through uncounted: it is chat's to answer 503, not the
 * limiter's to answer 500.
 */
export function chatRateLimits(settings: RateLimitSettings, logger: Logger, counters?: RateLimitCounters): RequestHandler[] {
  const common = {
    windowMs: settings.windowMs,
    standardHeaders: 'draft-7' as const,
    legacyHeaders: false,
    handler: tooManyRequests,
    passOnStoreError: true,
    logger: rateLimitLogger(logger),
  };
  // Distinct prefixes: a client address and a session id never share a counter.
  const store = (prefix: string) => (counters ? new DatabaseRateLimitStore(counters, prefix) : undefined);
  return [
    rateLimit({ ...common, limit: settings.perClient, store: store('chat-client:') }),
    rateLimit({
      ...common,
      limit: settings.perSession,
      store: store('chat-session:'),
      keyGenerator: (req) => sessionIdOf(req)!,
      // A request without a session id starts a new one: only the per-client limit applies.
      skip: (req) => sessionIdOf(req) === null,
    }),
  ];
}

/** The limiter's messages in the service's log; a failing database is a warning, since the request is let through. */
function rateLimitLogger(logger: Logger): RateLimitLogger {
  return {
    warn: (error, message) => logger.warn({ err: error }, message ?? 'express-rate-limit warning'),
    error: (error, message) =>
      error instanceof RateLimitStoreError
        ? logger.warn({ err: error }, 'Rate limits not counted for this request: the database could not count it')
        : logger.error({ err: error }, message ?? 'express-rate-limit error'),
  };
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
