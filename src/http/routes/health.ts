import { Router } from 'express';

export interface HealthParts {
  /** Resolves when the database answers a query. */
  pingDatabase: () => Promise<void>;
  /** Static facts worth seeing at a glance (backend, models). */
  info: Record<string, string>;
}

/** GET /health: 200 when the database answers, 503 when it does not. */
export function healthRoutes(parts: HealthParts): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    try {
      await parts.pingDatabase();
      res.json({ status: 'ok', database: 'ok', ...parts.info });
    } catch {
      res.status(503).json({ status: 'unavailable', database: 'unreachable', ...parts.info });
    }
  });
  return router;
}
