import { z } from 'zod';
import { memoryStrategySchema } from '../memory/settings';
import type { SessionCursor } from '../store/types';

/** Client-chosen session ids such as `session-123` are fine; nothing that needs escaping. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

const requiredString = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

export const sessionIdSchema = requiredString('session_id').regex(
  SESSION_ID_PATTERN,
  'session_id must be 1–128 characters of letters, digits, "-", "_", "." or ":"',
);

/** User ids come from the shop's own systems (often emails): any printable text up to 128 characters. */
export const userIdSchema = requiredString('user_id').regex(
  /^[^\p{Cc}]{1,128}$/u,
  'user_id must be 1–128 characters without control characters',
);

const memoryInjectionSchema = z.boolean({ error: 'memory_injection must be true or false' });

/** POST /api/v1/chat. Unknown fields are refused rather than silently ignored. */
export function chatRequestSchema(messageMaxChars: number, agentTypes: string[]) {
  return z.strictObject({
    message: requiredString('message')
      .trim()
      .min(1, 'message must not be empty')
      .max(messageMaxChars, `message must be at most ${messageMaxChars} characters`)
      // Postgres text cannot hold NUL, and a lone surrogate is not text at all.
      .refine((m) => !m.includes('\u0000') && m.isWellFormed(), 'message must not contain NUL characters or broken unicode'),
    session_id: sessionIdSchema.optional(),
    user_id: userIdSchema.optional(),
    agent_type: z.enum(agentTypes, { error: `agent_type must be one of: ${agentTypes.join(', ')}` }).optional(),
    memory_strategy: memoryStrategySchema.optional(),
    memory_injection: memoryInjectionSchema.optional(),
  });
}

/**
 * PATCH /api/v1/conversations/:session_id/memory: the strategy fields (mode
 * required) and optionally memory_injection, stored for every later message.
 */
export const conversationMemorySchema = memoryStrategySchema.safeExtend({
  memory_injection: memoryInjectionSchema.optional(),
});

/** GET /api/v1/chat/history/:session_id?limit= */
export function historyQuerySchema(limitMax: number) {
  return z.object({
    limit: z.coerce
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(limitMax, `limit must be at most ${limitMax}`)
      .default(50),
  });
}

/** The review console's paging cursor: where the previous page ended, opaque to clients. */
export function encodeCursor(cursor: SessionCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.sessionId])).toString('base64url');
}

const POSTGRES_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

const cursorSchema = z.string({ error: 'cursor must be a string' }).transform((text, ctx): SessionCursor => {
  try {
    const [updatedAt, sessionId] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    // Only the timestamp form Postgres printed: anything Date.parse merely tolerates is refused.
    if (typeof updatedAt === 'string' && POSTGRES_TIMESTAMP.test(updatedAt) && typeof sessionId === 'string') {
      return { updatedAt, sessionId };
    }
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'cursor must be a next_cursor from a previous page' });
  return z.NEVER;
});

/** GET /api/v1/chat/sessions?limit=&cursor=&q=&escalated= */
export function sessionListQuerySchema() {
  return z.object({
    limit: z.coerce
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(100, 'limit must be at most 100')
      .default(20),
    cursor: cursorSchema.optional(),
    q: z
      .string({ error: 'q must be a single text' })
      .trim()
      .max(200, 'q must be at most 200 characters')
      .regex(/^[^\p{Cc}]*$/u, 'q must not contain control characters')
      .refine((q) => q.isWellFormed(), 'q must be valid unicode')
      .optional()
      .transform((q) => (q === '' ? undefined : q)),
    escalated: z.enum(['true', 'false'], { error: 'escalated must be true or false' }).optional()
      .transform((v) => (v === undefined ? undefined : v === 'true')),
  });
}
