import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError, NotFoundError, UnauthorizedError } from '../../errors';
import type { Tracing } from '../../observability/langfuse';
import type { Logger } from '../../observability/logger';
import type { Metrics } from '../../observability/metrics';
import type { FeedbackStore } from '../../store/feedback-store';
import { requireAgentKey } from '../auth';
import { sessionIdSchema } from '../schemas';
import { SESSION_TOKEN_HEADER, type SessionTokens } from '../session-token';
import type { Redactor } from '../../privacy/redaction';
import { parseInput } from '../validate';

/** A comment is a sentence or two about one answer, not a letter. */
export const FEEDBACK_COMMENT_MAX_CHARS = 1000;

/** The Langfuse score a rating becomes: 1 for up, 0 for down, on the answer's trace. */
export const FEEDBACK_SCORE_NAME = 'user_feedback';

export interface FeedbackRoutesParts {
  /** REDACT: masks card numbers (and IBANs) in comments before they are stored. */
  redactor: Redactor;
  feedback: FeedbackStore;
  agentApiKey: string;
  sessionTokens: SessionTokens;
  tracing: Tracing;
  metrics: Metrics;
  logger: Logger;
}

export const feedbackRequestSchema = z.strictObject({
  session_id: sessionIdSchema,
  message_id: z.uuid({ error: 'message_id must be the id of an answer (a UUID), as chat responses and the history give it' }),
  rating: z.enum(['up', 'down'], { error: 'rating must be "up" or "down"' }),
  comment: z
    .string({ error: 'comment must be a string' })
    .trim()
    .max(FEEDBACK_COMMENT_MAX_CHARS, `comment must be at most ${FEEDBACK_COMMENT_MAX_CHARS} characters`)
    .regex(/^(?:[^\p{Cc}]|[\n\t])*$/u, 'comment must not contain control characters other than new lines')
    .optional(),
});

/**
 * POST /api/v1/chat/feedback: a customer rates an answer of their conversation
 * (thumbs up or down, an optional comment). The widget sends the session's token
 * (X-Session-Token); an agent's key works too. One rating per answer: a new one
 * replaces the earlier. Stored, counted in the metrics, and sent to Langfuse as a
 * score on the answer's trace.
 */
export function feedbackRoutes(parts: FeedbackRoutesParts): Router {
  const router = Router();
  const agentKey = requireAgentKey(parts.agentApiKey);

  const holdsAgentKey = (req: Request, res: Response) => {
    let allowed = false;
    agentKey(req, res, (error?: unknown) => {
      allowed = error === undefined;
    });
    return allowed;
  };

  router.post('/chat/feedback', async (req, res) => {
    if (!req.is('application/json')) {
      throw new AppError(415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
    }
    const body = parseInput(feedbackRequestSchema, req.body);
    if (!(await parts.sessionTokens.verify(body.session_id, req.get(SESSION_TOKEN_HEADER))) && !holdsAgentKey(req, res)) {
      throw new UnauthorizedError('Send the session token this conversation was given in the X-Session-Token header.');
    }
    // A card number in a comment is masked before it is stored or sent anywhere (REDACT).
    const comment = body.comment ? parts.redactor.redact(body.comment).text : null;
    const stored = await parts.feedback.record({ sessionId: body.session_id, messageId: body.message_id, rating: body.rating, comment });
    if (!stored) {
      throw new NotFoundError(`Conversation "${body.session_id}" has no answer with message_id "${body.message_id}".`);
    }
    const { feedback, answerMetadata } = stored;
    const replaced = feedback.updatedAt.getTime() > feedback.createdAt.getTime();

    parts.metrics.recordFeedback(feedback.rating);
    const traceId = answerMetadata['trace_id'];
    if (typeof traceId === 'string') {
      parts.tracing.score({
        // One score per answer: the same id again makes Langfuse replace it, as the rating was.
        id: `${feedback.messageId}-feedback`,
        traceId,
        name: FEEDBACK_SCORE_NAME,
        value: feedback.rating === 'up' ? 1 : 0,
        dataType: 'BOOLEAN',
        // The customer's words: sent only when personal data may be captured.
        ...(comment && parts.tracing.capturePersonalData && { comment }),
      });
    }
    // The comment is the customer's words: not at info level.
    parts.logger.info(
      { session_id: feedback.sessionId, message_id: feedback.messageId, rating: feedback.rating, comment_chars: comment?.length ?? 0, replaced },
      'Answer rated',
    );
    res.json({
      session_id: feedback.sessionId,
      message_id: feedback.messageId,
      rating: feedback.rating,
      comment: feedback.comment,
      replaced,
      updated_at: feedback.updatedAt.toISOString(),
    });
  });

  return router;
}
