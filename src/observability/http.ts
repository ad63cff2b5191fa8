import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
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
 * response), logs it when it completes (pino-http: method, path, status, time; no
 * headers, no query, no body, as they carry keys, tokens and customers' words), and
 * makes the id reach every log line written while it is served.
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
    customAttributeKeys: { reqId: 'request_id' },
    serializers: {
      req: (req: { method: string; url: string; raw?: Request }) => ({ method: req.method, path: pathOf(req.raw ?? req) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    // Answers the client caused are not the service's errors.
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
  });
  return (req, res, next) => {
    http(req, res);
    runInRequest(String(req.id), next);
  };
}

/** The path as the client sent it (a router rewrites req.url), without the query: it can hold search text. */
function pathOf(req: { url?: string; originalUrl?: string }): string {
  return (req.originalUrl ?? req.url ?? '').split('?')[0]!;
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
    const route = captureRoute(req);
    res.once('close', () => {
      metrics.recordRequest(req.method, route.label, res.statusCode, (performance.now() - startedAt) / 1000);
    });
    next();
  };
}

/**
 * The matched route's pattern (/api/v1/chat/history/:session_id), never the raw
 * path, so labels stay few; "unmatched" for 404s and static files. Taken when the
 * router sets req.route, since by the time the response closes a failed request
 * has left its router and req.baseUrl no longer says where it was mounted.
 */
function captureRoute(req: Request): { label: string } {
  const captured = { label: 'unmatched' };
  let value: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => value,
    set: (route: { path?: unknown } | undefined) => {
      value = route;
      if (route && typeof route.path === 'string') captured.label = `${req.baseUrl}${route.path}`;
    },
  });
  return captured;
}
