import { Router, type Request, type Response } from 'express';
import type { ChatOutcome, ChatRequest } from '../../chat/answer-types';
import type { ChatService } from '../../chat/chat-service';
import { authorOf, handoffOf, type HandoffService } from '../../chat/handoff';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyScope as idempotencyScopeOf } from '../../chat/idempotency';
import type { StageTimings } from '../../chat/stage-timings';
import type { ChatTurns, TurnRequest } from '../../chat/turn';
import { isSameCustomer } from '../../agent/tools/conversation-customer';
import { AppError, CustomerMismatchError, NotFoundError, UnauthorizedError } from '../../errors';
import { CUSTOMER_TOKEN_HEADER, type CustomerTokenVerifier, type VerifiedCustomer } from '../../identity/customer-token';
import { publicStrategyRefusal } from '../../memory/input-ceiling';
import type { Logger } from '../../observability/logger';
import type { AnswerFeedback, FeedbackStore } from '../../store/feedback-store';
import type { ChatStore, StoredMessage } from '../../store/types';
import { agentKeyCheck, requireAgentKey } from '../auth';
import { describeError, logFailure } from '../error-handler';
import { chatRequestSchema, encodeCursor, historyQuerySchema, sessionIdSchema, sessionListQuerySchema } from '../schemas';
import { languageFromAcceptLanguage } from '../../chat/conversation-language';
import { SESSION_TOKEN_HEADER, type SessionTokens } from '../session-token';
import { parseInput } from '../validate';

export interface ChatRoutesParts {
  /** Runs a customer's turn: hold check, Idempotency-Key, answer, storage. */
  turns: ChatTurns;
  /** The service that answers (the conversation routes read its memory settings; the scripts answer through it). */
  chatService: ChatService;
  store: ChatStore;
  agentApiKey: string;
  sessionTokens: SessionTokens;
  /** Checks X-Customer-Token, the shop's signed word for who its customer is. */
  customerTokens: CustomerTokenVerifier;
  messageMaxChars: number;
  historyLimitMax: number;
  /** MODEL_INPUT_MAX_TOKENS: a public caller's strategy may not ask for more. */
  modelInputMaxTokens: number;
  agentTypes: string[];
  /** How often a stream sends a comment line while the answer is being made. */
  streamHeartbeatMs: number;
  /** Customers' ratings of answers, shown with each answer (POST /chat/feedback stores them). */
  feedback: FeedbackStore;
  /** Human takeover: whether people answer now (SUPPORT_HOURS), shown with the conversation. */
  handoff: Pick<HandoffService, 'availability'>;
  logger: Logger;
}

/**
 * The chat endpoints: POST /chat and /chat/stream for the widget, the customer's
 * own read-back (session token), and the review endpoints for human agents
 * (agent key): the session list and a session's full history.
 */
