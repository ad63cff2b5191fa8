import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Metrics } from '../observability/metrics';

export interface MetricsAccess {
  /** METRICS_TOKEN: the bearer token a scraper must send; null when unset. */
  token: string | null;
  /** NODE_ENV=production: without a token, /metrics is not served. */
  production: boolean;
}

/**
 * GET /metrics for Prometheus. With METRICS_TOKEN it requires
 * `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise); without one it is
 * open in development and refused (403) in production, where its labels
 * (routes, models, agents, error codes) and volumes are nobody else's business.
 */
export function metricsEndpoint(metrics: Metrics, access: MetricsAccess): RequestHandler {
  const expected = access.token === null ? null : digest(access.token);
  return async (req, res) => {
    if (expected === null && access.production) {
      res.status(403).json({
        error: { code: 'metrics_disabled', message: 'Metrics are not served publicly in production: set METRICS_TOKEN and scrape with Authorization: Bearer <METRICS_TOKEN>.' },
      });
      return;
    }
    if (expected !== null) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        res
          .status(401)
          .set('WWW-Authenticate', 'Bearer')
          .json({ error: { code: 'unauthorized', message: 'Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.' } });
        return;
      }
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
