import { Router } from 'express';
import type { ChatService } from '../../chat/chat-service';
import { AppError, NotFoundError } from '../../errors';
import type { ChatStore, StoredMessage } from '../../store/types';
import { requireAgentKey } from '../auth';
import { chatRequestSchema, historyQuerySchema, sessionIdSchema } from '../schemas';
import { parseInput } from '../validate';

export interface ChatRoutesParts {
  chatService: ChatService;
  store: ChatStore;
  agentApiKey: string;
  messageMaxChars: number;
  historyLimitMax: number;
  agentTypes: string[];
}

/** POST /chat for the widget; GET /chat/history/:session_id for human agents (agent key). */
export function chatRoutes(parts: ChatRoutesParts): Router {
  const router = Router();
  const chatBody = chatRequestSchema(parts.messageMaxChars, parts.agentTypes);
  const historyQuery = historyQuerySchema(parts.historyLimitMax);

  router.post('/chat', async (req, res) => {
    if (!req.is('application/json')) {
      throw new AppError(415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
    }
    const body = parseInput(chatBody, req.body);

    // A client that hangs up mid-answer cancels the model call; nothing is stored.
    // (For a POST, req 'close' fires once the body is read; the response's does not.)
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) abort.abort();
    });

    const answer = await parts.chatService.answer(
      {
        message: body.message,
        sessionId: body.session_id,
        userId: body.user_id,
        agentType: body.agent_type,
        memoryStrategy: body.memory_strategy,
        memoryInjection: body.memory_injection,
      },
      abort.signal,
    );
    res.json(answer);
  });

  router.get('/chat/history/:session_id', requireAgentKey(parts.agentApiKey), async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const { limit } = parseInput(historyQuery, req.query);
    const session = await parts.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    const messages = await parts.store.listRecentMessages(sessionId, limit);
    res.json({
      session_id: sessionId,
      messages: messages.map(toHistoryItem),
      count: messages.length,
      total: session.messageCount,
    });
  });

  return router;
}

/** A stored message as the review endpoints show it. */
function toHistoryItem(m: StoredMessage) {
  const sources = m.metadata['sources'];
  return {
    id: m.id,
    seq: m.seq,
    role: m.role,
    content: m.content,
    token_count: m.tokenCount,
    timestamp: m.createdAt.toISOString(),
    ...(m.confidence !== null && { confidence: m.confidence }),
    ...(m.escalated !== null && { escalated: m.escalated }),
    ...(Array.isArray(sources) && { sources }),
    ...(m.toolCalls?.length && { tool_calls: m.toolCalls }),
    ...(m.toolCallId !== null && { tool_call_id: m.toolCallId }),
    ...(m.name !== null && { name: m.name }),
  };
}
