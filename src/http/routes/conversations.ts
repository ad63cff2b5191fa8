import { Router } from 'express';
import { NotFoundError } from '../../errors';
import type { ConversationMemorySetting } from '../../memory/settings';
import type { ChatStore } from '../../store/types';
import { requireAgentKey } from '../auth';
import { conversationMemorySchema, sessionIdSchema } from '../schemas';
import { parseInput } from '../validate';

export interface ConversationRoutesParts {
  store: ChatStore;
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
    res.json(memoryView(sessionId, session.memorySetting, session.summary, session.summarizedThroughSeq));
  });

  router.patch('/conversations/:session_id/memory', async (req, res) => {
    const sessionId = parseInput(sessionIdSchema, req.params.session_id);
    const { memory_injection, ...strategy } = parseInput(conversationMemorySchema, req.body);
    const setting: ConversationMemorySetting = { strategy, ...(memory_injection !== undefined && { memory_injection }) };
    if (!(await parts.store.setMemorySetting(sessionId, setting))) {
      throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    }
    const session = await parts.store.getSession(sessionId);
    res.json(memoryView(sessionId, setting, session?.summary ?? null, session?.summarizedThroughSeq ?? null));
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

function memoryView(
  sessionId: string,
  setting: ConversationMemorySetting | null,
  summary: string | null,
  summarizedThroughSeq: number | null,
) {
  return {
    session_id: sessionId,
    memory_strategy: setting?.strategy ?? null,
    memory_injection: setting?.memory_injection ?? null,
    summary,
    summarized_through_seq: summarizedThroughSeq,
  };
}
