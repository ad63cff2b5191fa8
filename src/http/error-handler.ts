import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import {
  AppError,
  ClientStreamLimitError,
  ConversationErasedError,
  DatabaseUnavailableError,
  ExportLimitError,
  InstanceStreamLimitError,
  OrderProofLimitError,
} from '../errors';
import { loggedPath } from '../observability/http';
import type { Logger } from '../observability/logger';
import { sqlStateOf } from '../store/database';

/** Errors raised by express.json() (body-parser), by their documented `type`. */
const BODY_PARSER_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  'entity.parse.failed': { status: 400, code: 'invalid_json', message: 'The request body is not valid JSON.' },
  'entity.too.large': { status: 413, code: 'payload_too_large', message: 'The request body is too large.' },
  'encoding.unsupported': { status: 415, code: 'unsupported_encoding', message: 'The request body encoding is not supported.' },
  'charset.unsupported': { status: 415, code: 'unsupported_charset', message: 'The request body charset is not supported.' },
  'request.aborted': { status: 400, code: 'request_aborted', message: 'The request was aborted by the client.' },
};

/** Unknown routes answer 404 in the same JSON shape as every other error. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: { code: 'not_found', message: `No route for ${req.method} ${req.path}` } });
};

/**
 * The one place errors become responses: `{"error": {"code", "message"}}` for the
 * client, the cause in the log. Unexpected errors say nothing about internals.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const { status, code, message } = describeError(error);
    logFailure(logger, error, req, status, code);
    if (res.headersSent || res.destroyed) return;
    if (
      error instanceof DatabaseUnavailableError ||
      error instanceof OrderProofLimitError ||
      error instanceof ClientStreamLimitError ||
      error instanceof ExportLimitError ||
      error instanceof InstanceStreamLimitError
    )
      res.set('Retry-After', String(error.retryAfterSeconds));
    res.status(status).json({ error: { code, message } });
  };
}

/** 5xx with its cause at error level; a rejected request (4xx) at info. The route's pattern, never the path (it holds ids). */
export function logFailure(logger: Logger, error: unknown, req: Request, status: number, code: string): void {
  if (status >= 500) {
    const cause = (error as { cause?: unknown }).cause;
    logger.error({ err: error, cause, method: req.method, path: loggedPath(req), status, code }, 'Request failed');
  } else {
    const sqlstate = sqlStateOf(error);
    logger.info({ method: req.method, path: loggedPath(req), status, code, ...(sqlstate && { sqlstate }) }, 'Request rejected');
  }
}

/** The status, stable code and client-safe message for an error. */
export function describeError(error: unknown): { status: number; code: string; message: string } {
  if (error instanceof AppError) return { status: error.status, code: error.code, message: error.message };
  // Raised at commit when a write would bring an erased conversation back (migration 20261125000100).
  if (sqlStateOf(error) === 'ER410') return describeError(new ConversationErasedError());
  // Class 22 (data exception: a date or number out of range, bad text encoding) is
  // a value the request carried that the database refused: the client's to fix.
  if (sqlStateOf(error)?.startsWith('22')) {
    return { status: 400, code: 'invalid_value', message: 'A value in the request is out of range or malformed.' };
  }
  const type = (error as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && BODY_PARSER_ERRORS[type]) return BODY_PARSER_ERRORS[type];
  // Express and body-parser mark client mistakes they detect (a bad %-escape in a path,
  // a body that is not the gzip it claims) with a 4xx status meant to be shown.
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  const clientMistake = expose === true || error instanceof URIError;
  if (clientMistake && typeof status === 'number' && status >= 400 && status < 500) {
    return { status, code: 'bad_request', message: 'The request could not be read: check its path, encoding and body.' };
  }
  return { status: 500, code: 'internal_error', message: 'Something went wrong on our side. Please try again.' };
}
