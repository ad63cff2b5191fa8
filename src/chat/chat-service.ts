import { randomUUID } from 'node:crypto';
import type { SupportGraph } from '../agent/graph';
import type { HistoryMessage } from '../agent/state';
import type { Config } from '../config';
import type { TokenCounter } from '../memory/tokens';
import type { Logger } from '../observability/logger';
import type { ChatStore, RetrievedDocument, StoredMessage } from '../store/types';

export const DEFAULT_AGENT_TYPE = 'support';

export interface ChatRequest {
  message: string;
  sessionId?: string;
  userId?: string;
}

export interface SourceReference {
  title: string;
  source: string;
  score: number;
}

/** The answer to one customer message, as POST /api/v1/chat returns it. */
export interface ChatAnswer {
  session_id: string;
  message_id: string;
  response: string;
  confidence: number;
  escalated: boolean;
  sources: SourceReference[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** What the model was sent of the conversation so far. */
  history: { messages: number; tokens: number };
}

export interface ChatServiceParts {
  store: ChatStore;
  graph: SupportGraph;
  tokenCounter: TokenCounter;
  history: Config['history'];
  logger: Logger;
}

/**
 * One customer turn: load the session's history window, run the graph, then store
 * the question and the answer together. Nothing is stored until the answer is
 * complete, so a failed or aborted turn leaves no trace.
 */
export class ChatService {
  constructor(private readonly parts: ChatServiceParts) {}

  async answer(request: ChatRequest, signal?: AbortSignal): Promise<ChatAnswer> {
    const { store, graph, tokenCounter, logger } = this.parts;
    const sessionId = request.sessionId ?? randomUUID();
    const startedAt = performance.now();

    const window = await this.loadWindow(sessionId);
    const historyTokens = window.reduce((sum, m) => sum + m.tokenCount, 0);
    logger.info(
      {
        session_id: sessionId,
        history_messages: window.length,
        history_tokens: historyTokens,
        history_seqs: window.length > 0 ? [window[0]!.seq, window.at(-1)!.seq] : [],
      },
      `Retrieved ${window.length} conversation messages for agent (~${historyTokens} tokens) from session ${sessionId}`,
    );

    const result = await graph.invoke(
      {
        query: request.message,
        session_id: sessionId,
        user_id: request.userId ?? null,
        conversation_history: window.map(toHistoryMessage),
      },
      { signal },
    );

    const sources = citedSources(result.retrieved_documents);
    const confidence = round(result.confidence);
    const latencyMs = Math.round(performance.now() - startedAt);
    const [, assistant] = await store.appendTurn({
      sessionId,
      userId: request.userId ?? null,
      agentType: DEFAULT_AGENT_TYPE,
      messages: [
        { role: 'user', content: request.message, tokenCount: tokenCounter.countMessage({ content: request.message }) },
        {
          role: 'assistant',
          content: result.response,
          tokenCount: tokenCounter.countMessage({ content: result.response }),
          confidence,
          escalated: result.escalated,
          metadata: { model: result.model, usage: result.usage, latency_ms: latencyMs, sources },
        },
      ],
    });

    logger.info(
      {
        session_id: sessionId,
        model: result.model,
        ...result.usage,
        confidence,
        escalated: result.escalated,
        latency_ms: latencyMs,
      },
      'Answered chat message',
    );

    return {
      session_id: sessionId,
      message_id: assistant!.id,
      response: result.response,
      confidence,
      escalated: result.escalated,
      sources,
      usage: result.usage,
      history: { messages: window.length, tokens: historyTokens },
    };
  }

  private async loadWindow(sessionId: string): Promise<StoredMessage[]> {
    const { enabled, maxMessages, maxTokens } = this.parts.history;
    if (!enabled) return [];
    return this.parts.store.loadHistoryWindow(sessionId, { maxMessages, maxTokens });
  }
}

/** One entry per document (its best chunk's score), most similar first. */
function citedSources(documents: RetrievedDocument[]): SourceReference[] {
  const bySource = new Map<string, SourceReference>();
  for (const d of documents) {
    if (!bySource.has(d.source)) bySource.set(d.source, { title: d.title, source: d.source, score: round(d.similarity) });
  }
  return [...bySource.values()];
}

function toHistoryMessage(m: StoredMessage): HistoryMessage {
  return { role: m.role, content: m.content, tool_calls: m.toolCalls, tool_call_id: m.toolCallId, name: m.name };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
