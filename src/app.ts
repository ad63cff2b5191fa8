import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { chatRoutes, type ChatRoutesParts } from './http/routes/chat';
import { conversationRoutes } from './http/routes/conversations';
import { feedbackRoutes, type FeedbackRoutesParts } from './http/routes/feedback';
import { DEFAULT_PUBLIC_DIR, pagesRoutes } from './http/routes/pages';
import { healthRoutes, type HealthParts } from './http/routes/health';
import { keepRequestContext, keepRequestContextOnError, requestLogging, requestMetrics } from './observability/http';
import type { Logger } from './observability/logger';
import type { Metrics } from './observability/metrics';

export interface AppParts {
  chat: ChatRoutesParts;
  health: HealthParts;
  feedback: FeedbackRoutesParts;
  metrics: Metrics;
  logger: Logger;
}

/** JSON bodies above this are refused with 413; a chat message is far smaller. */
export const JSON_BODY_LIMIT = '100kb';

/** The Express app, without listening: index.ts listens, tests use port 0. */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  // First: the request id (X-Request-Id) on every log line, the request's log line and its duration.
  app.use(requestLogging(parts.logger));
  app.use(requestMetrics(parts.metrics));
  app.use(express.json({ limit: JSON_BODY_LIMIT }));
  app.use(keepRequestContext);
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
