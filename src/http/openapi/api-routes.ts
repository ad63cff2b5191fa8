/**
 * Every route the service serves, with the zod schemas that validate its input and
 * describe its output: the one list GET /openapi.json is generated from. A route the
 * app serves but this list lacks fails tests/integration/openapi.test.ts.
 *
 * To add a route: register it in its Express router as usual, then add one entry to
 * `apiRoutes` below with its method, its path exactly as Express has it (`:param`),
 * the request schemas the handler parses with (import them, do not copy them) and a
 * response schema (openapi/response-schemas.ts or beside the route's request schemas).
 */
import type { ApiRoute } from './api-route';
import { z } from 'zod';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN } from '../../chat/idempotency';
import {
  knowledgeArticleSchema,
  knowledgeDeleteResultSchema,
  knowledgeInsightsQuerySchema,
  knowledgeInsightsSchema,
  knowledgeDraftRequestSchema,
  knowledgeDraftSchema,
  knowledgeListQuerySchema,
  knowledgePutQuerySchema,
  knowledgePutResultSchema,
  knowledgeSourceDetailSchema,
  knowledgeSourceListSchema,
  knowledgeSourceSchema,
  knowledgeSyncListSchema,
  knowledgeSyncRequestSchema,
  knowledgeSyncStartedSchema,
  knowledgeSyncsQuerySchema,
} from '../knowledge-schemas';
import {
  chatRequestSchema,
  conversationMemorySchema,
  eventsAfterSeqSchema,
  historyQuerySchema,
  replySchema,
  sessionIdSchema,
  sessionListQuerySchema,
  takeoverSchema,
} from '../schemas';
import { feedbackRequestSchema } from '../routes/feedback';
import { shopToolListSchema, shopToolNameSchema, toolTrialRequestSchema, toolTrialSchema } from '../routes/shop-tools';
import { SESSION_TOKEN_HEADER } from '../session-token';
import { CUSTOMER_TOKEN_HEADER } from '../../identity/customer-token';
import { privacyApiRoutes } from './privacy-routes';
import {
  chatAnswerSchema,
  conversationSchema,
  feedbackResultSchema,
  historySchema,
  liveSchema,
  memoryViewSchema,
  queuedMessageSchema,
  readySchema,
  releaseResultSchema,
  replyResultSchema,
  sessionListSchema,
  takeoverResultSchema,
} from './response-schemas';

export type { ApiResponse, ApiRoute, Credential, HttpMethod } from './api-route';

/** The limits that shape the request schemas, as the service is configured. */
export interface ApiLimits {
  messageMaxChars: number;
  historyLimitMax: number;
  agentTypes: string[];
  knowledgeDocumentMaxBytes: number;
  /** Whether this instance serves the demo shop's signed-in page (only with the generated demo secret). */
  demoPage: boolean;
}

const json = (schema: z.ZodType, example?: unknown) => ({ 'application/json': { schema, example } });

const idempotencyKeyHeader = {
  [IDEMPOTENCY_KEY_HEADER]: {
    schema: z.string().regex(IDEMPOTENCY_KEY_PATTERN),
    description: 'Optional: a retry with the same key and body gets the same answer instead of a second turn.',
  },
};
const sessionTokenHeader = {
  [SESSION_TOKEN_HEADER]: { schema: z.string(), description: 'The session_token an earlier answer gave, to continue or read that session.' },
};
const customerTokenHeader = {
  [CUSTOMER_TOKEN_HEADER]: {
    schema: z.string(),
    description: "Optional: the shop's signed token (a JWT whose sub is the customer id) for a signed-in customer; 401 when sent but not valid.",
  },
};
const sessionParam = { session_id: sessionIdSchema };
const sourceParam = { source: knowledgeSourceSchema };

