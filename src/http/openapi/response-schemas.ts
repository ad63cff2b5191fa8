/**
 * The shapes of the API's JSON responses, for the OpenAPI document (GET /openapi.json)
 * and the test that checks real responses against it. Requests are validated by the
 * schemas in ../schemas.ts and ../knowledge-schemas.ts, which the document uses as they are.
 * Objects are closed (no undocumented fields): a new response field belongs here too.
 */
import { z } from 'zod';
import { ESCALATION_REASONS } from '../../chat/escalation';

export const errorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .meta({ example: { error: { code: 'invalid_request', message: 'message must not be empty' } } });

const timestamp = z.iso.datetime();

export const sourceReferenceSchema = z.object({
  title: z.string(),
  source: z.string(),
  score: z.number(),
  url: z.string().optional().meta({ description: "Where the document came from (a page's canonical URL, a PDF's link), when it was ingested with one." }),
  page: z.int().optional().meta({ description: 'The PDF page of the cited passage (from 1).' }),
});

const tokenFields = {
  prompt_tokens: z.int(),
  completion_tokens: z.int(),
  total_tokens: z.int(),
  cached_tokens: z.int().meta({ description: "Prompt tokens the provider served from its prompt cache; 0 when it reports none." }),
};

const purposeUsageSchema = z.object({
  ...tokenFields,
  calls: z.int().meta({ description: 'Model calls made for this purpose in the turn.' }),
  cost: z.number().optional().meta({ description: 'Their estimated cost; absent when a model has no price.' }),
});

const usageSchema = z
  .object({
    ...tokenFields,
    by_purpose: z
      .object({ answer: purposeUsageSchema, summary: purposeUsageSchema.optional(), rewrite: purposeUsageSchema.optional() })
      .optional()
      .meta({ description: "Each purpose's calls on their own: the answer's, the rolling summary's, the query rewrite's (absent on answers stored before it was reported)." }),
  })
  .meta({ description: 'Summed over every model call of the turn: the answer, the rolling summary and the query rewrite.' });

const costSchema = z.number().meta({ description: 'Estimated cost of every model call of the turn (MODEL_PRICES, per million tokens); absent when a model has no price.' });

/** What redaction masked in a customer's message before it was stored (REDACT): a count per kind. */
const redactedSchema = z
  .object({ card: z.int().positive().optional(), iban: z.int().positive().optional() })
  .meta({
    description:
      'What was masked in the customer\'s message before it was stored, sent to the model, logged or traced (REDACT), ' +
      'counted by kind: card numbers as `[card ending 4242]`, IBANs as `[IBAN ending 3000]`. Absent when nothing was masked.',
  });

const escalationReasonSchema = z
  .enum(ESCALATION_REASONS)
  .nullable()
  .meta({ description: 'Why the answer was handed to a person (docs/escalation.md); null when it was not escalated.' });

const handoffSummarySchema = z.string().meta({ description: "The summary for the person who takes over, redacted as stored: the model's (hand_off_to_person), or the service's own when the judge handed over (what the customer asked, what was tried)." });

const handlerSchema = z.enum(['bot', 'human']).meta({ description: 'Who answers the customer: the bot, or the person named in agent_name.' });

export const chatAnswerSchema = z
  .object({
    session_id: z.string(),
    message_id: z.string(),
    agent_type: z.string(),
    response: z.string(),
    confidence: z.number(),
    escalated: z.boolean(),
    escalation_reason: escalationReasonSchema,
    handoff_summary: handoffSummarySchema.optional(),
    sources: z.array(sourceReferenceSchema),
    usage: usageSchema,
    cost: costSchema.optional(),
    history: z.object({ messages: z.int(), tokens: z.int() }),
    // The memory report's fields are documented in docs/memory.md.
    memory: z.looseObject({ strategy: z.string(), tokens_before: z.int(), tokens_after: z.int(), source: z.string() }),
    degraded: z.array(z.string()),
    language: z.string().meta({ description: "The customer's language the answer was asked in (ISO 639-1): the request's `language`, else the message's, else the conversation's." }),
    redacted: redactedSchema.optional(),
    session_token: z.string().optional().meta({ description: 'Given when this request started the session or proved it may continue it.' }),
  })
;

const feedbackSummarySchema = z.object({ rating: z.enum(['up', 'down']), comment: z.string().nullable(), updated_at: timestamp }).nullable();

/** Who wrote a message: the customer, the bot, a person (by name), or the system (a handoff note). */
const authorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('customer') }),
  z.object({ type: z.literal('bot') }),
  z.object({ type: z.literal('human'), name: z.string() }),
  z.object({ type: z.literal('system') }),
]);

