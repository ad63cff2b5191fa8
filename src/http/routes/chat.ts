import { Router, type Request, type Response } from 'express';
import type { ChatOutcome, ChatRequest, ChatService } from '../../chat/chat-service';
import { AppError, NotFoundError, UnauthorizedError } from '../../errors';
import type { Logger } from '../../observability/logger';
import type { AnswerFeedback, FeedbackStore } from '../../store/feedback-store';
import type { ChatStore, StoredMessage } from '../../store/types';
import { requireAgentKey } from '../auth';
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

  /** The validated request, or a 4xx before anything is answered or stored. */
  const readChatRequest = (req: Request): ChatRequest => {
    if (!req.is('application/json')) {
      throw new AppError(415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
    }
    const body = parseInput(chatBody, req.body);
    return {
      message: body.message,
      sessionId: body.session_id,
      userId: body.user_id,
      agentType: body.agent_type,
      memoryStrategy: body.memory_strategy,
      memoryInjection: body.memory_injection,
    };
  };

  /**
   * The answer as the client gets it: with the session token when this request
   * started the session or proved it holds the token already, so a token is
   * never handed to someone who merely knows a session id.
   */
  const withSessionToken = (req: Request, outcome: ChatOutcome) => {
    const { session_id } = outcome.answer;
    const proven = parts.sessionTokens.verify(session_id, req.get(SESSION_TOKEN_HEADER));
    return outcome.sessionCreated || proven ? { ...outcome.answer, session_token: parts.sessionTokens.issue(session_id) } : outcome.answer;
  };

  router.post('/chat', async (req, res) => {
    const request = readChatRequest(req);
    const abort = abortOnHangUp(res);
    const outcome = await parts.chatService.answer(request, abort.signal);
    res.json(withSessionToken(req, outcome));
  });

  router.post('/chat/stream', async (req, res) => {
    const request = readChatRequest(req);
    const abort = abortOnHangUp(res);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // Proxies such as nginx would otherwise buffer the whole answer.
      'X-Accel-Buffering': 'no',
    });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    res.write(': stream open\n\n');
    const heartbeat = setInterval(() => res.write(': ping\n\n'), parts.streamHeartbeatMs);
    try {
      const outcome = await parts.chatService.answer(request, abort.signal, {
        onSources: (sources) => send('sources', { sources }),
        onToken: (delta) => send('token', { delta }),
      });
      send('done', withSessionToken(req, outcome));
    } catch (error) {
      if (abort.signal.aborted) return;
      const { status, code, message } = describeError(error);
      logFailure(parts.logger, error, req, status, code);
      send('error', { code, message });
    } finally {
      clearInterval(heartbeat);
      res.end();
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
