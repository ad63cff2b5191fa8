import { Router } from 'express';
import { NotFoundError } from '../../errors';
import type { ChatService } from '../../chat/chat-service';
import type { ConversationMemorySetting } from '../../memory/settings';
import type { ChatStore, SessionRecord } from '../../store/types';
import { requireAgentKey } from '../auth';
import { conversationMemorySchema, sessionIdSchema } from '../schemas';
import { parseInput } from '../validate';

export interface ConversationRoutesParts {
  store: ChatStore;
  chatService: Pick<ChatService, 'sessionMemory'>;
  agentApiKey: string;
}

/**
 * The conversation-level memory setting, for human agents (agent key): it applies
 * to every later message of the session unless a request sets its own.
 */
export function conversationRoutes(parts: ConversationRoutesParts): Router {
  const router = Router();
  router.use('/conversations', requireAgentKey(parts.agentApiKey));

  router.get('/conversations/:session_id/memory', async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const session = await parts.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    res.json(memoryView(session, parts.chatService));
  });

  router.patch('/conversations/:session_id/memory', async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const { memory_injection, ...strategy } = parseInput(conversationMemorySchema, req.body);
    const setting: ConversationMemorySetting = { strategy, ...(memory_injection !== undefined && { memory_injection }) };
    if (!(await parts.store.setMemorySetting(sessionId, setting))) {
      throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    }
    const session = await parts.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    res.json(memoryView(session, parts.chatService));
  });

  router.delete('/conversations/:session_id/memory', async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    if (!(await parts.store.setMemorySetting(sessionId, null))) {
      throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    }
    res.status(204).end();
  });

  return router;
}

/**
 * The conversation's own setting (null when it has none), the one its next
 * message gets when the request names none (`effective`, with where it came
 * from), and its rolling summary.
 */
function memoryView(session: SessionRecord, chatService: ConversationRoutesParts['chatService']) {
  const effective = chatService.sessionMemory(session);
  return {
    session_id: session.sessionId,
    memory_strategy: session.memorySetting?.strategy ?? null,
    memory_injection: session.memorySetting?.memory_injection ?? null,
    effective: { memory_strategy: effective.strategy, source: effective.source, memory_injection: effective.memoryInjection },
    summary: session.summary,
    summarized_through_seq: session.summarizedThroughSeq,
  };
}
