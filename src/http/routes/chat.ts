import { Router, type Request, type Response } from 'express';
import type { ChatOutcome, ChatRequest, ChatService, StageTimings } from '../../chat/chat-service';
import { authorOf, handoffOf, type HandoffService, type QueuedMessage } from '../../chat/handoff';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyScope, IdempotentRequests, type IdempotentStart } from '../../chat/idempotency';
import { isSameCustomer } from '../../agent/tools/conversation-customer';
import { AppError, CustomerMismatchError, NotFoundError, UnauthorizedError } from '../../errors';
import { CUSTOMER_TOKEN_HEADER, type CustomerTokenVerifier } from '../../identity/customer-token';
import { publicStrategyRefusal } from '../../memory/input-ceiling';
import type { Logger } from '../../observability/logger';
import type { AnswerFeedback, FeedbackStore } from '../../store/feedback-store';
import type { ChatStore, IdempotencyClaimToken, StoredMessage } from '../../store/types';
import { agentKeyCheck, requireAgentKey } from '../auth';
import { describeError, logFailure } from '../error-handler';
import { chatRequestSchema, encodeCursor, historyQuerySchema, sessionIdSchema, sessionListQuerySchema } from '../schemas';
import { SESSION_TOKEN_HEADER, type SessionTokens } from '../session-token';
import { parseInput } from '../validate';

export interface ChatRoutesParts {
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
  /** Idempotency-Key handling (keys kept in the database). */
  idempotency: IdempotentRequests;
  /** Customers' ratings of answers, shown with each answer (POST /chat/feedback stores them). */
  feedback: FeedbackStore;
  /** Human takeover: a customer's message to a conversation a person holds is stored and answered 202, without the model. */
  handoff: HandoffService;
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
  const provesSession = (req: Request, sessionId: string) =>
    parts.sessionTokens.verify(sessionId, req.get(SESSION_TOKEN_HEADER)) || isAgent(req);

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
      customerId: customer,
      clientAddress: req.ip,
      message: body.message,
      sessionId: body.session_id,
      mayContinueSession: body.session_id !== undefined && provesSession(req, body.session_id),
      userId: body.user_id,
      agentType: body.agent_type,
      memoryStrategy: body.memory_strategy,
      memoryInjection: body.memory_injection,
    };
  };

  /**
   * The customer X-Customer-Token vouches for (401 when it is sent but not valid);
   * undefined without one. A user_id in the body must then be that customer (403).
   */
  const verifiedCustomer = async (req: Request, userId: string | undefined): Promise<string | undefined> => {
    const token = req.get(CUSTOMER_TOKEN_HEADER);
    if (token === undefined) return undefined;
    const { customerId } = await parts.customerTokens.verify(token.trim());
    if (userId !== undefined && !isSameCustomer(userId, customerId)) {
      throw new CustomerMismatchError('user_id is not the customer the X-Customer-Token was issued for: leave user_id out, or send the same id.');
    }
    return customerId;
  };

  /**
   * The answer as the client gets it, with the session's token: only a request
   * that started the session or proved it may continue it gets this far.
   */
  const withSessionToken = (outcome: ChatOutcome) => ({
    ...outcome.answer,
    session_token: parts.sessionTokens.issue(outcome.answer.session_id),
  });
  /** A stored answer replayed for a repeated Idempotency-Key: the token only if its request started the session, or this one proves it may continue it. */
  const replayed = (req: Request, outcome: ChatOutcome) =>
    outcome.sessionCreated || provesSession(req, outcome.answer.session_id) ? withSessionToken(outcome) : outcome.answer;

  /**
   * With an Idempotency-Key: the stored answer of an earlier request with that key,
   * or the claim to run this one. Without: run it. Answered before any stream starts,
   * so 400/409/422 are plain JSON.
   */
  const startChat = async (req: Request): Promise<IdempotentStart | { request: ChatRequest; claim?: undefined } | { queued: QueuedMessage }> => {
    const request = await readChatRequest(req);
    // A person holds the conversation: store the message for them, call no model. A
    // signed-in customer is checked against the session's as for any message (403).
    if (request.sessionId && request.mayContinueSession) {
      if (request.customerId) await parts.chatService.bindCustomer(request.sessionId, request.customerId);
      const queued = await parts.handoff.queueIfHeld(request.sessionId, request.message);
      if (queued) return { queued };
    }
    const key = IdempotentRequests.readKey(req.get(IDEMPOTENCY_KEY_HEADER));
    if (!key) return { request };
    const scope = idempotencyScope({
      agent: isAgent(req),
      customerId: request.customerId,
      provenSessionId: request.sessionId !== undefined && request.mayContinueSession ? request.sessionId : undefined,
    });
    return parts.idempotency.begin(key, request, scope);
  };
  /** Runs the chat; a claimed key is given up when it fails, so that a retry runs again. */
  const runChat = (start: { request: ChatRequest; claim?: IdempotencyClaimToken }, work: (request: ChatRequest) => Promise<ChatOutcome>) =>
    start.claim ? parts.idempotency.run({ claim: start.claim }, () => work(start.request)) : work(start.request);

  router.post('/chat', async (req, res) => {
    const start = await startChat(req);
    if ('queued' in start) {
      res.status(202).json(start.queued);
      return;
    }
    if ('replay' in start) {
      res.set(IDEMPOTENT_REPLAYED_HEADER, 'true').json(replayed(req, start.replay));
      return;
    }
    const abort = abortOnHangUp(res);
    const outcome = await runChat(start, (request) => parts.chatService.answer(request, abort.signal));
    if (outcome.stages) res.set('Server-Timing', serverTiming(outcome.stages));
    res.json(withSessionToken(outcome));
  });

  router.post('/chat/stream', async (req, res) => {
    const start = await startChat(req);
    if ('queued' in start) {
      // Nothing to stream: one `queued` event, and the person's reply comes on the conversation's event stream.
      res.writeHead(202, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform' });
      res.end(`event: queued\ndata: ${JSON.stringify(start.queued)}\n\n`);
      return;
    }
    const abort = abortOnHangUp(res);
    // The stream opens with its first event (or heartbeat): a request refused before
    // that (no access to the session, database down) still gets a plain status and JSON.
    let opened = false;
    const open = () => {
      if (opened) return;
      opened = true;
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        // Proxies such as nginx would otherwise buffer the whole answer.
        'X-Accel-Buffering': 'no',
        ...('replay' in start && { [IDEMPOTENT_REPLAYED_HEADER]: 'true' }),
      });
    };
    const send = (event: string, data: unknown) => {
      open();
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    if ('replay' in start) {
      // A repeated Idempotency-Key: the stored answer as the one `done` event, nothing streamed again.
      send('done', replayed(req, start.replay));
      res.end();
      return;
    }
    const heartbeat = setInterval(() => {
      open();
      res.write(': ping\n\n');
    }, parts.streamHeartbeatMs);
    try {
      const outcome = await runChat(start, (request) =>
        parts.chatService.answer(request, abort.signal, {
          onSources: (sources) => send('sources', { sources }),
          onToken: (delta) => send('token', { delta }),
        }),
      );
      send('done', withSessionToken(outcome));
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
    if (!parts.sessionTokens.verify(sessionId, req.get(SESSION_TOKEN_HEADER))) {
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
    ...(m.toolCalls?.length && { tool_calls: m.toolCalls }),
    ...(m.toolCallId !== null && { tool_call_id: m.toolCallId }),
    ...(m.name !== null && { name: m.name }),
    ...answerUsage(m),
  };
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
