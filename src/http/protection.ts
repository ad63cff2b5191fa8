import cors from 'cors';
import type { Request, RequestHandler } from 'express';
import { rateLimit, type Logger as RateLimitLogger } from 'express-rate-limit';
import { AppError } from '../errors';
import { loggedPath, logWhenAnswered } from '../observability/http';
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
    // DELETE: a customer erases their conversation from the widget.
    methods: ['GET', 'POST', 'DELETE'],
    // X-Customer-Token: the shop's signed token for its signed-in customer (data-user-token).
    allowedHeaders: ['Content-Type', 'X-Session-Token', 'X-Customer-Token', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['Retry-After', 'X-Request-Id'],
    maxAge: 600,
  });
}

/**
 * Refuses, before anything else runs, a browser's request to the widget's endpoints
 * from a page whose origin is neither the service's own nor in WIDGET_ALLOWED_ORIGINS:
 * 403 `origin_not_allowed`, logged at warn with the origin and the setting that would
 * allow it. The browser would hide the answer from that page anyway; refusing it here
 * means a refused origin costs no model call and stores nothing. A preflight (OPTIONS)
 * is logged the same and left to CORS, which answers it without permission. Requests
 * without an Origin header (servers, curl) are not a browser's and go on.
 */
export function refuseOtherOrigins(allowedOrigins: string[], logger: Logger): RequestHandler {
  const allowed = new Set(allowedOrigins);
  return (req, _res, next) => {
    const origin = req.get('origin');
    if (origin === undefined || allowed.has(origin) || isOwnOrigin(origin, req)) return next();
    logger.warn(
      { event: 'cors_refused', origin, path: loggedPath(req), method: req.method },
      `Refused a widget request from ${origin}: add it to WIDGET_ALLOWED_ORIGINS (comma-separated) to embed the widget on that site`,
    );
    if (req.method === 'OPTIONS') return next();
    next(new AppError(403, 'origin_not_allowed', `Pages on ${origin} may not call this service. Its operator can allow them in WIDGET_ALLOWED_ORIGINS.`));
  };
}

/** The service's own pages (the demo page, the console): the Origin's host is the one the request was sent to. */
function isOwnOrigin(origin: string, req: Request): boolean {
  if (!URL.canParse(origin)) return false;
  const host = new URL(origin).host;
  return host === req.get('host') || host === req.host;
}

/**
 * Two limits on the chat endpoints: per client address and per session, each
 * answering 429 with Retry-After and the usual JSON error. With `counters`, the
 * hits are counted in the database, so every instance over it enforces the same
 * limit; without, in this process (enough for one instance). Should the database
 * fail, a request goes through uncounted: it is chat's to answer 503, not the
 * limiter's to answer 500.
 */
export function chatRateLimits(
  settings: RateLimitSettings,
  logger: Logger,
  provesSession: (req: Request, sessionId: string) => Promise<boolean>,
  counters?: RateLimitCounters,
): RequestHandler[] {
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
      // Only requests that prove the session (its token, or the agent key) count against
      // it: a stranger naming someone's session with a wrong token is refused (403) and
      // counted per client, never against the session, so it cannot lock the owner out.
      // A request without a session id, or naming one it cannot prove (a new one), is
      // under the per-client limit alone.
      skip: async (req) => {
        const sessionId = sessionIdOf(req);
        // A token that cannot be checked now (the database is down) proves nothing; the request fails on its own.
        return sessionId === null || !(await provesSession(req, sessionId).catch(() => false));
      },
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

export interface AuthFailureSettings {
  /** Wrong agent keys one client may present per window (AUTH_FAILURES_PER_CLIENT). */
  perClient: number;
  windowMs: number;
  /** The counters in the database: failures are counted there on every backend. */
  counters: Pick<RateLimitCounters, 'peek' | 'hit'>;
  /** Whether the request carries the right agent key. */
  isAgent: (req: Request) => boolean;
}

/**
 * Limits guessing of the agent key. A request that presents a key (Authorization)
 * is refused with 429 once its client has presented `perClient` wrong keys in the
 * window, before its key is even checked, so a client over the limit learns
 * nothing, not even with the right key. Each wrong key is counted per client
 * address in the database and logged as a security event (the address and the
 * route's pattern, never the key or the path's ids). Requests without a key pass untouched; the routes decide what
 * a wrong key means (401 on the agent endpoints, a public caller on chat). Should
 * the database fail, the request goes on uncounted, as with the other limits.
 */
export function agentKeyFailureLimit(settings: AuthFailureSettings, logger: Logger): RequestHandler {
  return async (req, res, next) => {
    if (req.get('authorization') === undefined) return next();
    const key = `agent-key-failures:${req.ip ?? 'unknown'}`;
    try {
      if ((await settings.counters.peek(key, settings.windowMs)) >= settings.perClient) {
        refuseGuessing(req, res, settings, logger);
        return;
      }
      if (settings.isAgent(req)) return next();
      const { hits } = await settings.counters.hit(key, settings.windowMs);
      // Logged once answered, when the route is known: the path itself may hold a customer or session id.
      logWhenAnswered(req, res, () =>
        logger.warn(
          { security_event: 'agent_key_rejected', client: req.ip, method: req.method, path: loggedPath(req), failures: hits, limit: settings.perClient },
          'A wrong agent key was presented',
        ),
      );
    } catch (error) {
      logger.warn({ err: error }, 'Wrong agent keys not counted for this request: the database could not count them');
    }
    next();
  };
}

function refuseGuessing(req: Request, res: Parameters<RequestHandler>[1], settings: AuthFailureSettings, logger: Logger): void {
  const seconds = Math.ceil(settings.windowMs / 1000);
  logger.warn({ security_event: 'agent_key_guessing_blocked', client: req.ip, method: req.method, path: loggedPath(req) }, 'Refused a keyed request: too many wrong agent keys from this client');
  res
    .status(429)
    .set('Retry-After', String(seconds))
    .json({ error: { code: 'too_many_failed_keys', message: `Too many wrong agent keys from this address. Try again in up to ${seconds} s.` } });
}