export function chatRoutes(parts: ChatRoutesParts): Router {
  const router = Router();
  const chatBody = chatRequestSchema(parts.messageMaxChars, parts.agentTypes);
  const historyQuery = historyQuerySchema(parts.historyLimitMax);
  const sessionsQuery = sessionListQuerySchema();
  const agentOnly = requireAgentKey(parts.agentApiKey);
  const isAgent = agentKeyCheck(parts.agentApiKey);
  /** The session token for this id, or the agent key: either lets a caller continue the session. */
  const provesSession = async (req: Request, sessionId: string) =>
    isAgent(req) || (await parts.sessionTokens.verify(sessionId, req.get(SESSION_TOKEN_HEADER)));

  /** The validated request, or a 4xx before anything is answered or stored. */
  const readChatRequest = async (req: Request): Promise<ChatRequest> => {
    if (!req.is('application/json')) {
      throw new AppError(415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
    }
    const body = parseInput(chatBody, req.body);
    // The widget is public: its strategies stay within the operator's ceilings (the agent key may use the full range).
    const refusal = body.memory_strategy && !isAgent(req) ? publicStrategyRefusal(body.memory_strategy, parts.modelInputMaxTokens) : null;
    if (refusal) throw new AppError(403, 'memory_strategy_not_allowed', refusal);
    const customer = await verifiedCustomer(req, body.user_id);
    return {
      customerId: customer?.customerId,
      ...(customer?.email && { customerEmail: customer.email }),
      clientAddress: req.ip,
      message: body.message,
      sessionId: body.session_id,
      mayContinueSession: body.session_id !== undefined && (await provesSession(req, body.session_id)),
      userId: body.user_id,
      agentType: body.agent_type,
      memoryStrategy: body.memory_strategy,
      memoryInjection: body.memory_injection,
      ...(body.language && { language: body.language }),
      // The widget sends the page's lang, then the browser's languages; any browser sends the latter.
      widgetLanguage: languageFromAcceptLanguage(req.get('accept-language')),
    };
  };

  /**
   * The customer X-Customer-Token vouches for (401 when it is sent but not valid);
   * undefined without one. A user_id in the body must then be that customer (403).
   */
  const verifiedCustomer = async (req: Request, userId: string | undefined): Promise<VerifiedCustomer | undefined> => {
    const token = req.get(CUSTOMER_TOKEN_HEADER);
    if (token === undefined) return undefined;
    const customer = await parts.customerTokens.verify(token.trim());
    if (userId !== undefined && !isSameCustomer(userId, customer.customerId)) {
      throw new CustomerMismatchError('user_id is not the customer the X-Customer-Token was issued for: leave user_id out, or send the same id.');
    }
    return customer;
  };

  /**
   * The answer as the client gets it, with the session's token: only a request
   * that started the session or proved it may continue it gets this far.
   */
  const withSessionToken = async (outcome: ChatOutcome) => ({
    ...outcome.answer,
    session_token: await parts.sessionTokens.issue(outcome.answer.session_id),
  });
  /** A stored answer replayed for a repeated Idempotency-Key: the token only if its request started the session, or this one proves it may continue it. */
  const replayed = async (req: Request, outcome: ChatOutcome) =>
    outcome.sessionCreated || (await provesSession(req, outcome.answer.session_id)) ? withSessionToken(outcome) : outcome.answer;

  /** The turn as the chat endpoints hand it over: the request, its Idempotency-Key and who is asking. */
  const readTurn = async (req: Request): Promise<TurnRequest> => {
    const request = await readChatRequest(req);
    const idempotencyScope = idempotencyScopeOf({
      agent: isAgent(req),
      customerId: request.customerId,
      provenSessionId: request.sessionId !== undefined && request.mayContinueSession ? request.sessionId : undefined,
    });
    return { request, idempotencyKey: req.get(IDEMPOTENCY_KEY_HEADER), idempotencyScope };
  };

  router.post('/chat', async (req, res) => {
    const turn = await readTurn(req);
    const result = await parts.turns.take(turn, abortOnHangUp(res).signal);
    switch (result.kind) {
      case 'queued':
        if (result.replayed) res.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
        res.status(202).json(result.queued);
        return;
      case 'replayed':
        res.set(IDEMPOTENT_REPLAYED_HEADER, 'true').json(await replayed(req, result.outcome));
        return;
      case 'answered':
        if (result.outcome.stages) res.set('Server-Timing', serverTiming(result.outcome.stages));
        res.json(await withSessionToken(result.outcome));
    }
  });

  router.post('/chat/stream', async (req, res) => {
    const turn = await readTurn(req);
    const abort = abortOnHangUp(res);
    // The stream opens with its first event (or heartbeat): a request refused before
    // that (bad input, no access to the session, a key in use, database down) still
    // gets a plain status and JSON.
    let opened = false;
    const open = (status = 200, headers: Record<string, string> = {}) => {
      if (opened) return;
      opened = true;
      res.writeHead(status, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        // Proxies such as nginx would otherwise buffer the whole answer.
        'X-Accel-Buffering': 'no',
        ...headers,
      });
    };
    const send = (event: string, data: unknown) => {
      open();
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    let heartbeat: NodeJS.Timeout | undefined;
    try {
      const result = await parts.turns.take(turn, abort.signal, {
        // Heartbeats only once the model is called: until then a refusal is still plain JSON.
        onAnswering: () => {
          heartbeat = setInterval(() => {
            open();
            res.write(': ping\n\n');
          }, parts.streamHeartbeatMs);
        },
        onSources: (sources) => send('sources', { sources }),
        onToken: (delta) => send('token', { delta }),
      });
      switch (result.kind) {
        case 'queued':
          // Nothing to stream: one `queued` event, and the person's reply comes on the conversation's event stream.
          // After a takeover during the answer the stream is already open (200) with tokens: `queued` then
          // ends it instead of `done`, and the widget drops the streamed text.
          open(202, result.replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: 'true' } : {});
          send('queued', result.queued);
          return;
        case 'replayed':
          // A repeated Idempotency-Key: the stored answer as the one `done` event, nothing streamed again.
          open(200, { [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
          send('done', await replayed(req, result.outcome));
          return;
        case 'answered':
          send('done', await withSessionToken(result.outcome));
      }
    } catch (error) {
      if (abort.signal.aborted) return;
      if (!opened) throw error;
      const { status, code, message } = describeError(error);
      logFailure(parts.logger, error, req, status, code);
      send('error', { code, message });
    } finally {
      clearInterval(heartbeat);
      if (opened) res.end();
    }
  });

  router.get('/chat/conversation/:session_id', async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    if (!(await parts.sessionTokens.verify(sessionId, req.get(SESSION_TOKEN_HEADER)))) {
      throw new UnauthorizedError('Send the session token this conversation was given in the X-Session-Token header.');
    }
    const session = await parts.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    const [messages, ratings] = await Promise.all([
      parts.store.listRecentMessages(sessionId, parts.historyLimitMax),
      parts.feedback.forSession(sessionId),
    ]);
    res.json({
      session_id: sessionId,
      escalated: session.escalated,
      handler: session.handler,
      agent_name: session.agentName,
      // Whether people answer now (SUPPORT_HOURS), so the widget promises a person only when one can follow up.
      support: parts.handoff.availability(),
      // The customer's view: their messages and the answers (with their own rating), no tool traffic.
      messages: messages.filter(isCustomerVisible).map((m) => withFeedback(toMessageItem(m), m, ratings)),
    });
  });

  router.get('/chat/sessions', agentOnly, async (req, res) => {
    const query = parseInput(sessionsQuery, req.query);
    const page = await parts.store.listSessions({
      text: query.q,
      escalated: query.escalated,
      handler: query.handler,
      waiting: query.waiting,
      escalationReason: query.escalation_reason,
      limit: query.limit,
      after: query.cursor,
    });
    res.json({
      sessions: page.sessions.map((s) => ({
        session_id: s.sessionId,
        user_id: s.userId,
        agent_type: s.agentType,
        title: s.title,
        last_message: s.lastMessage,
        message_count: s.messageCount,
        escalated: s.escalated,
        escalation_reason: s.escalationReason,
        handoff_summary: s.handoffSummary,
        handler: s.handler,
        agent_name: s.agentName,
        waiting: s.waitingSince !== null && s.handler === 'bot',
        waiting_since: s.waitingSince?.toISOString() ?? null,
        memory_strategy: s.memorySetting?.strategy ?? null,
        created_at: s.createdAt.toISOString(),
        updated_at: s.updatedAt.toISOString(),
      })),
      next_cursor: page.nextCursor ? encodeCursor(page.nextCursor) : null,
    });
  });

  router.get('/chat/history/:session_id', agentOnly, async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const { limit } = parseInput(historyQuery, req.query);
    const session = await parts.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    const [messages, ratings, usage] = await Promise.all([
      parts.store.listRecentMessages(sessionId, limit),
      parts.feedback.forSession(sessionId),
      parts.store.sessionUsage(sessionId),
    ]);
    res.json({
      session_id: sessionId,
      messages: messages.map((m) => withFeedback(toHistoryItem(m), m, ratings)),
      // The whole conversation's answers (not only this page): tokens, cached tokens and the estimated cost.
      usage: {
        answers: usage.answers,
        prompt_tokens: usage.promptTokens,
        cached_tokens: usage.cachedTokens,
        completion_tokens: usage.completionTokens,
        ...(usage.cost !== null && { cost: usage.cost, priced_answers: usage.pricedAnswers }),
      },
      count: messages.length,
      total: session.messageCount,
      // The customer's language as the conversation keeps it: a person who takes over answers in it.
      language: session.language,
      // Why the conversation was last escalated, and the model's summary for the person who takes over.
      escalation_reason: session.escalationReason,
      handoff_summary: session.handoffSummary,
    });
  });

  return router;
}

/**
 * A client that hangs up mid-answer cancels the model call; nothing is stored.
 * (For a POST, req 'close' fires once the body is read; the response's does not.)
 */
function abortOnHangUp(res: Response): AbortController {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) abort.abort();
  });
  return abort;
}

