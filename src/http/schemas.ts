import { z } from 'zod';
import { memoryStrategySchema } from '../memory/settings';
import { ESCALATION_REASONS } from '../chat/escalation';
import type { SessionCursor } from '../store/types';

/** Client-chosen session ids such as `session-123` are fine; nothing that needs escaping. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

const requiredString = (field: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

export const sessionIdSchema = requiredString('session_id').regex(
  SESSION_ID_PATTERN,
  'session_id must be 1–128 characters of letters, digits, "-", "_", "." or ":"',
);

/**
 * User ids come from the shop's own systems (often emails): any printable text up
 * to 128 characters. Control and format characters (Unicode Cc and Cf: bidi
 * overrides, zero-width spaces and joiners) are refused, since they make an id
 * display as another ("admin\u202Egpj.exe" shows as "adminexe.jpg").
 */
export const userIdSchema = requiredString('user_id').regex(
  /^[^\p{Cc}\p{Cf}]{1,128}$/u,
  'user_id must be 1–128 characters without control or format characters (such as bidi overrides or zero-width spaces)',
);

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/**
 * A language as a request names it: a lowercase two-letter ISO 639-1 code that
 * ICU knows ("de", "en", "ar"), nothing longer (no region: "de-AT" is sent as "de").
 */
export const languageCodeSchema = z
  .string({ error: 'language must be a string' })
  .regex(/^[a-z]{2}$/, 'language must be a two-letter lowercase ISO 639-1 code such as "de" or "en"')
  .refine((code) => LANGUAGE_NAMES.of(code) !== undefined, 'language must be an ISO 639-1 language code such as "de" or "en"');

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
    language: languageCodeSchema
      .optional()
      .meta({
        description:
          "The customer's language (ISO 639-1): the answer is written in it and the conversation keeps it, whatever the message's own language. " +
          "Without it each message's language is detected; a short one keeps the conversation's.",
        example: 'de',
      }),
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

/** The timestamp form Postgres prints for timestamptz: 2026-11-22 10:15:30.123456+00 (or +05:30). */
const POSTGRES_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2}))?$/;

/**
 * Whether a timestamp of that form names a real instant: a cursor that decodes
 * to 2020-13-45 99:99:99+00 is well formed but would fail in the database
 * (SQLSTATE 22008), so it is refused here, before it reaches SQL.
 */
export function isRealPostgresTimestamp(text: string): boolean {
  const match = POSTGRES_TIMESTAMP.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.slice(1).map((part) => Number(part ?? 0));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    year! >= 1 && month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth &&
    hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 15 && offsetMinutes <= 59
  );
}

const cursorSchema = z.string({ error: 'cursor must be a string' }).transform((text, ctx): SessionCursor => {
  try {
    const [updatedAt, sessionId, ...rest] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    // Exactly what encodeCursor makes: a real timestamp in the form Postgres printed and a valid session id.
    if (
      rest.length === 0 &&
      typeof updatedAt === 'string' &&
      isRealPostgresTimestamp(updatedAt) &&
      typeof sessionId === 'string' &&
      SESSION_ID_PATTERN.test(sessionId)
    ) {
      return { updatedAt, sessionId };
    }
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'cursor must be a next_cursor from a previous page' });
  return z.NEVER;
});

/** A list's `q`: one line of well-formed text, at most 200 characters; empty means no search. */
export const searchTextSchema = z
  .string({ error: 'q must be a single text' })
  .trim()
  .max(200, 'q must be at most 200 characters')
  .regex(/^[^\p{Cc}]*$/u, 'q must not contain control characters')
  .refine((q) => q.isWellFormed(), 'q must be valid unicode')
  .optional()
  .transform((q) => (q === '' ? undefined : q));

/** GET /api/v1/chat/sessions?limit=&cursor=&q=&escalated=&handler=&waiting=&escalation_reason= */
export function sessionListQuerySchema() {
  return z.object({
    limit: z.coerce
      .number({ error: 'limit must be a number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(100, 'limit must be at most 100')
      .default(20),
    cursor: cursorSchema.optional(),
    q: searchTextSchema,
    escalated: z.enum(['true', 'false'], { error: 'escalated must be true or false' }).optional()
      .transform((v) => (v === undefined ? undefined : v === 'true')),
    handler: z.enum(['bot', 'human'], { error: 'handler must be bot or human' }).optional(),
    waiting: z.enum(['true', 'false'], { error: 'waiting must be true or false' }).optional()
      .transform((v) => (v === undefined ? undefined : v === 'true')),
    escalation_reason: z.enum(ESCALATION_REASONS, { error: `escalation_reason must be one of ${ESCALATION_REASONS.join(', ')}` }).optional(),
  });
}

/**
 * A person's name as the customer sees it ("Maria from support"): 1–64 printable characters, without the
 * format characters (bidi overrides, zero-width) that would make it display as someone else's.
 */
const agentNameSchema = requiredString('agent_name')
  .trim()
  .min(1, 'agent_name must not be empty')
  .max(64, 'agent_name must be at most 64 characters')
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, 'agent_name must not contain control or format characters (such as bidi overrides or zero-width spaces)')
  .refine((n) => n.isWellFormed(), 'agent_name must be valid unicode');

/** POST /api/v1/conversations/:session_id/takeover */
export const takeoverSchema = z.strictObject({
  agent_name: agentNameSchema,
  force: z.boolean({ error: 'force must be true or false' }).optional(),
});

/**
 * POST /api/v1/conversations/:session_id/replies. The length limit is checked
 * apart (413, like an oversized body); `agent_name`, when sent, must be the holder.
 */
export const replySchema = z.strictObject({
  content: requiredString('content')
    .trim()
    .min(1, 'content must not be empty')
    .refine((m) => !m.includes('\u0000') && m.isWellFormed(), 'content must not contain NUL characters or broken unicode'),
  agent_name: agentNameSchema.optional(),
});

/** GET /api/v1/chat/conversation/:session_id/events?after_seq= (or the Last-Event-ID header). */
export const eventsAfterSeqSchema = z.coerce
  .number({ error: 'after_seq must be a number' })
  .int('after_seq must be a whole number')
  .min(0, 'after_seq must be at least 0')
  .max(2_147_483_647, 'after_seq is too large');
