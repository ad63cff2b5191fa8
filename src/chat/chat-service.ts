import { randomUUID } from 'node:crypto';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { SupportGraph } from '../agent/graph';
import { DEFAULT_AGENT_TYPE, type AgentSpec } from '../agents';
import type { Config } from '../config';
import type { ContextMessage } from '../memory/context';
import { resolveMemory, type EffectiveMemory, type MemorySettings, type MemoryStrategyInput } from '../memory/settings';
import type { MemoryReport } from '../memory/strategies';
import type { TokenCounter } from '../memory/tokens';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { ChatStore, NewMessage, RetrievedDocument, SessionRecord, StoredMessage } from '../store/types';

export interface ChatRequest {
  message: string;
  sessionId?: string;
  userId?: string;
  agentType?: string;
  memoryStrategy?: MemoryStrategyInput;
  memoryInjection?: boolean;
}

export interface SourceReference {
  title: string;
  source: string;
  score: number;
}

/** What the memory strategy did, and which setting applied (request, conversation, agent or default). */
export interface MemoryOutcome extends MemoryReport {
  source: EffectiveMemory['source'];
  settings: MemorySettings;
  memory_injection: boolean;
}

/** The answer to one customer message, as POST /api/v1/chat returns it. */
export interface ChatAnswer {
  session_id: string;
  message_id: string;
  agent_type: string;
  response: string;
  confidence: number;
  escalated: boolean;
  sources: SourceReference[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** What the model was sent of the conversation so far. */
  history: { messages: number; tokens: number };
  memory: MemoryOutcome;
}

/** An agent ready to answer: its spec and its compiled graph. */
export interface AgentRuntime {
  spec: AgentSpec;
  graph: SupportGraph;
}

export interface ChatServiceParts {
  store: ChatStore;
  agents: ReadonlyMap<string, AgentRuntime>;
  tokenCounter: TokenCounter;
  history: Config['history'];
  metrics: Metrics;
  logger: Logger;
}

/**
 * One customer turn: resolve the agent and its memory setting, load the durable
 * history the strategy needs, run the graph, then store the question, any tool
 * calls and results, and the answer together. Nothing is stored until the answer
 * is complete, so a failed or aborted turn leaves no trace.
 */
export class ChatService {
  constructor(private readonly parts: ChatServiceParts) {}

