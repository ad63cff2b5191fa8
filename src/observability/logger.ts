import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout. Customers' words are never logged at info level. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'support-agent' } });
}