/** The answer's stages as a Server-Timing header: `window;dur=1.2, retrieval;dur=3.4, …`. */
function serverTiming(stages: StageTimings): string {
  return Object.entries(stages)
    .map(([name, ms]) => `${name};dur=${ms}`)
    .join(', ');
}

/** The customer sees their messages, the answers (the bot's and people's) and the notes of a person joining or leaving; no tool traffic. */
export function isCustomerVisible(m: StoredMessage): boolean {
  return m.role === 'user' || (m.role === 'assistant' && !m.toolCalls?.length) || handoffOf(m) !== null;
}

/** What the customer and the agents both see of a message. */
export function toMessageItem(m: StoredMessage) {
  const sources = m.metadata['sources'];
  const handoff = handoffOf(m);
  return {
    id: m.id,
    seq: m.seq,
    role: m.role,
    content: m.content,
    author: authorOf(m),
    ...(handoff && { handoff }),
    // What was masked before the message was stored (REDACT), e.g. {"card": 1}.
    ...(m.role === 'user' && isRecord(m.metadata['redacted']) && { redacted: m.metadata['redacted'] }),
    timestamp: m.createdAt.toISOString(),
    ...(m.escalated !== null && { escalated: m.escalated }),
    ...(Array.isArray(sources) && { sources }),
  };
}