  async answer(request: ChatRequest, signal?: AbortSignal): Promise<ChatAnswer> {
    const { store, tokenCounter, logger } = this.parts;
    const sessionId = request.sessionId ?? randomUUID();
    const startedAt = performance.now();

    const session = request.sessionId ? await store.getSession(sessionId) : null;
    const agent = this.agentFor(request.agentType ?? session?.agentType);
    const userId = request.userId ?? session?.userId ?? null;
    const memory = resolveMemory({
      request: { strategy: request.memoryStrategy, memory_injection: request.memoryInjection },
      conversation: session?.memorySetting,
      agent: { strategy: agent.spec.memoryStrategy, memory_injection: agent.spec.memoryInjection },
    });

    const loaded = await this.loadHistory(sessionId, session, memory.settings);
    const loadedTokens = loaded.reduce((sum, m) => sum + m.tokenCount, 0);
    logger.info(
      {
        session_id: sessionId,
        history_messages: loaded.length,
        history_tokens: loadedTokens,
        history_seqs: loaded.length > 0 ? [loaded[0]!.seq, loaded.at(-1)!.seq] : [],
      },
      `Retrieved ${loaded.length} conversation messages for agent (~${loadedTokens} tokens) from session ${sessionId}`,
    );
    const crossSession = memory.memoryInjection && userId ? await store.latestUserSummary(userId, sessionId) : null;

    const result = await agent.graph.invoke(
      {
        query: request.message,
        session_id: sessionId,
        user_id: userId,
        conversation_history: loaded.map(toContextMessage),
        history_tokens_total: session?.tokenCount ?? 0,
        memory_settings: memory.settings,
        memory_state: { summary: session?.summary ?? null, summarizedThroughSeq: session?.summarizedThroughSeq ?? null },
        memory_injection: memory.memoryInjection,
        cross_session_memory: crossSession?.summary ?? null,
      },
      { signal, configurable: { user_id: userId } },
    );

    const sources = citedSources(result.retrieved_documents);
    const confidence = round(result.confidence);
    const latencyMs = Math.round(performance.now() - startedAt);
    const stored = await store.appendTurn({
      sessionId,
      userId,
      agentType: agent.spec.key,
      messages: [
        { role: 'user', content: request.message, tokenCount: tokenCounter.countMessage({ content: request.message }) },
        ...result.messages.map((m) => this.toNewMessage(m)),
        {
          role: 'assistant',
          content: result.response,
          tokenCount: tokenCounter.countMessage({ content: result.response }),
          confidence,
          escalated: result.escalated,
          metadata: { model: result.model, usage: result.usage, latency_ms: latencyMs, sources, memory: result.memory_report },
        },
      ],
    });

    this.parts.metrics.recordMemory(result.memory_report, result.compacted_by_tool);
    const outcome: MemoryOutcome = {
      ...result.memory_report,
      source: memory.source,
      settings: memory.settings,
      memory_injection: memory.memoryInjection,
    };
    logger.info(
      {
        session_id: sessionId,
        agent_type: agent.spec.key,
        model: result.model,
        ...result.usage,
        confidence,
        escalated: result.escalated,
        tool_calls: result.messages.filter((m) => m.getType() === 'tool').length,
        memory: { ...result.memory_report, source: memory.source, memory_injection: memory.memoryInjection },
        latency_ms: latencyMs,
      },
      'Answered chat message',
    );

    return {
      session_id: sessionId,
      message_id: stored.at(-1)!.id,
      agent_type: agent.spec.key,
      response: result.response,
      confidence,
      escalated: result.escalated,
      sources,
      usage: result.usage,
      history: {
        messages: result.model_history.length,
        tokens: result.model_history.reduce((sum, m) => sum + m.tokens, 0),
      },
      memory: outcome,
    };
  }

  /** The requested agent; a session stored under an agent type that no longer exists gets the default. */
  private agentFor(agentType: string | undefined): AgentRuntime {
    return this.parts.agents.get(agentType ?? DEFAULT_AGENT_TYPE) ?? this.parts.agents.get(DEFAULT_AGENT_TYPE)!;
  }

  /**
   * The durable messages the strategy works on: the SQL window for `window`, the
   * messages after the stored summary for `summarize`, every message otherwise.
   */
  private async loadHistory(sessionId: string, session: SessionRecord | null, settings: MemorySettings): Promise<StoredMessage[]> {
    const { enabled, maxMessages, maxTokens } = this.parts.history;
    if (!enabled || !session) return [];
    switch (settings.mode) {
      case 'window':
        return this.parts.store.loadHistoryWindow(sessionId, { maxMessages, maxTokens: settings.token_budget ?? maxTokens });
      case 'summarize':
        return this.parts.store.listMessagesAfter(sessionId, session.summarizedThroughSeq ?? 0);
      default:
        return this.parts.store.listMessagesAfter(sessionId, 0);
    }
  }

  /** A tool call or tool result of this turn, as it is stored (results in full). */
  private toNewMessage(message: BaseMessage): NewMessage {
    const { tokenCounter } = this.parts;
    if (ToolMessage.isInstance(message)) {
      const content = message.text;
      return {
        role: 'tool',
        content,
        toolCallId: message.tool_call_id,
        name: message.name,
        tokenCount: tokenCounter.countMessage({ content, name: message.name }),
      };
    }
    const ai = message as AIMessage;
    const toolCalls = (ai.tool_calls ?? []).map((c) => ({ id: c.id ?? '', name: c.name, arguments: c.args }));
    return {
      role: 'assistant',
      content: ai.text,
      toolCalls,
      tokenCount: tokenCounter.countMessage({ content: ai.text, tool_calls: toolCalls }),
    };
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

function toContextMessage(m: StoredMessage): ContextMessage {
  return {
    role: m.role,
    content: m.content,
    tool_calls: m.toolCalls,
    tool_call_id: m.toolCallId,
    name: m.name,
    tokens: m.tokenCount,
    seq: m.seq,
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