const chatExample = { message: 'How long does a refund take?', session_id: 'session-123' };
const answerExample = {
  session_id: 'session-123',
  message_id: '3c0a6f0e-6d7e-4b6a-9c59-0d7c2b8f1e2a',
  agent_type: 'support',
  response: 'Refunds reach your account within 5–10 business days after we receive the return.',
  confidence: 0.42,
  escalated: false,
  escalation_reason: null,
  sources: [{ title: 'Refund Policy', source: 'knowledge/help-center/refunds.md', score: 0.42 }],
  usage: { prompt_tokens: 954, completion_tokens: 174, total_tokens: 1128, cached_tokens: 768 },
  history: { messages: 2, tokens: 127 },
  memory: { strategy: 'window', tokens_before: 1081, tokens_after: 1081, source: 'agent' },
  degraded: [],
  language: 'en',
  session_token: 'c2Vzc2lvbi0xMjM.…',
};
const queuedExample = { session_id: 'session-123', handler: 'human', agent_name: 'Maria', message_id: '9b2d4c1e-5f3a-4e7b-8c6d-1a2b3c4d5e6f' };
const queuedDescription =
  'A person holds this conversation (human takeover): the message is stored for them, no model is called; their reply comes on the conversation\'s event stream. ' +
  'Also when a person took the conversation over while the bot was answering: the bot\'s answer is not stored, only the message, queued for that person. ' +
  'A retry with the same Idempotency-Key gets the same body (Idempotent-Replayed: true) and stores nothing.';
const articleExample = { title: 'Refund Policy', content: '# Refund Policy\n\nRefunds reach your account within 5–10 business days.' };

