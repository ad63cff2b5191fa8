/**
 * The customer-data lifecycle's routes for the OpenAPI document (see api-routes.ts):
 * export, erasure of a conversation or a customer, the erasure audit and the tool-trial audit.
 */
import { z } from 'zod';
import { CUSTOMER_TOKEN_HEADER } from '../../identity/customer-token';
import { ERASED_KINDS } from '../../privacy/customer-data';
import { auditPageQuerySchema, customerErasureQuerySchema } from '../routes/privacy';
import { sessionIdSchema, userIdSchema } from '../schemas';
import { SESSION_TOKEN_HEADER } from '../session-token';
import type { ApiRoute } from './api-route';

const countsSchema = z
  .object(Object.fromEntries(ERASED_KINDS.map((k) => [k, z.int().min(0)])) as Record<(typeof ERASED_KINDS)[number], z.ZodInt>)
  .meta({ description: 'Rows erased per kind. Erasing again counts zeros.' });

export const erasureResultSchema = z.object({
  erased: countsSchema,
  erasure_id: z.int().meta({ description: 'The audit record of this erasure (GET /api/v1/audit/erasures).' }),
});

export const customerErasureResultSchema = erasureResultSchema.extend({
  labelled_unverified: z
    .object({
      conversations: z.int().min(0).meta({ description: 'Conversations that carry this id only as an unverified `user_id` label (bound to no customer).' }),
      erased: z.boolean().meta({ description: 'Whether they were erased (and counted in `erased`): `include_labelled=true`. Otherwise they are left.' }),
    })
    .meta({ description: 'The labelled, unverified conversations: not the customer\'s by proof, so erased only when asked for.' }),
});