const messageItemFields = {
  id: z.string(),
  seq: z.int(),
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  content: z.string(),
  author: authorSchema,
  handoff: z
    .object({ handler: handlerSchema, agent_name: z.string().nullable() })
    .optional()
    .meta({ description: 'On the note of a person joining (human) or leaving (bot) the conversation.' }),
  timestamp,
  escalated: z.boolean().optional(),
  sources: z.array(sourceReferenceSchema).optional(),
  feedback: feedbackSummarySchema.optional(),
  redacted: redactedSchema.optional(),
};

const supportSchema = z
  .object({
    open: z.boolean().nullable(),
    hours: z.string().nullable().meta({ description: 'The hours as configured, with their time zone (e.g. "mon-fri 09:00-17:00 Europe/Berlin"): for people who run the shop.' }),
    schedule: z
      .object({
        time_zone: z.string().meta({ description: 'IANA time zone of the hours, e.g. Europe/Berlin.' }),
        weekly: z.array(z.object({ days: z.string().meta({ example: 'mon-fri' }), hours: z.string().meta({ example: '09:00-17:00' }) })),
      })
      .nullable()
      .meta({ description: "The same hours as data, for a customer's page to write in the reader's language (the widget does, with Intl.DateTimeFormat)." }),
  })
  .meta({ description: 'Whether people answer now (the shop file\'s support_hours, else SUPPORT_HOURS); all null when no support hours are configured.' });

export const conversationSchema = z.object({
  session_id: z.string(),
  escalated: z.boolean(),
  handler: handlerSchema,
  agent_name: z.string().nullable(),
  support: supportSchema,
  messages: z.array(z.object(messageItemFields)),
});

const retrievalSchema = z
  .object({
    query: z.string().meta({ description: "The turn's own words searched for (the message, or the model's rewrite)." }),
    method: z.enum(['message', 'topic', 'model']),
    vector_query: z.string().optional().meta({ description: 'What the vectors were searched with, when not `query`: a follow-up with its topic.' }),
    history: z
      .array(z.object({ text: z.string(), weight: z.number() }))
      .optional()
      .meta({ description: "Earlier customer messages whose words the full text also counted, newest first, at these weights (the turn's own: 1)." }),
    documents: z
      .array(
        z.object({
          source: z.string(),
          place: z.int(),
          score: z.number(),
          full_text: z.object({ place: z.int().nullable(), score: z.number() }),
          vectors: z.object({ place: z.int(), similarity: z.number() }),
          history: z.object({ score: z.number() }),
        }),
      )
      .optional()
      .meta({ description: "Why each document was retrieved: its place and fused score, its place and BM25 (over the best document's) by words, its place and best chunk's similarity by meaning, and the part of the full-text score earlier turns' words gave." }),
  })
  .meta({ description: "An answer's retrieval: how the search query was made and why each document came (the review console's answer details)." });

export const historySchema = z.object({
  session_id: z.string(),
  messages: z.array(
    z.object({
      ...messageItemFields,
      token_count: z.int(),
      confidence: z.number().optional(),
      escalation_reason: escalationReasonSchema.optional().meta({ description: 'On an answer: why it was handed to a person; null when it was not.' }),
      handoff_summary: handoffSummarySchema.optional(),
      act: z.enum(['greeting', 'thanks', 'goodbye', 'acknowledgement', 'ask_for_person']).optional().meta({ description: 'On an answer of the conversation acts stage: the act it answered.' }),
      tool_calls: z
        .array(
          z.object({
            id: z.string(),
            name: z.string(),
            arguments: z.record(z.string(), z.unknown()).meta({ description: "For an action or MCP tool, the arguments as sent to the shop's system (bound ones from the verified customer); for a built-in tool, as the model asked." }),
            bound: z.array(z.string()).optional().meta({ description: 'Names in `arguments` whose value came from the verified customer, not the model (a dotted name is a body path).' }),
            model_arguments: z.record(z.string(), z.unknown()).optional().meta({ description: 'What the model asked for, when the tool sent something else or nothing.' }),
            not_sent: z.literal(true).optional().meta({ description: 'The tool called nothing (no verified customer, or a required argument missing).' }),
          }),
        )
        .optional(),
      tool_call_id: z.string().optional(),
      name: z.string().optional(),
      usage: usageSchema.optional().meta({ description: "An answer's token usage, as stored with it." }),
      cost: costSchema.optional(),
      retrieval: retrievalSchema.optional(),
    }),
  ),
  usage: z
    .object({
      answers: z.int(),
      prompt_tokens: z.int(),
      cached_tokens: z.int(),
      completion_tokens: z.int(),
      cost: z.number().optional(),
      priced_answers: z.int().optional(),
    })
    .meta({ description: "The whole conversation's answers (not only this page); cost and priced_answers only when some answer has a price." }),
  count: z.int(),
  total: z.int(),
  language: z
    .string()
    .nullable()
    .meta({ description: "The customer's language (ISO 639-1) as the conversation keeps it: the request's `language`, or a message's told with confidence; null until then." }),
  escalation_reason: escalationReasonSchema.meta({ description: "The reason of the conversation's latest escalated answer; null when none was escalated." }),
  handoff_summary: handoffSummarySchema.nullable().meta({ description: "The summary of its latest hand-off (the model's, or the service's own when the judge handed over); null without one." }),
});