/** An answer carries its rating (`feedback`, null when unrated); other messages nothing. */
function withFeedback<T extends object>(item: T, m: StoredMessage, ratings: Map<string, AnswerFeedback>) {
  if (m.role !== 'assistant' || m.toolCalls?.length) return item;
  const f = ratings.get(m.id);
  return { ...item, feedback: f ? { rating: f.rating, comment: f.comment, updated_at: f.updatedAt.toISOString() } : null };
}

/** A stored message as the review endpoints show it: everything, tool traffic included. */
export function toHistoryItem(m: StoredMessage) {
  return {
    ...toMessageItem(m),
    token_count: m.tokenCount,
    ...(m.confidence !== null && { confidence: m.confidence }),
    ...(m.escalated !== null && { escalation_reason: m.escalationReason }),
    ...(typeof m.metadata['handoff_summary'] === 'string' && { handoff_summary: m.metadata['handoff_summary'] }),
    ...(typeof m.metadata['act'] === 'string' && { act: m.metadata['act'] }),
    ...(m.toolCalls?.length && { tool_calls: m.toolCalls }),
    ...(m.toolCallId !== null && { tool_call_id: m.toolCallId }),
    ...(m.name !== null && { name: m.name }),
    ...answerUsage(m),
    ...answerRetrieval(m),
  };
}

/** How an answer's knowledge was searched for and why each document came (metadata.retrieval), for reviewers. */
function answerRetrieval(m: StoredMessage) {
  const retrieval = m.metadata['retrieval'];
  return m.role === 'assistant' && typeof retrieval === 'object' && retrieval !== null ? { retrieval } : {};
}

/** An answer's token usage (cached tokens included) and estimated cost, as stored with it. */
function answerUsage(m: StoredMessage) {
  const usage = m.metadata['usage'];
  const cost = m.metadata['cost'];
  if (m.role !== 'assistant' || typeof usage !== 'object' || usage === null) return {};
  const tokens = usage as Record<string, unknown>;
  const count = (key: string) => (typeof tokens[key] === 'number' ? tokens[key] : 0);
  return {
    usage: {
      prompt_tokens: count('prompt_tokens'),
      completion_tokens: count('completion_tokens'),
      total_tokens: count('total_tokens'),
      cached_tokens: count('cached_tokens'),
      ...(typeof tokens['by_purpose'] === 'object' && tokens['by_purpose'] !== null && { by_purpose: tokens['by_purpose'] }),
    },
    ...(typeof cost === 'number' && { cost }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