export const erasureAuditSchema = z.object({
  erasures: z.array(
    z.object({
      id: z.string(),
      erased_at: z.iso.datetime(),
      actor: z.enum(['agent', 'customer', 'retention']),
      scope: z.enum(['customer', 'conversation', 'retention']),
      customer: z.string().nullable().meta({ description: "The customer's pseudonym: a keyed hash of their id (never the id); null for retention." }),
      counts: countsSchema,
      langfuse: z.object({
        status: z.enum(['not_configured', 'none', 'pending', 'deleted', 'failed']).meta({
          description: 'What became of the erased answers\' traces in Langfuse: failed deletions are retried (TRACE_DELETION_RETRY_SECONDS).',
        }),
        traces: z.int(),
        attempts: z.int(),
        error: z.string().nullable(),
        updated_at: z.iso.datetime().nullable(),
      }),
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const toolTrialAuditSchema = z.object({
  tool_trials: z.array(
    z.object({
      id: z.string(),
      tried_at: z.iso.datetime(),
      source: z.enum(['console', 'cli']).meta({ description: "Where the try came from: the console's Tools page, or `npm run shop -- try`." }),
      tool: z.string(),
      customer_id: z.string().nullable().meta({ description: 'The verified customer the tool ran as; null for an anonymous trial, and once the customer was erased.' }),
      customer: z.string().nullable().meta({ description: "Set once the customer was erased: their pseudonym (the erasure audit's), instead of the id." }),
      arguments: z
        .record(z.string(), z.unknown())
        .nullable()
        .meta({ description: 'The arguments as sent (bound ones filled from the customer), or as given when nothing was sent; null once the customer was erased.' }),
      bound: z.array(z.string()).meta({ description: 'The names of the arguments whose value was bound from the customer, not given.' }),
      outcome: z.enum(['ok', 'error', 'refused']).meta({ description: 'ok: the tool ran; error: its call failed; refused: nothing was called.' }),
      error_code: z.string().nullable().meta({
        description:
          'Why it was not ok: refused `tool_writes` (the console tries no tool that writes), `not_signed_in` (a bound tool without a customer), `not_called` (an argument it needs is missing); ' +
          'error `http_<status>`, `tool_failed`, or the network guard\'s reason (`timeout`, `dns`, `connection`, `address`, `too_large`, …).',
      }),
    }),
  ),
  next_cursor: z.string().nullable(),
});

const exportExample = {
  customer_id: 'customer-4711@example.com',
  exported_at: '2026-11-25T10:00:00.000Z',
  profile: { user_id: 'customer-4711@example.com', name: 'Alex Example', '…': '…' },
  orders: [{ order_id: 'ORD-1001', status: 'held_at_depot', '…': '…' }],
  memory: [{ session_id: 'session-123', summary: 'The customer asked about a refund…', summarized_through_seq: 6 }],
  conversations: [
    {
      session_id: 'session-123',
      title: 'How long does a refund take?',
      summary: null,
      feedback: [],
      order_proofs: [],
      messages: [{ id: '…', seq: 1, role: 'user', content: 'How long does a refund take?', created_at: '…', sources: [], metadata: {} }],
    },
  ],
};

const agentExportExample = {
  ...exportExample,
  labelled_unverified_conversations: [
    {
      session_id: 'session-456',
      user_id: 'customer-4711@example.com',
      title: 'Can you send it to another address?',
      feedback: [],
      order_proofs: [],
      messages: [{ id: '…', seq: 1, role: 'user', content: 'Can you send it to another address?', created_at: '…', sources: [], metadata: {} }],
    },
  ],
};

const exportDescription =
  'One JSON document, streamed (every part is read a page at a time): the customer id, `profile` and `orders` ' +
  '(what the sample commerce data holds), `memory` (cross-session summaries), and `conversations`: those bound to the customer ' +
  'by a customer token, each with every message (all roles, times, sources and metadata), its rolling summary, its feedback ' +
  'and the orders proved in it.';

export function privacyApiRoutes(): ApiRoute[] {
  return [
    {
      method: 'get',
      path: '/api/v1/customers/:user_id/export',
      tag: 'privacy',
      summary: 'Export everything stored about a customer',
      description:
        `${exportDescription} Then \`labelled_unverified_conversations\`, in the same shape: conversations that carry the id only ` +
        'as a `user_id` label, bound to no customer. Anyone may type an id as a label, so they are not in the customer\'s own ' +
        'export; the agent decides about them (DELETE …?include_labelled=true erases them too).',
      security: ['agentKey'],
      params: { user_id: userIdSchema },
      responses: { 200: { description: 'The export (Content-Disposition: attachment).', schema: z.looseObject({}), example: agentExportExample } },
      errors: [400, 401],
    },
    {
      method: 'get',
      path: '/api/v1/me/export',
      tag: 'privacy',
      summary: 'Export everything stored about me (the signed-in customer)',
      description:
        `${exportDescription} The customer is the one the X-Customer-Token vouches for; conversations that only carry their id ` +
        'as a label are not included. Limited per customer to CUSTOMER_EXPORTS_PER_HOUR (default 5): beyond it 429 ' +
        '`export_rate_limited` with Retry-After.',
      headers: { [CUSTOMER_TOKEN_HEADER]: { schema: z.string(), description: "The shop's signed token for the signed-in customer (required)." } },
      responses: { 200: { description: 'The export.', schema: z.looseObject({}), example: exportExample } },
      errors: [401, 429],
    },
    {
      method: 'delete',
      path: '/api/v1/customers/:user_id',
      tag: 'privacy',
      summary: "Erase a customer's data",
      description:
        'In one transaction: every conversation bound to the customer by a customer token with its messages, summaries, feedback, ' +
        'idempotency records, order proofs, handoff state and rate-limit counters, and their cross-session memory. ' +
        'Conversations that carry the id only as an unverified `user_id` label are left (and counted in `labelled_unverified`) ' +
        'unless `include_labelled=true`. ' +
        "Recorded in the erasure audit (the customer as a pseudonym); their Langfuse traces are deleted where Langfuse is configured. " +
        "The shop's own records (sample profile and orders) are exported but not erased here.",
      security: ['agentKey'],
      params: { user_id: userIdSchema },
      query: customerErasureQuerySchema,
      responses: { 200: { description: 'What was erased (zeros when nothing was stored).', schema: customerErasureResultSchema } },
      errors: [400, 401],
    },
    {
      method: 'delete',
      path: '/api/v1/chat/conversation/:session_id',
      tag: 'privacy',
      summary: 'Erase one conversation',
      description:
        "By its customer (the conversation's X-Session-Token) or an agent (agent key). 401 without either, 403 " +
        '`session_token_invalid` for a wrong token (counted against the caller: 429 `too_many_failed_tokens` past ' +
        'AUTH_FAILURES_PER_CLIENT), 404 for an id with nothing stored under it. A session whose answer was never stored ' +
        '(a failed turn that left a customer binding, order proofs or an idempotency record) is erased too: 200 with ' +
        '`conversations: 0`. An answer still being generated is not stored ' +
        '(its request gets 410 `conversation_erased`), and open event streams end with an `erased` event.',
      security: ['sessionToken', 'agentKey'],
      params: { session_id: sessionIdSchema },
      headers: { [SESSION_TOKEN_HEADER]: { schema: z.string(), description: "The conversation's session token (the customer's own erasure)." } },
      responses: { 200: { description: 'What was erased.', schema: erasureResultSchema } },
      errors: [400, 401, 403, 404, 429],
    },
    {
      method: 'get',
      path: '/api/v1/audit/erasures',
      tag: 'privacy',
      summary: 'The erasure audit, newest first',
      description: 'Who erased (agent, customer, retention), when, how many rows of each kind, the customer as a pseudonym, and what became of the Langfuse traces. No content, no raw customer id.',
      security: ['agentKey'],
      query: auditPageQuerySchema,
      responses: { 200: { description: 'One page; pass next_cursor as cursor for the next.', schema: erasureAuditSchema } },
      errors: [400, 401],
    },
    {
      method: 'get',
      path: '/api/v1/audit/tool-trials',
      tag: 'privacy',
      summary: 'The tool-trial audit, newest first',
      description:
        "Every try of one of the shop's tools, from the console or `npm run shop -- try`: the tool, the customer it ran as, the arguments as sent (bound ones named), " +
        "the outcome, when and from where. A customer's erasure keeps the record without the data: the id becomes its pseudonym and the arguments are dropped. " +
        'Trials older than CONVERSATION_RETENTION_DAYS are deleted by the retention sweep. Paged like /api/v1/audit/erasures.',
      security: ['agentKey'],
      query: auditPageQuerySchema,
      responses: { 200: { description: 'One page; pass next_cursor as cursor for the next.', schema: toolTrialAuditSchema } },
      errors: [400, 401],
    },
  ];
}