const strategySchema = z.looseObject({ mode: z.string() });

export const sessionListSchema = z.object({
  sessions: z.array(
    z.object({
      session_id: z.string(),
      user_id: z.string().nullable(),
      agent_type: z.string(),
      title: z.string().nullable(),
      last_message: z.string().nullable(),
      message_count: z.int(),
      escalated: z.boolean(),
      escalation_reason: escalationReasonSchema.meta({ description: "The reason of the conversation's latest escalated answer; null when none was escalated." }),
      handoff_summary: handoffSummarySchema.nullable().meta({ description: "The summary of its latest hand-off (the model's, or the service's own when the judge handed over); null without one." }),
      handler: handlerSchema,
      agent_name: z.string().nullable(),
      waiting: z.boolean().meta({ description: 'The customer asked for a person and the bot still answers.' }),
      waiting_since: timestamp.nullable(),
      memory_strategy: strategySchema.nullable(),
      created_at: timestamp,
      updated_at: timestamp,
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const memoryViewSchema = z.object({
  session_id: z.string(),
  memory_strategy: strategySchema.nullable(),
  memory_injection: z.boolean().nullable(),
  effective: z.object({ memory_strategy: strategySchema, source: z.enum(['conversation', 'agent', 'default']), memory_injection: z.boolean() }),
  summary: z.string().nullable(),
  summarized_through_seq: z.int().nullable(),
});

export const feedbackResultSchema = z.object({
  session_id: z.string(),
  message_id: z.string(),
  rating: z.enum(['up', 'down']),
  comment: z.string().nullable(),
  replaced: z.boolean(),
  updated_at: timestamp,
});

export const liveSchema = z.object({ status: z.literal('ok') });

export const readySchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  database: z.enum(['ok', 'unreachable']),
  storage: z.enum(['pglite', 'postgres', 'supabase']),
  model: z.string(),
  embedding_model: z.string(),
  knowledge_sync: z
    .object({
      status: z.enum(['ok', 'failing']),
      failed_sites: z
        .array(z.object({ site: z.string(), status: z.enum(['failed', 'held']), finished_at: z.iso.datetime() }))
        .optional()
        .meta({ description: "Each site whose last finished sync failed or held its removals back; the reason is in GET /api/v1/knowledge/syncs (agent key)." }),
      details: z.string().optional(),
    })
    .optional()
    .meta({ description: "The knowledge sites' last syncs: `failing` when one failed or was held (answers then come from the pages as they were)." }),
  escalation_threshold: z
    .object({
      threshold: z.number().meta({ description: 'What confidence is compared with: below it, the answer is escalated.' }),
      source: z.enum(['configured', 'calibrated', 'default']),
      similarity_threshold: z.number().optional().meta({ description: "The measured threshold on the embedder's own similarity scale (calibrated only); confidence by meaning is put on `threshold`'s scale." }),
      calibration: z
        .object({ questions: z.number().int(), answered_below: z.number().int(), unanswered_below: z.number().int(), calibrated_at: z.iso.datetime() })
        .optional(),
    })
    .optional()
    .meta({ description: 'The escalation threshold in effect: ESCALATION_CONFIDENCE_THRESHOLD (`configured`), measured for the knowledge base and embedder (`calibrated`), or the embedder default.' }),
});

/** POST /api/v1/conversations/:session_id/takeover */
export const takeoverResultSchema = z.object({ session_id: z.string(), handler: z.literal('human'), agent_name: z.string() });

/** POST /api/v1/conversations/:session_id/release */
export const releaseResultSchema = z.object({ session_id: z.string(), handler: z.literal('bot') });

/** POST /api/v1/conversations/:session_id/replies: the stored reply, as the conversation shows it. */
export const replyResultSchema = z.object({ session_id: z.string(), ...messageItemFields });

/** POST /api/v1/chat (202): a customer's message stored for the person who holds the conversation; no model was called. */
export const queuedMessageSchema = z.object({
  session_id: z.string(),
  handler: z.literal('human'),
  agent_name: z.string(),
  message_id: z.string(),
  redacted: redactedSchema.optional(),
});
