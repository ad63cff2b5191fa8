import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { runInRequest } from './request-context';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept when it is this tame (a proxy's or a client's); otherwise the service makes one. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** The id of a request: the client's X-Request-Id when sane, else a new UUID. Set once per request. */
function requestIdOf(req: Request): string {
  const given = req.get(REQUEST_ID_HEADER);
  return given && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * First middleware: gives the request its id (X-Request-Id, echoed in the
 * response), logs it when it completes (pino-http: method, route, status, time;
 * no headers, no query, no body, as they carry keys, tokens and customers' words),
 * and makes the id reach every log line written while it is served. The line
 * names the route's pattern (`/api/v1/customers/:user_id`), never the path, which
 * holds customer and session ids; and the customer's pseudonym where the route
 * named one (logCustomerPseudonym).
 */
export function requestLogging(logger: Logger): RequestHandler {
  const http = pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestIdOf(req as Request);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    // req.log and the completion line carry request_id bound (the logger's mixin then adds none).
    quietReqLogger: true,
    // The request goes on the completion line itself (below), serialized when the line is
    // written, once the route is known; a logger bound at the start would show the raw path.
    quietResLogger: true,
    customSuccessObject: (req, _res, line) => ({ req, ...line }),
    customErrorObject: (req, _res, _error, line) => ({ req, ...line }),
    customAttributeKeys: { reqId: 'request_id' },
    serializers: {
      req: (req: { method: string; raw?: Request }) => ({ method: req.method, path: req.raw ? loggedPath(req.raw) : '' }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    // Called when the line is written, after the route named its customer.
    customProps: (_req, res) => {
      const customer = customerPseudonyms.get(res);
      return customer ? { customer } : {};
    },
    // Answers the client caused are not the service's errors.
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: (req, res) => `${req.method} ${loggedPath(req as Request)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${loggedPath(req as Request)} ${res.statusCode}`,
  });
  return (req, res, next) => {
    routeCapture(req);
    http(req, res);
    runInRequest(String(req.id), next);
  };
}

/** The customer each response concerns, as a pseudonym, for its access log line. */
const customerPseudonyms = new WeakMap<object, string>();

/** Names the customer a request concerns on its access log line: by pseudonym (src/privacy/pseudonym.ts), never the raw id. */
export function logCustomerPseudonym(res: Response, pseudonym: string): void {
  customerPseudonyms.set(res, pseudonym);
}

/**
 * The request's path as logs may show it: the matched route's pattern
 * (`/api/v1/chat/history/:session_id`), so no customer or session id reaches a log
 * line. Before a route matched (a 404, a body that is not JSON), only the first
 * segment (`/api/…`): the API's ids never sit there.
 */
export function loggedPath(req: Request): string {
  const route = routeCapture(req).label;
  if (route !== null) return route;
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0]!;
  const second = path.indexOf('/', 1);
  return second === -1 ? path : `${path.slice(0, second)}/…`;
}

/**
 * Runs `log` once the response is answered (or the client went away), in the
 * request's context: a line about a request written before its route matched (a
 * wrong agent key) then names the route (loggedPath) and carries the request id.
 */
export function logWhenAnswered(req: Request, res: Response, log: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    runInRequest(String(req.id), log);
  };
  res.once('finish', once).once('close', once);
}

/**
 * Re-enters the request's context. express.json() calls next from the socket's
 * stream events, where the context of the first middleware is lost, so this runs
 * right after the body parser (and its twin before the error handler).
 */
export const keepRequestContext: RequestHandler = (req, _res, next) => {
  runInRequest(String(req.id), next);
};

export const keepRequestContextOnError: ErrorRequestHandler = (error, req, _res, next) => {
  runInRequest(String(req.id), () => next(error));
};

/**
 * http_request_duration_seconds by method, route pattern and status, observed when
 * the response is finished (a stream: its last byte) or the client went away.
 */
export function requestMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const startedAt = performance.now();
    const route = routeCapture(req);
    res.once('close', () => {
      metrics.recordRequest(req.method, route.label ?? 'unmatched', res.statusCode, (performance.now() - startedAt) / 1000);
    });
    next();
  };
}

/** Each request's route pattern, once a router matched it. */
const capturedRoutes = new WeakMap<object, { label: string | null }>();

/**
 * The matched route's pattern (/api/v1/chat/history/:session_id), never the raw
 * path, so metric labels stay few and logs hold no ids; null until a route
 * matched (404s, static files). Taken when the router sets req.route, since by
 * the time the response closes a failed request has left its router and
 * req.baseUrl no longer says where it was mounted. Installed once per request,
 * by whichever middleware asks first.
 */
function routeCapture(req: Request): { label: string | null } {
  const existing = capturedRoutes.get(req);
  if (existing) return existing;
  const captured: { label: string | null } = { label: null };
  capturedRoutes.set(req, captured);
  let value: unknown = req.route;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => value,
    set: (route: { path?: unknown } | undefined) => {
      value = route;
      if (route && typeof route.path === 'string') captured.label = `${req.baseUrl}${route.path}`;
      // A route of several literal paths (['/health', '/health/ready']): the one matched holds no id.
      else if (Array.isArray(route?.path) && route.path.every((p) => typeof p === 'string' && !/[:*?(]/.test(p))) captured.label = `${req.baseUrl}${req.path}`;
    },
  });
  return captured;
}
