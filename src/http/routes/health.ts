import { Router } from 'express';

export interface HealthParts {
  /** Resolves when the database answers a query. */
  pingDatabase: () => Promise<void>;
  /** Static facts worth seeing at a glance (backend, models). */
  info: Record<string, string>;
}

/**
 * GET /health/live: the process answers (restart it when this fails).
 * GET /health/ready (and /health): 200 when the database answers, 503 when it
 * does not (take the instance out of the load balancer until it does).
 */
export function healthRoutes(parts: HealthParts): Router {
  const router = Router();
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(['/health', '/health/ready'], async (_req, res) => {
    try {
      await parts.pingDatabase();
      res.json({ status: 'ok', database: 'ok', ...parts.info });
    } catch {
      res.status(503).set('Retry-After', '5').json({ status: 'unavailable', database: 'unreachable', ...parts.info });
    }
  });
  return router;
}
