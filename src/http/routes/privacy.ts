import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError, ExportLimitError, NotFoundError, UnauthorizedError } from '../../errors';
import { CUSTOMER_TOKEN_HEADER, type CustomerTokenVerifier } from '../../identity/customer-token';
import { loggedPath, logCustomerPseudonym } from '../../observability/http';
import type { Logger } from '../../observability/logger';
import type { CustomerDataStore, ErasureRecord, ToolTrialRecord } from '../../privacy/customer-data';
import type { ErasureService } from '../../privacy/erasure';
import { writeCustomerExport } from '../../privacy/export';
import type { RateLimitCounters } from '../../store/rate-limit-store';
import type { ChatStore } from '../../store/types';
import { agentKeyCheck, requireAgentKey } from '../auth';
import { sessionIdSchema, userIdSchema } from '../schemas';
import { SESSION_TOKEN_HEADER, type SessionTokens } from '../session-token';
import { parseInput } from '../validate';

export interface PrivacyRoutesParts {
  erasure: ErasureService;
  data: CustomerDataStore;
  store: ChatStore;
  agentApiKey: string;
  sessionTokens: SessionTokens;
  customerTokens: CustomerTokenVerifier;
  /** Wrong session tokens per client, counted like wrong agent keys (AUTH_FAILURES_PER_CLIENT per AUTH_FAILURE_WINDOW_MS). */
  tokenFailures: { counters: Pick<RateLimitCounters, 'peek' | 'hit'>; perClient: number; windowMs: number };
  /** A signed-in customer's own exports (/me/export), counted per customer in the database: CUSTOMER_EXPORTS_PER_HOUR. */
  exportLimit: { counters: Pick<RateLimitCounters, 'hit'>; perHour: number };
  logger: Logger;
}

/** The window of CUSTOMER_EXPORTS_PER_HOUR. */
const EXPORT_WINDOW_MS = 3_600_000;

/** DELETE /api/v1/customers/:user_id?include_labelled= */
export const customerErasureQuerySchema = z.object({
  include_labelled: z
    .enum(['true', 'false'], { error: 'include_labelled must be true or false' })
    .default('false')
    .transform((v) => v === 'true')
    .meta({
      description:
        'Also erase the conversations that carry this id only as an unverified `user_id` label (bound to no customer by a customer token). ' +
        'Default false: they are left, and counted in `labelled_unverified.conversations`.',
    }),
});

/** GET /api/v1/audit/erasures?limit=&cursor= and GET /api/v1/audit/tool-trials?limit=&cursor= */
export const auditPageQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(200, 'limit must be at most 200')
    .default(50),
  cursor: z
    .string({ error: 'cursor must be a string' })
    .regex(/^[1-9][0-9]{0,17}$/, 'cursor must be a next_cursor from a previous page')
    .optional()
    .meta({ description: 'The next_cursor of the previous page.' }),
});

/** A wrong X-Session-Token for the conversation: counted against the caller. */
export class SessionTokenInvalidError extends AppError {
  constructor() {
    super(403, 'session_token_invalid', 'This X-Session-Token is not the token of this conversation.');
  }
}

/**
 * The customer-data lifecycle: export (agent key, or the signed-in customer for
 * themselves), erasure of a conversation (its customer's session token, or the
 * agent key) and of a customer (agent key), and the audits (agent key): erasures,
 * and tool trials (whose data the console or the CLI read through which tool).
 */
export function privacyRoutes(parts: PrivacyRoutesParts): Router {
  const router = Router();
  const agentOnly = requireAgentKey(parts.agentApiKey);
  const isAgent = agentKeyCheck(parts.agentApiKey);

  router.get('/customers/:user_id/export', agentOnly, async (req, res) => {
    const customerId = parseInput(userIdSchema, req.params.user_id);
    logCustomerPseudonym(res, parts.erasure.pseudonymOf(customerId));
    // The agent sees the labelled, unverified conversations too, apart, to decide about them.
    await streamExport(req, res, parts, customerId, { includeLabelled: true });
  });

  router.get('/me/export', async (req, res) => {
    const token = req.get(CUSTOMER_TOKEN_HEADER);
    if (token === undefined) throw new UnauthorizedError('Send the X-Customer-Token the shop signed for you.');
    const { customerId } = await parts.customerTokens.verify(token.trim());
    const pseudonym = parts.erasure.pseudonymOf(customerId);
    logCustomerPseudonym(res, pseudonym);
    await countOwnExport(parts, pseudonym);
    await streamExport(req, res, parts, customerId, { includeLabelled: false });
  });

  router.delete('/customers/:user_id', agentOnly, async (req, res) => {
    const customerId = parseInput(userIdSchema, req.params.user_id);
    const query = parseInput(customerErasureQuerySchema, req.query);
    logCustomerPseudonym(res, parts.erasure.pseudonymOf(customerId));
    const outcome = await parts.erasure.eraseCustomer(customerId, { includeLabelled: query.include_labelled });
    res.json({
      erased: outcome.counts,
      erasure_id: outcome.erasureId,
      labelled_unverified: { conversations: outcome.labelledConversations, erased: query.include_labelled },
    });
  });

  router.delete('/chat/conversation/:session_id', async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const actor = isAgent(req) ? 'agent' : await customerProvesSession(req, parts, sessionId);
    // A session whose turn failed before its answer was stored has no conversation, but may have
    // a binding, order proofs or an idempotency record: those are erased too (404 only for nothing at all).
    const session = await parts.store.getSession(sessionId);
    const outcome = await parts.erasure.eraseConversation(sessionId, actor, session?.userId ?? null);
    if (!outcome) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    res.json({ erased: outcome.counts, erasure_id: outcome.erasureId });
  });

  router.get('/audit/erasures', agentOnly, async (req, res) => {
    const { items, next_cursor } = await auditPage(req.query, (beforeId, limit) => parts.data.auditPage(beforeId, limit));
    res.json({ erasures: items.map(toAuditItem), next_cursor });
  });

  router.get('/audit/tool-trials', agentOnly, async (req, res) => {
    const { items, next_cursor } = await auditPage(req.query, (beforeId, limit) => parts.data.toolTrialPage(beforeId, limit));
    res.json({ tool_trials: items.map(toToolTrialItem), next_cursor });
  });

  return router;
}

