import express, { type Express } from 'express';
import helmet from 'helmet';
import { errorHandler, notFoundHandler } from './http/error-handler';
import { agentKeyCheck } from './http/auth';
import { metricsEndpoint, type MetricsAccess } from './http/metrics-access';
import { agentKeyFailureLimit, chatRateLimits, refuseOtherOrigins, widgetCors, type AuthFailureSettings, type RateLimitSettings } from './http/protection';
import { SESSION_TOKEN_HEADER } from './http/session-token';
import { warnOfUntrustedForwarding } from './http/local-request';
import { chatRoutes, type ChatRoutesParts } from './http/routes/chat';
import { conversationRoutes } from './http/routes/conversations';
import { feedbackRoutes, type FeedbackRoutesParts } from './http/routes/feedback';
import { handoffRoutes, type HandoffRoutesParts } from './http/routes/handoff';
import { DEFAULT_PUBLIC_DIR, pagesRoutes, type ShopPages } from './http/routes/pages';
import { healthRoutes, type HealthParts } from './http/routes/health';
import { knowledgeRoutes, type KnowledgeRoutesParts } from './http/routes/knowledge';
import { privacyRoutes, type PrivacyRoutesParts } from './http/routes/privacy';
import { shopToolsRoutes, type ShopToolsRoutesParts } from './http/routes/shop-tools';
import { apiRoutes } from './http/openapi/api-routes';
import { openApiDocument } from './http/openapi/document';
import { keepRequestContext, keepRequestContextOnError, requestLogging, requestMetrics } from './observability/http';
import type { Logger } from './observability/logger';
import type { Metrics } from './observability/metrics';
import type { TrustProxy } from './config';
import type { RateLimitCounters } from './store/rate-limit-store';

export interface AppParts {
  chat: ChatRoutesParts;
  health: HealthParts;
  feedback: FeedbackRoutesParts;
  /** Human takeover and the conversations' event streams. */
  handoff: HandoffRoutesParts;
  knowledge: KnowledgeRoutesParts;
  /** Export, erasure and the erasure audit of customers' data. */
  privacy: PrivacyRoutesParts;
  /** The console's tools page: the shop's tools and a trial of one (agent key). */
  shopTools: ShopToolsRoutesParts;
  metrics: Metrics;
  logger: Logger;
  /** Origins whose pages may call the chat endpoints from a browser (WIDGET_ALLOWED_ORIGINS). */
  widgetOrigins: string[];
  rateLimits: RateLimitSettings;
  /** The database's rate-limit counters, shared by every instance (RATE_LIMIT_STORE=database); absent: counted in this process. */
  rateLimitCounters?: RateLimitCounters;
  /** Wrong agent keys per client, counted in the database. */
  authFailures: AuthFailureSettings;
  /** Who may read /metrics (METRICS_TOKEN, NODE_ENV). */
  metricsAccess: MetricsAccess;
  /** The shop's pages: its name and widget's words, and the sample shop's demo page. */
  shopPages: ShopPages;
  /** Express's `trust proxy`: which proxies to believe for the client address (TRUST_PROXY). */
  trustProxy: TrustProxy;
}

/** The version of the API the OpenAPI document describes (the /api/v1 routes). */
export const API_VERSION = '1.0.0';

/** JSON bodies above this are refused with 413; a chat message of the default size is far smaller. */
export const JSON_BODY_LIMIT = 100 * 1024;

/**
 * The body limit for a service whose messages may hold `messageMaxChars` characters: 100 kb, or
 * room for that many characters written as JSON escapes (`\uXXXX`, 6 bytes each) and the other
 * fields, whichever is larger. So raising MESSAGE_MAX_CHARS never leaves its messages refused as 413.
 */
export function jsonBodyLimit(messageMaxChars: number): number {
  return Math.max(JSON_BODY_LIMIT, messageMaxChars * 6 + 16 * 1024);
}

/** What the widget calls from shops' pages; only these answer cross-origin requests. */
const WIDGET_ENDPOINTS = /^\/api\/v1\/chat(?:\/stream|\/feedback|\/conversation\/[^/]+(?:\/events)?)?$/;

/** The Express app, without listening: index.ts listens, tests use port 0. */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parts.trustProxy);
  // First: the request id (X-Request-Id) on every log line, the request's log line and its duration.
  app.use(requestLogging(parts.logger));
  app.use(warnOfUntrustedForwarding(parts.trustProxy, parts.logger));
  app.use(requestMetrics(parts.metrics));
  // The pages set their own Content-Security-Policy; the API answers JSON only.
  app.use(helmet({ contentSecurityPolicy: false }));
  const cors = widgetCors(parts.widgetOrigins);
  // Another site's page is refused before its request costs anything (a model call, a row).
  const originCheck = refuseOtherOrigins(parts.widgetOrigins, parts.logger);
  app.use((req, res, next) => (WIDGET_ENDPOINTS.test(req.path) ? originCheck(req, res, (error?: unknown) => (error ? next(error) : cors(req, res, next))) : next()));
  // The knowledge API reads its own bodies (articles, up to KNOWLEDGE_DOCUMENT_MAX_BYTES).
  const jsonBodies = express.json({ limit: jsonBodyLimit(parts.chat.messageMaxChars) });
  app.use((req, res, next) => (req.path.startsWith('/api/v1/knowledge/') ? next() : jsonBodies(req, res, next)));
  app.use(keepRequestContext);
  app.use('/api/v1', agentKeyFailureLimit(parts.authFailures, parts.logger));
  const isAgent = agentKeyCheck(parts.chat.agentApiKey);
  const provesSession = async (req: express.Request, sessionId: string) =>
    isAgent(req) || (await parts.chat.sessionTokens.verify(sessionId, req.get(SESSION_TOKEN_HEADER)));
  app.post(['/api/v1/chat', '/api/v1/chat/stream'], ...chatRateLimits(parts.rateLimits, parts.logger, provesSession, parts.rateLimitCounters));
  app.use(healthRoutes(parts.health));
  app.get('/metrics', metricsEndpoint(parts.metrics, parts.metricsAccess));
  app.use('/api/v1', chatRoutes(parts.chat));
  app.use('/api/v1', conversationRoutes(parts.chat));
  app.use('/api/v1', feedbackRoutes(parts.feedback));
  app.use('/api/v1', handoffRoutes(parts.handoff));
  app.use('/api/v1', knowledgeRoutes(parts.knowledge));
  app.use('/api/v1', privacyRoutes(parts.privacy));
  app.use('/api/v1', shopToolsRoutes(parts.shopTools));
  const openApi = openApiDocument(
    apiRoutes({
      messageMaxChars: parts.chat.messageMaxChars,
      historyLimitMax: parts.chat.historyLimitMax,
      agentTypes: parts.chat.agentTypes,
      knowledgeDocumentMaxBytes: parts.knowledge.documentMaxBytes,
      demoPage: parts.shopPages.demoShop !== undefined,
    }),
    { version: API_VERSION },
  );
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  app.use(pagesRoutes({ publicDir: DEFAULT_PUBLIC_DIR, ...parts.shopPages }));
  app.use(notFoundHandler);
  app.use(keepRequestContextOnError);
  app.use(errorHandler(parts.logger));
  return app;
}
