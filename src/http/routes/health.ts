import { Router } from 'express';
import type { EscalationThresholdStatus } from '../../knowledge/threshold-calibration';

/** A site whose last finished sync did not succeed (its reason: GET /api/v1/knowledge/syncs, agent key). */
export interface FailedSync {
  site: string;
  /** `failed`: nothing was stored or removed; `held`: removals held back, more than KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT. */
  status: 'failed' | 'held';
  finished_at: string;
}

export interface HealthParts {
  /** Resolves when the database answers a query. */
  pingDatabase: () => Promise<void>;
  /** The sites whose last sync failed or was held (none when the service syncs no site). */
  failedSyncs?: () => Promise<FailedSync[]>;
  /** The escalation threshold in effect and where it comes from (measured for the knowledge base, or configured). */
  escalationThreshold?: () => EscalationThresholdStatus;
  /** Static facts worth seeing at a glance (backend, models). */
  info: Record<string, string>;
}

/**
 * GET /health/live: the process answers (restart it when this fails).
 * GET /health/ready (and /health): 200 when the database answers, 503 when it
 * does not (take the instance out of the load balancer until it does). Ready says
 * too whether the knowledge sites' last syncs went well (`knowledge_sync`): a
 * failed sync leaves old answers, not a broken instance, so it stays 200.
 */
export function healthRoutes(parts: HealthParts): Router {
  const router = Router();
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(['/health', '/health/ready'], async (_req, res) => {
    try {
      await parts.pingDatabase();
    } catch {
      res.status(503).set('Retry-After', '5').json({ status: 'unavailable', database: 'unreachable', ...parts.info });
      return;
    }
    const failed = (await parts.failedSyncs?.().catch(() => null)) ?? [];
    res.json({
      status: 'ok',
      database: 'ok',
      ...parts.info,
      ...(parts.escalationThreshold && { escalation_threshold: escalationThresholdReport(parts.escalationThreshold()) }),
      knowledge_sync: failed.length === 0 ? { status: 'ok' } : { status: 'failing', failed_sites: failed, details: '/api/v1/knowledge/syncs' },
    });
  });
  return router;
}

/** The threshold as /health shows it: the one confidence is compared with, where it comes from, and the measurement. */
function escalationThresholdReport(status: EscalationThresholdStatus) {
  const c = status.calibration;
  return {
    threshold: status.threshold,
    source: status.source,
    ...(c && { similarity_threshold: c.threshold, calibration: { questions: c.questions, answered_below: c.answeredBelow, unanswered_below: c.unansweredBelow, calibrated_at: c.calibratedAt } }),
  };
}