/**
 * One page of an audit, newest first (?limit=&cursor=, auditPageQuerySchema): the
 * records before the cursor (the last page's last id), and the cursor of the next
 * page, null on the last.
 */
async function auditPage<T extends { id: number }>(
  rawQuery: unknown,
  read: (beforeId: number | null, limit: number) => Promise<T[]>,
): Promise<{ items: T[]; next_cursor: string | null }> {
  const query = parseInput(auditPageQuerySchema, rawQuery);
  // One more than asked tells whether another page follows.
  const records = await read(query.cursor ? Number(query.cursor) : null, query.limit + 1);
  const items = records.slice(0, query.limit);
  return { items, next_cursor: records.length > query.limit ? String(items.at(-1)!.id) : null };
}

/**
 * 'customer' when X-Session-Token is this conversation's. No token: 401. A wrong
 * one: 403, counted against the client's address (as wrong agent keys are), and a
 * client over AUTH_FAILURES_PER_CLIENT is refused (429) before its token is checked.
 */
async function customerProvesSession(req: Request, parts: PrivacyRoutesParts, sessionId: string): Promise<'customer'> {
  const token = req.get(SESSION_TOKEN_HEADER);
  if (token === undefined) throw new UnauthorizedError('Send the session token this conversation was given in the X-Session-Token header, or the agent key.');
  const { counters, perClient, windowMs } = parts.tokenFailures;
  const key = `session-token-failures:${req.ip ?? 'unknown'}`;
  if ((await counters.peek(key, windowMs).catch(() => 0)) >= perClient) {
    throw new AppError(429, 'too_many_failed_tokens', `Too many wrong session tokens from this address. Try again in up to ${Math.ceil(windowMs / 1000)} s.`);
  }
  if (await parts.sessionTokens.verify(sessionId, token)) return 'customer';
  const hits = await counters
    .hit(key, windowMs)
    .then((h) => h.hits)
    .catch(() => null);
  parts.logger.warn(
    { security_event: 'session_token_rejected', client: req.ip, method: req.method, path: loggedPath(req), failures: hits, limit: perClient },
    'A wrong session token was presented',
  );
  throw new SessionTokenInvalidError();
}

/**
 * Counts a signed-in customer's own export against CUSTOMER_EXPORTS_PER_HOUR (keyed
 * by pseudonym: the counters hold no raw id); 429 with Retry-After beyond it. An
 * export reads everything the customer has, so it is the costly request a stolen
 * or scripted token would repeat. Should the database fail to count, the export
 * goes on uncounted (it reads the same database, and says so if it cannot).
 */
async function countOwnExport(parts: PrivacyRoutesParts, pseudonym: string): Promise<void> {
  const { counters, perHour } = parts.exportLimit;
  const counted = await counters.hit(`customer-export:${pseudonym}`, EXPORT_WINDOW_MS).catch((error: unknown) => {
    parts.logger.warn({ err: error }, 'A customer export was not counted: the database could not count it');
    return null;
  });
  if (counted && counted.hits > perHour) {
    throw new ExportLimitError(perHour, Math.max(1, Math.ceil((counted.resetAt.getTime() - Date.now()) / 1000)));
  }
}

/** Streams the export as one JSON document; a failure after the first byte cuts the response off (never a valid-looking partial). */
async function streamExport(req: Request, res: Response, parts: PrivacyRoutesParts, customerId: string, options: { includeLabelled: boolean }): Promise<void> {
  let started = false;
  const sink = {
    write: async (text: string) => {
      if (!started) {
        started = true;
        res.status(200).set({
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Disposition': `attachment; filename="customer-export.json"`,
          'Cache-Control': 'no-store',
        });
      }
      if (!res.write(text) && !res.destroyed) await drained(res);
    },
    closed: () => res.destroyed,
  };
  try {
    await writeCustomerExport(parts.data, customerId, sink, options);
    res.end();
    parts.logger.info({ event: 'customer_data_exported', customer: parts.erasure.pseudonymOf(customerId) }, 'Exported a customer\'s data');
  } catch (error) {
    if (!started) throw error;
    parts.logger.error({ err: error, path: loggedPath(req) }, 'A customer export failed after it started; the response was cut off');
    res.destroy(error as Error);
  }
}

/** Resolves when the response may take more (drain) or is gone (close); removes both listeners, so a long export adds none. */
function drained(res: Response): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

function toToolTrialItem(r: ToolTrialRecord) {
  return {
    id: String(r.id),
    tried_at: r.triedAt.toISOString(),
    source: r.source,
    tool: r.tool,
    customer_id: r.customerId,
    customer: r.customerPseudonym,
    arguments: r.arguments,
    bound: r.bound,
    outcome: r.outcome,
    error_code: r.errorCode,
  };
}

function toAuditItem(r: ErasureRecord) {
  return {
    id: String(r.id),
    erased_at: r.erasedAt.toISOString(),
    actor: r.actor,
    scope: r.scope,
    customer: r.customerPseudonym,
    counts: r.counts,
    langfuse: {
      status: r.traceDeletion,
      traces: r.traceCount,
      attempts: r.traceAttempts,
      error: r.traceError,
      updated_at: r.traceUpdatedAt?.toISOString() ?? null,
    },
  };
}
