import pino, { type DestinationStream, type Logger } from 'pino';
import { currentRequestId } from './request-context';

export type { Logger };

/**
 * Structured JSON logs on stdout (or `destination`). Customers' words are never
 * logged at info level. Every line written while a request is served carries its
 * request_id (the X-Request-Id header), however far from the route it is written.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'support-agent' },
    mixin(_object, _level, logger) {
      const requestId = currentRequestId();
      // pino-http's request logger binds request_id itself: one is enough.
      if (!requestId || 'request_id' in (logger as Logger).bindings()) return {};
      return { request_id: requestId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
