import express, { type Express } from 'express';
import helmet from 'helmet';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { chatRateLimits, widgetCors, type RateLimitSettings } from './http/protection';
import { chatRoutes, type ChatRoutesParts } from './http/routes/chat';
import { conversationRoutes } from './http/routes/conversations';
import { feedbackRoutes, type FeedbackRoutesParts } from './http/routes/feedback';
import { DEFAULT_PUBLIC_DIR, pagesRoutes } from './http/routes/pages';
import { healthRoutes, type HealthParts } from './http/routes/health';
import { keepRequestContext, keepRequestContextOnError, requestLogging, requestMetrics } from './observability/http';
import type { Logger } from './observability/logger';
import type { Metrics } from './observability/metrics';
import type { RateLimitCounters } from './store/rate-limit-store';

export interface AppParts {
  chat: ChatRoutesParts;
  health: HealthParts;
  feedback: FeedbackRoutesParts;
  metrics: Metrics;
  logger: Logger;
  /** Origins whose pages may call the chat endpoints from a browser (WIDGET_ALLOWED_ORIGINS). */
  widgetOrigins: string[];
  rateLimits: RateLimitSettings;
  /** The database's rate-limit counters, shared by every instance (RATE_LIMIT_STORE=database); absent: counted in this process. */
  rateLimitCounters?: RateLimitCounters;
  /** Express's `trust proxy`: how many proxies to believe for the client address (TRUST_PROXY). */
  trustProxy: number;
}

/** JSON bodies above this are refused with 413; a chat message is far smaller. */
export const JSON_BODY_LIMIT = '100kb';

/** What the widget calls from shops' pages; only these answer cross-origin requests. */
const WIDGET_ENDPOINTS = /^\/api\/v1\/chat(?:\/stream|\/feedback|\/conversation\/[^/]+)?$/;

/** The Express app, without listening: index.ts listens, tests use port 0. */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parts.trustProxy);
  // First: the request id (X-Request-Id) on every log line, the request's log line and its duration.
  app.use(requestLogging(parts.logger));
  app.use(requestMetrics(parts.metrics));
  // The pages set their own Content-Security-Policy; the API answers JSON only.
  app.use(helmet({ contentSecurityPolicy: false }));
  const cors = widgetCors(parts.widgetOrigins);
  app.use((req, res, next) => (WIDGET_ENDPOINTS.test(req.path) ? cors(req, res, next) : next()));
  app.use(express.json({ limit: JSON_BODY_LIMIT }));
  app.use(keepRequestContext);
  app.post(['/api/v1/chat', '/api/v1/chat/stream'], ...chatRateLimits(parts.rateLimits, parts.logger, parts.rateLimitCounters));
  app.use(healthRoutes(parts.health));
  app.get('/metrics', async (_req, res) => {
    res.type(parts.metrics.registry.contentType).send(await parts.metrics.registry.metrics());
  });
  app.use('/api/v1', chatRoutes(parts.chat));
  app.use('/api/v1', conversationRoutes(parts.chat));
  app.use('/api/v1', feedbackRoutes(parts.feedback));
  app.use(pagesRoutes({ publicDir: DEFAULT_PUBLIC_DIR }));
  app.use(notFoundHandler);
  app.use(keepRequestContextOnError);
  app.use(errorHandler(parts.logger));
  return app;
}