/** Every route of the app (see createApp), in the document's order. */
export function apiRoutes(limits: ApiLimits): ApiRoute[] {
  const chatBody = json(chatRequestSchema(limits.messageMaxChars, limits.agentTypes), chatExample);
  return [
    {
      method: 'post',
      path: '/api/v1/chat',
      tag: 'chat',
      summary: "Answer a customer's message",
      description:
        'Continuing an existing session needs its X-Session-Token (or the agent key). Unknown fields are refused. ' +
        'With X-Customer-Token: 401 `customer_token_invalid` or `customer_token_expired` when it is not valid, ' +
        '403 `customer_mismatch` when user_id or the session belongs to another customer. ' +
        '429 `order_proof_limited` (with Retry-After) after too many order lookups whose details did not match.',
      headers: { ...sessionTokenHeader, ...customerTokenHeader, ...idempotencyKeyHeader },
      body: chatBody,
      responses: {
        200: { description: 'The answer, stored with the question.', schema: chatAnswerSchema, example: answerExample },
        202: { description: queuedDescription, schema: queuedMessageSchema, example: queuedExample },
      },
      errors: [400, 401, 403, 409, 413, 415, 422, 429, 500, 502, 503, 504],
    },
    {
      method: 'post',
      path: '/api/v1/chat/stream',
      tag: 'chat',
      summary: 'Answer a message as Server-Sent Events',
      description:
        'Events: `sources` {sources}, `token` {delta}, then `done` (the same payload as POST /api/v1/chat) or `error` {code, message}. ' +
        'When a person takes the conversation over while the bot is answering, the stream ends with `queued` (the 202 body of POST /api/v1/chat) ' +
        'instead of `done`: the streamed text was not stored, drop it. ' +
        'Bad input is answered before the stream starts, as JSON.',
      headers: { ...sessionTokenHeader, ...customerTokenHeader, ...idempotencyKeyHeader },
      body: chatBody,
      responses: {
        200: {
          description: 'An event stream.',
          contentType: 'text/event-stream',
          example: 'event: sources\ndata: {"sources":[…]}\n\nevent: token\ndata: {"delta":"Refunds "}\n\nevent: done\ndata: {…}\n\n',
        },
        202: {
          description: `${queuedDescription} One \`queued\` event whose data is the 202 body of POST /api/v1/chat, then the stream ends.`,
          contentType: 'text/event-stream',
          example: `event: queued\ndata: ${JSON.stringify(queuedExample)}\n\n`,
        },
      },
      errors: [400, 401, 403, 409, 413, 415, 422, 429, 503],
    },
    {
      method: 'get',
      path: '/api/v1/chat/conversation/:session_id',
      tag: 'chat',
      summary: 'The conversation as the customer saw it',
      security: ['sessionToken'],
      params: sessionParam,
      responses: { 200: { description: 'Their messages and the answers, no tool traffic.', schema: conversationSchema } },
      errors: [400, 401, 404],
    },
    {
      method: 'get',
      path: '/api/v1/chat/conversation/:session_id/events',
      tag: 'chat',
      summary: "The conversation's new messages as Server-Sent Events",
      description:
        'Events: `ready` {session_id, handler, agent_name, support, after_seq} first, then each new message as `message` ' +
        '(a person joining or leaving as `handler`), each with `id: <seq>`; `end` {reason} when the instance shuts down; ' +
        '`erased` {session_id} when the conversation is erased (then the stream ends). ' +
        'Resumes after Last-Event-ID (an EventSource reconnecting), else after `after_seq`, else from now on. ' +
        'With the session token the customer sees what the read-back shows; with the agent key, what the history shows. ' +
        'Open streams are capped: 429 `too_many_streams` beyond EVENT_STREAMS_PER_CLIENT per client address (agent-key ' +
        'streams exempt), 503 `streams_full` (Retry-After) beyond EVENT_STREAMS_PER_INSTANCE on this instance.',
      security: ['sessionToken', 'agentKey'],
      params: sessionParam,
      query: z.object({ after_seq: eventsAfterSeqSchema.optional() }),
      headers: { 'Last-Event-ID': { schema: eventsAfterSeqSchema, description: 'The id of the last event received; wins over after_seq.' } },
      responses: {
        200: {
          description: 'An event stream that stays open (comment lines as heartbeat).',
          contentType: 'text/event-stream',
          example: 'retry: 2000\nevent: ready\ndata: {"session_id":"session-123","handler":"bot","agent_name":null,…}\n\nid: 7\nevent: message\ndata: {…}\n\n',
        },
      },
      errors: [400, 401, 404, 429, 503],
    },
    {
      method: 'post',
      path: '/api/v1/chat/feedback',
      tag: 'chat',
      summary: 'Rate an answer',
      security: ['sessionToken', 'agentKey'],
      body: json(feedbackRequestSchema, { session_id: 'session-123', message_id: answerExample.message_id, rating: 'down', comment: 'It did not say when.' }),
      responses: { 200: { description: 'The stored rating (a new one replaces the earlier).', schema: feedbackResultSchema } },
      errors: [400, 401, 404, 415],
    },
    {
      method: 'get',
      path: '/api/v1/chat/sessions',
      tag: 'review',
      summary: 'Sessions, newest activity first',
      security: ['agentKey'],
      query: sessionListQuerySchema(),
      responses: { 200: { description: 'One page; pass next_cursor as cursor for the next.', schema: sessionListSchema } },
      errors: [400, 401],
    },
    {
      method: 'get',
      path: '/api/v1/chat/history/:session_id',
      tag: 'review',
      summary: "A session's stored messages, tool traffic included",
      security: ['agentKey'],
      params: sessionParam,
      query: historyQuerySchema(limits.historyLimitMax),
      responses: { 200: { description: 'The newest `limit` messages, oldest first.', schema: historySchema } },
      errors: [400, 401, 404],
    },
    ...(['get', 'patch', 'delete'] as const).map(
      (method): ApiRoute => ({
        method,
        path: '/api/v1/conversations/:session_id/memory',
        tag: 'review',
        summary: { get: "The conversation's memory setting", patch: 'Set the memory strategy for later messages', delete: 'Clear the setting' }[method],
        security: ['agentKey'],
        params: sessionParam,
        ...(method === 'patch' && { body: json(conversationMemorySchema, { mode: 'summarize', context_limit: 12, keep_last_n_turns: 4 }) }),
        responses:
          method === 'delete'
            ? { 204: { description: 'Cleared.' } }
            : { 200: { description: 'The setting, what applies next, and the rolling summary.', schema: memoryViewSchema } },
        errors: method === 'patch' ? [400, 401, 404] : [400, 401, 404],
      }),
    ),
    {
      method: 'post',
      path: '/api/v1/conversations/:session_id/takeover',
      tag: 'review',
      summary: 'A person takes the conversation over from the bot',
      description: 'From then on the customer\'s messages are stored for this person (202) and no model is called. 409 `conversation_held` when another person holds it, unless `force` is true.',
      security: ['agentKey'],
      params: sessionParam,
      body: json(takeoverSchema, { agent_name: 'Maria' }),
      responses: { 200: { description: 'The person now holds the conversation.', schema: takeoverResultSchema } },
      errors: [400, 401, 404, 409, 415],
    },
    {
      method: 'post',
      path: '/api/v1/conversations/:session_id/replies',
      tag: 'review',
      summary: 'The person holding the conversation replies to the customer',
      description:
        `Content longer than ${limits.messageMaxChars} characters (MESSAGE_MAX_CHARS) is 413. ` +
        '409 `not_held` while the bot answers, `conversation_held` when another person holds it (or agent_name is not the holder).',
      security: ['agentKey'],
      params: sessionParam,
      body: json(replySchema, { content: 'I have refunded the order; you will see it within 5 days.', agent_name: 'Maria' }),
      responses: { 201: { description: 'The stored reply, as the conversation shows it.', schema: replyResultSchema } },
      errors: [400, 401, 404, 409, 413, 415],
    },
    {
      method: 'post',
      path: '/api/v1/conversations/:session_id/release',
      tag: 'review',
      summary: 'Hand the conversation back to the bot',
      description: 'Releasing a conversation the bot already answers changes nothing.',
      security: ['agentKey'],
      params: sessionParam,
      responses: { 200: { description: 'The bot answers again.', schema: releaseResultSchema } },
      errors: [400, 401, 404],
    },
    {
      method: 'get',
      path: '/api/v1/knowledge/sources',
      tag: 'knowledge',
      summary: 'Knowledge sources (articles), by name',
      security: ['agentKey'],
      query: knowledgeListQuerySchema,
      responses: { 200: { description: 'One page; pass next_after as after for the next.', schema: knowledgeSourceListSchema } },
      errors: [400, 401],
    },
    {
      method: 'get',
      path: '/api/v1/knowledge/sources/:source',
      tag: 'knowledge',
      summary: 'One source with its chunks',
      description: 'URL-encode the source name (`/` as `%2F`).',
      security: ['agentKey'],
      params: sourceParam,
      responses: { 200: { description: 'The source and its chunks in order.', schema: knowledgeSourceDetailSchema } },
      errors: [400, 401, 404],
    },
    {
      method: 'put',
      path: '/api/v1/knowledge/sources/:source',
      tag: 'knowledge',
      summary: 'Create or replace one document (article, page, PDF, Word file)',
      description:
        `Chunked and embedded like \`npm run ingest\` and written in one transaction: answers see the old document or the new one, never a mix. ` +
        'By content type: markdown and plain text as they are; an HTML page keeps its main content only (navigation, header, footer, ' +
        'cookie banners, related links, scripts and forms dropped) as Markdown with headings, lists, tables and code; a PDF is stored ' +
        'page by page (each chunk cites its page); a Word file (.docx) keeps its headings, lists and tables. `?url=` (or `url` in JSON) ' +
        "names where the document came from: every answer citing it carries that url. " +
        `Unchanged content changes nothing (outcome \`unchanged\`). Bodies over ${limits.knowledgeDocumentMaxBytes} bytes ` +
        '(KNOWLEDGE_DOCUMENT_MAX_BYTES) are refused with 413; other content types with 415; empty or non-text content with 400; ' +
        'an encrypted or corrupt PDF or Word file with 422 `unreadable_document`, a PDF without a text layer (a scan) with 422 `no_text_layer`, ' +
        'a page with nothing left once its chrome is gone with 422 `empty_document`; while the embedding model is ' +
        'unavailable 503 (with Retry-After), and 409 while the knowledge base holds vectors of another embedding model. Nothing is written then.',
      security: ['agentKey'],
      params: sourceParam,
      query: knowledgePutQuerySchema,
      body: {
        'text/markdown': { schema: z.string().meta({ description: 'The article as markdown; its first `# ` heading is the title.' }), example: articleExample.content },
        'text/plain': { schema: z.string().meta({ description: 'The article as plain text.' }) },
        'text/html': { schema: z.string().meta({ description: "A web page; its charset from the Content-Type or its <meta charset>. The title is its h1, else its <title>." }) },
        'application/pdf': { schema: z.string().meta({ format: 'binary', description: 'A PDF with a text layer; the title is the source name unless given.' }) },
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
          schema: z.string().meta({ format: 'binary', description: 'A Word file (.docx); the title is its first level-1 heading.' }),
        },
        'application/json': { schema: knowledgeArticleSchema, example: articleExample },
      },
      responses: {
        200: { description: 'Replaced, or unchanged.', schema: knowledgePutResultSchema },
        201: {
          description: 'Created.',
          schema: knowledgePutResultSchema,
          example: { source: 'knowledge/help-center/refunds.md', title: 'Refund Policy', outcome: 'added', chunk_count: 1, embedded: 1, embedding_model: 'text-embedding-3-small' },
        },
      },
      errors: [400, 401, 409, 413, 415, 422, 503],
    },
    {
      method: 'delete',
      path: '/api/v1/knowledge/sources/:source',
      tag: 'knowledge',
      summary: 'Delete one article',
      description: 'Its chunks are removed in one statement; no answer cites it from then on.',
      security: ['agentKey'],
      params: sourceParam,
      responses: { 200: { description: 'Deleted.', schema: knowledgeDeleteResultSchema, example: { source: 'knowledge/help-center/refunds.md', deleted_chunks: 3 } } },
      errors: [400, 401, 404],
    },
    {
      method: 'get',
      path: '/api/v1/knowledge/insights',
      tag: 'knowledge',
      summary: 'Most cited articles and questions that found nothing',
      description: 'From the stored answers: the sources they cited, and the questions whose answer was escalated or below the escalation threshold.',
      security: ['agentKey'],
      query: knowledgeInsightsQuerySchema,
      responses: { 200: { description: 'Since `days` ago.', schema: knowledgeInsightsSchema } },
      errors: [400, 401],
    },
    {
      method: 'post',
      path: '/api/v1/knowledge/drafts',
      tag: 'knowledge',
      summary: 'Draft an article from a conversation a person answered',
      description:
        "The customer's escalated question (escalated because the help center lacked it: `not_in_help_center` or `model`) becomes the title, " +
        "the person's replies after it the body, greetings and sign-offs dropped. Card numbers, IBANs, e-mail addresses, phone numbers, " +
        "order-number-shaped tokens and the names the conversation tells (the person's, the customer's) are masked. Nothing is stored: " +
        'publish the edited draft with PUT /api/v1/knowledge/sources/{source}. 422 `no_escalated_question` or `no_person_reply` when there is nothing to draft from.',
      security: ['agentKey'],
      body: json(knowledgeDraftRequestSchema, { session_id: 'session-123' }),
      responses: {
        200: {
          description: 'The draft.',
          schema: knowledgeDraftSchema,
          example: {
            session_id: 'session-123',
            title: 'Do you sell gift cards?',
            body: 'Yes: gift cards of 25, 50 and 100 euros are sold in our shops and arrive by post within three days.',
            source: 'learned/do-you-sell-gift-cards.md',
          },
        },
      },
      errors: [400, 401, 404, 422],
    },
    {
      method: 'get',
      path: '/api/v1/knowledge/syncs',
      tag: 'knowledge',
      summary: 'Site sync runs, newest first',
      description:
        'Each run of a site\'s sync (the service\'s schedule for KNOWLEDGE_SYNC_URLS, or `npm run ingest -- <url>`): when it started and ended, ' +
        'the site, its status (`running`, `succeeded`, `held` when it would have removed too much, `failed`), its counts and its pages\' errors.',
      security: ['agentKey'],
      query: knowledgeSyncsQuerySchema,
      responses: { 200: { description: 'One page; pass next_cursor as cursor for the next.', schema: knowledgeSyncListSchema } },
      errors: [400, 401],
    },
    {
      method: 'get',
      path: '/api/v1/shop/tools',
      tag: 'review',
      summary: "The tools of the shop's systems",
      description: "Each action and connected MCP tool: its arguments, the ones bound to the verified customer, whether it writes, and the agents that name it.",
      security: ['agentKey'],
      responses: { 200: { description: 'The tools, in the order the agents are offered them.', schema: shopToolListSchema } },
      errors: [401],
    },
    {
      method: 'post',
      path: '/api/v1/shop/tools/:name/try',
      tag: 'review',
      summary: 'Try one read-only tool as a verified customer',
      description:
        'Calls the tool exactly as a conversation of that customer would (binding, headers, network guard, caps, redaction) and answers ' +
        'what was sent (header values hidden) and what the model would receive. Nothing is stored. 403 `tool_writes` for a tool that may ' +
        'write (an action that is not a GET, an MCP tool): try those with `npm run shop -- try`. 400 when the arguments do not fit the tool.',
      security: ['agentKey'],
      params: { name: shopToolNameSchema },
      body: json(toolTrialRequestSchema, { customer_id: 'customer-123', arguments: { orderNumber: 'AB-12345' } }),
      responses: { 200: { description: 'What was sent and what the model would receive.', schema: toolTrialSchema } },
      errors: [400, 401, 403, 404, 415],
    },
    {
      method: 'post',
      path: '/api/v1/knowledge/syncs',
      tag: 'knowledge',
      summary: "Sync a site now, in the service",
      description:
        'Starts a sync of one site (a sitemap or a start page) in the service, as its schedule does: robots.txt obeyed, crawl state kept ' +
        '(ETags, Last-Modified, lastmod), new and changed pages stored under their canonical URL, gone pages removed (none past ' +
        'KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT unless `prune`), and the run recorded with trigger `api`. Answers 202 with the run\'s id as soon ' +
        'as it is recorded; GET /api/v1/knowledge/syncs?site= shows its outcome once it ends. `npm run ingest -- <url>` uses it while the ' +
        'service runs. 409 (with Retry-After) while a sync is going on, on this instance or another. A site is crawled ' +
        'public-only unless it is a configured site named with allow_private_network, or `allow_private_network` is asked for from the ' +
        'service\'s own machine (npm run ingest -- --allow-private-network there: a loopback socket, and no Forwarded, X-Forwarded-For or ' +
        'X-Real-IP header, whatever TRUST_PROXY says); asked for from anywhere else, 403 `private_site_refused`.',
      security: ['agentKey'],
      body: { 'application/json': { schema: knowledgeSyncRequestSchema, example: { site: 'https://help.example.com/sitemap.xml' } } },
      responses: {
        202: { description: 'Started; the run is recorded.', schema: knowledgeSyncStartedSchema, example: { id: 42, site: 'https://help.example.com/sitemap.xml', status: 'running' } },
      },
      errors: [400, 401, 403, 409],
    },
    ...privacyApiRoutes(),
    {
      method: 'get',
      path: '/health/live',
      tag: 'operations',
      summary: 'The process answers',
      responses: { 200: { description: 'Alive.', schema: liveSchema } },
    },
    ...['/health', '/health/ready'].map(
      (path): ApiRoute => ({
        method: 'get',
        path,
        tag: 'operations',
        summary: 'Ready: the database answers',
        responses: {
          200: { description: 'Ready.', schema: readySchema },
          503: { description: 'The database does not answer (Retry-After: 5).', schema: readySchema },
        },
      }),
    ),
    {
      method: 'get',
      path: '/metrics',
      tag: 'operations',
      summary: 'Prometheus metrics',
      responses: { 200: { description: 'Prometheus text format.', contentType: 'text/plain' } },
    },
    {
      method: 'get',
      path: '/openapi.json',
      tag: 'operations',
      summary: 'This document',
      responses: { 200: { description: 'OpenAPI 3.1.', schema: z.looseObject({ openapi: z.string() }) } },
    },
    ...pageRoutes(limits.demoPage),
  ];
}

/** The built pages (npm run build): 503 pages_not_built until they are. */
function pageRoutes(demoPage: boolean): ApiRoute[] {
  const files: [string, string, string][] = [
    ['/', 'text/html', "The shop's page with the chat widget (without SHOP_FILE: the sample shop's demo page)"],
    ['/review', 'text/html', 'The review console'],
    ['/widget.js', 'text/javascript', 'The chat widget, to embed with one script tag'],
    ['/review.js', 'text/javascript', "The review console's script"],
    ['/review.css', 'text/css', "The review console's stylesheet"],
    ['/shop.css', 'text/css', "The demo page's stylesheet"],
  ];
  // Served only with the generated demo secret (no customer-token secret configured).
  if (demoPage) files.push(['/demo/signed-in', 'text/html', 'The demo shop page as its sample customer, signed in with a demo customer token']);
  return files.map(([path, contentType, summary]) => ({
    method: 'get',
    path,
    tag: 'pages',
    summary,
    responses: { 200: { description: summary, contentType } },
    errors: [503],
  }));
}
