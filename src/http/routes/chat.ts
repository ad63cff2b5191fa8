import { Router, type Request, type Response } from 'express';
import type { ChatOutcome, ChatRequest, ChatService, StageTimings } from '../../chat/chat-service';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, IdempotentRequests, type IdempotentStart } from '../../chat/idempotency';
import { AppError, NotFoundError, UnauthorizedError } from '../../errors';
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
  messageMaxChars: number;
  historyLimitMax: number;
  agentTypes: string[];
  /** How often a stream sends a comment line while the answer is being made. */
  streamHeartbeatMs: number;
  /** Idempotency-Key handling (keys kept in the database). */
  idempotency: IdempotentRequests;
  /** Customers' ratings of answers, shown with each answer (POST /chat/feedback stores them). */
  feedback: FeedbackStore;
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
  const readChatRequest = (req: Request): ChatRequest => {
    if (!req.is('application/json')) {
      throw new AppError(415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
    }
    const body = parseInput(chatBody, req.body);
    return {
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
  const startChat = async (req: Request): Promise<IdempotentStart | { request: ChatRequest; claim?: undefined }> => {
    const request = readChatRequest(req);
    const key = IdempotentRequests.readKey(req.get(IDEMPOTENCY_KEY_HEADER));
    return key ? parts.idempotency.begin(key, request) : { request };
  };
  /** Runs the chat; a claimed key is given up when it fails, so that a retry runs again. */
  const runChat = (start: { request: ChatRequest; claim?: IdempotencyClaimToken }, work: (request: ChatRequest) => Promise<ChatOutcome>) =>
    start.claim ? parts.idempotency.run({ claim: start.claim }, () => work(start.request)) : work(start.request);

  router.post('/chat', async (req, res) => {
    const start = await startChat(req);
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
      // The customer's view: their messages and the answers (with their own rating), no tool traffic.
      messages: messages.filter(isCustomerVisible).map((m) => withFeedback(toMessageItem(m), m, ratings)),
    });
  });

  router.get('/chat/sessions', agentOnly, async (req, res) => {
    const query = parseInput(sessionsQuery, req.query);
    const page = await parts.store.listSessions({ text: query.q, escalated: query.escalated, limit: query.limit, after: query.cursor });
    res.json({
      sessions: page.sessions.map((s) => ({
        session_id: s.sessionId,
        user_id: s.userId,
        agent_type: s.agentType,
        title: s.title,
        last_message: s.lastMessage,
        message_count: s.messageCount,
        escalated: s.escalated,
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
    const [messages, ratings] = await Promise.all([parts.store.listRecentMessages(sessionId, limit), parts.feedback.forSession(sessionId)]);
    res.json({
      session_id: sessionId,
      messages: messages.map((m) => withFeedback(toHistoryItem(m), m, ratings)),
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

function isCustomerVisible(m: StoredMessage): boolean {
  return m.role === 'user' || (m.role === 'assistant' && !m.toolCalls?.length);
}

/** What the customer and the agents both see of a message. */
function toMessageItem(m: StoredMessage) {
  const sources = m.metadata['sources'];
  return {
    id: m.id,
    seq: m.seq,
    role: m.role,
    content: m.content,
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
function toHistoryItem(m: StoredMessage) {
  return {
    ...toMessageItem(m),
    token_count: m.tokenCount,
    ...(m.confidence !== null && { confidence: m.confidence }),
    ...(m.toolCalls?.length && { tool_calls: m.toolCalls }),
    ...(m.toolCallId !== null && { tool_call_id: m.toolCallId }),
    ...(m.name !== null && { name: m.name }),
  };
}
