import { randomUUID } from 'node:crypto';
import { AIMessageChunk, ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { SupportGraph } from '../agent/graph';
import type { SupportStateType } from '../agent/state';
import { isSameCustomer, type ConversationIdentity } from '../agent/tools/conversation-customer';
import { documentsFoundBySearch } from '../agent/tools/search-knowledge-base';
import { DEFAULT_AGENT_TYPE, type AgentSpec } from '../agents';
import type { Config } from '../config';
import { CustomerMismatchError, SessionAccessError } from '../errors';
import type { ContextMessage } from '../memory/context';
import { historyLoadBound, windowLimitsFor } from '../memory/input-ceiling';
import { resolveMemory, type EffectiveMemory, type MemoryLevel, type MemorySettings, type MemoryStrategyInput } from '../memory/settings';
import { OPENING_READ_MESSAGES, windowLoadPlan, type MemoryReport } from '../memory/strategies';
import type { TokenCounter } from '../memory/tokens';
import type { Tracing } from '../observability/langfuse';
import { traceText } from '../observability/personal-data';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { IdentityStore } from '../store/identity-store';
import type { ChatStore, IdempotencyClaimToken, NewMessage, RetrievedDocument, SessionRecord, StoredMessage } from '../store/types';
import { AnswerPieces } from './answer-pieces';
import { turnBill, type PriceTable, type TurnUsage } from './cost';

export interface ChatRequest {
  message: string;
  sessionId?: string;
  /** The caller proved it may continue this session (its session token, or the agent key). */
  mayContinueSession?: boolean;
  /** A label for the customer (shown to agents); it unlocks nothing unless customerId is the same. */
  userId?: string;
  /** The customer a valid X-Customer-Token vouched for on this request: the only key to personal data. */
  customerId?: string;
  /** The client's address, for the per-client limit on wrong order proofs. */
  clientAddress?: string;
  agentType?: string;
  memoryStrategy?: MemoryStrategyInput;
  memoryInjection?: boolean;
  /** The request's claim on its Idempotency-Key: storing the turn completes it (see IdempotentRequests). */
  idempotency?: IdempotencyClaimToken;
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
  /**
   * Summed over every model call of the turn (the answer's, the rolling summary's, the query
   * rewrite's), each purpose also on its own in by_purpose; cached_tokens: the prompt tokens
   * the provider served from its prompt cache.
   */
  usage: TurnUsage;
  /** Estimated cost of every model call of the turn (MODEL_PRICES, per million tokens); absent when a model has no price. */
  cost?: number;
  /** What the model was sent of the conversation so far. */
  history: { messages: number; tokens: number };
  memory: MemoryOutcome;
  /**
   * What failed but was worked around: `knowledge_unavailable` (embeddings down,
   * answered without the help center) and `model_fallback_offline` (the offline
   * responder answered for the hosted model). Empty normally.
   */
  degraded: string[];
}

/** What a streamed answer reports while it is being made. */
export interface AnswerListener {
  /** The cited sources so far: once retrieval is done (before the first token), and again, whole, after a knowledge search adds some. */
  onSources?(sources: SourceReference[]): void;
  /** A piece of the answer's text, as the model writes it (only the answering model, never the summarizer's). */
  onToken?(delta: string): void;
}

export interface ChatOutcome {
  answer: ChatAnswer;
  /** True when this request started the session (no stored turn existed). */
  sessionCreated: boolean;
  /** Milliseconds spent in each stage of this answer (absent on a replayed answer). */
  stages?: StageTimings;
}

/**
 * Where an answer's time went, in milliseconds: the session row, the history the
 * strategy needs (and cross-session memory), retrieval (embedding the question and
 * hybrid_search), the memory strategy, the model calls (with tool rounds), and
 * storing the turn. `total` is the whole of ChatService.answer.
 */
export interface StageTimings {
  session: number;
  window: number;
  /** Making a follow-up's search query (a model call with QUERY_REWRITE=model): the rewrite's hidden cost. */
  rewrite: number;
  retrieval: number;
  memory: number;
  model: number;
  tools: number;
  persist: number;
  total: number;
}

/** An agent ready to answer: its spec and its compiled graph. */
export interface AgentRuntime {
  spec: AgentSpec;
  graph: SupportGraph;
}

export interface ChatServiceParts {
  store: ChatStore;
  /** Which verified customer each session is bound to. */
  identity: IdentityStore;
  agents: ReadonlyMap<string, AgentRuntime>;
  tokenCounter: TokenCounter;
  history: Config['history'];
  /** MODEL_INPUT_MAX_TOKENS: history loading is bounded by it too. */
  inputMaxTokens: number;
  metrics: Metrics;
  /** Langfuse (or NO_TRACING). */
  tracing: Tracing;
  logger: Logger;
  /** MODEL_PRICES, for the estimated cost of each answer; empty: no cost. */
  prices?: PriceTable;
}

/** Precedence: the request's setting, then the conversation's, then the agent's, then `window`. */
function memoryOf(agent: AgentSpec, session: SessionRecord | null, request: MemoryLevel = {}): EffectiveMemory {
  return resolveMemory({
    request,
    conversation: session?.memorySetting,
    agent: { strategy: agent.memoryStrategy, memory_injection: agent.memoryInjection },
  });
}

/**
 * One customer turn: resolve the agent and its memory setting, load the durable
 * history the strategy needs, run the graph, then store the question, any tool
 * calls and results, and the answer together. Nothing is stored until the answer
 * is complete, so a failed or aborted turn leaves no trace.
 */
export class ChatService {
  constructor(private readonly parts: ChatServiceParts) {}

  async answer(request: ChatRequest, signal?: AbortSignal, listener?: AnswerListener): Promise<ChatOutcome> {
    const { store, tracing, metrics } = this.parts;
    const sessionId = request.sessionId ?? randomUUID();
    const startedAt = performance.now();

    const clock = new StageClock(startedAt);

    const session = request.sessionId ? await store.getSession(sessionId) : null;
    // A known session id alone must not let anyone read or write into that conversation.
    if (session && !request.mayContinueSession) throw new SessionAccessError();
    clock.lap('session');
    const agent = this.agentFor(request.agentType ?? session?.agentType);
    const customerId = request.customerId ? await this.bindCustomer(sessionId, request.customerId) : null;
    const userId = customerId ?? request.userId ?? session?.userId ?? null;
    const memory = memoryOf(agent.spec, session, { strategy: request.memoryStrategy, memory_injection: request.memoryInjection });

    // One trace per request, its observations tagged with the session, the customer, the agent and the strategy.
    const trace = {
      sessionId,
      // The customer id is personal data: Langfuse gets it only when told to capture that.
      userId: tracing.capturePersonalData ? userId : null,
      tags: [`agent_type:${agent.spec.key}`, `memory:${memory.settings.mode}`, ...(listener ? ['streamed'] : [])],
      metadata: { agent_type: agent.spec.key, memory_strategy: memory.settings.mode, memory_source: memory.source },
    };
    try {
      return await tracing.trace(listener ? 'chat.stream' : 'chat', { message: traceText(tracing, request.message) }, trace, async (root, traceId) => {
        const outcome = await this.respond({ request, sessionId, session, agent, userId, customerId, memory, traceId, startedAt, clock }, signal, listener);
        const { answer } = outcome;
        root.update({
          output: { response: traceText(tracing, answer.response), confidence: answer.confidence, escalated: answer.escalated },
          // The turn's bill, every model call counted (each call is also a generation of this trace).
          metadata: { usage: answer.usage, ...(answer.cost !== undefined && { cost: answer.cost }) },
        });
        if (traceId) {
          tracing.score({ traceId, name: 'confidence', value: answer.confidence, dataType: 'NUMERIC' });
          tracing.score({ traceId, name: 'escalated', value: answer.escalated ? 1 : 0, dataType: 'BOOLEAN' });
        }
        return outcome;
      });
    } catch (error) {
      // A customer who hung up is not a model failure.
      if (!signal?.aborted) metrics.recordAnswerError(error);
      throw error;
    }
  }

  /** Load, graph, persist: the request's steps inside its trace. */
  private async respond(
    turn: {
      request: ChatRequest;
      sessionId: string;
      session: SessionRecord | null;
      agent: AgentRuntime;
      userId: string | null;
      /** The verified customer (customer token), or null: anonymous for personal data. */
      customerId: string | null;
      memory: EffectiveMemory;
      traceId: string | null;
      startedAt: number;
      clock: StageClock;
    },
    signal?: AbortSignal,
    listener?: AnswerListener,
  ): Promise<ChatOutcome> {
    const { store, tokenCounter, logger, tracing } = this.parts;
    const { request, sessionId, session, agent, userId, customerId, memory, traceId, startedAt, clock } = turn;

    const history = await tracing.observe('load_history', 'span', { mode: memory.settings.mode }, async (span) => {
      const loaded = await this.loadHistory(sessionId, session, memory.settings);
      const { messages } = loaded;
      span.update({ output: { messages: messages.length, tokens: messages.reduce((sum, m) => sum + m.tokenCount, 0) } });
      return loaded;
    });
    const loaded = history.messages;
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
    // Cross-session memory is the customer's own past conversations: read and written only for a verified customer.
    const memoryInjection = memory.memoryInjection && customerId !== null;
    const crossSession = memoryInjection ? await store.latestUserSummary(customerId!, sessionId) : null;
    clock.lap('window');

    const input = {
      query: request.message,
      session_id: sessionId,
      user_id: userId,
      conversation_history: loaded.map(toContextMessage),
      history_tokens_total: session?.tokenCount ?? 0,
      history_messages_total: session?.messageCount ?? 0,
      memory_settings: memory.settings,
      memory_state: { summary: session?.summary ?? null, summarizedThroughSeq: session?.summarizedThroughSeq ?? null },
      memory_injection: memoryInjection,
      cross_session_memory: crossSession?.summary ?? null,
    };
    // A tool may end the turn with an HTTP error (too many wrong order proofs: 429): nothing is stored then.
    let stoppedBy: Error | null = null;
    const stop = new AbortController();
    const identity: ConversationIdentity = {
      verifiedCustomerId: customerId,
      sessionId,
      clientAddress: request.clientAddress ?? null,
      stopTurn: (error) => {
        stoppedBy ??= error;
        stop.abort(error);
      },
    };
    const runConfig = { signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal, configurable: { identity } };
    const streamed = await this.streamGraph(agent.graph, input, runConfig, listener, startedAt, (node) => clock.lap(NODE_STAGES[node] ?? 'model')).catch(
      (error: unknown) => {
        throw stoppedBy ?? error;
      },
    );
    if (stoppedBy) throw stoppedBy;
    const { result, timeToFirstTokenMs } = streamed;

    // The graph's retrieval and any knowledge searches the model made are the answer's sources.
    const sources = citedSources([...result.retrieved_documents, ...documentsFoundBySearch(result.messages)]);
    const confidence = round(result.confidence);
    const latencyMs = Math.round(performance.now() - startedAt);
    const outcome: MemoryOutcome = {
      ...result.memory_report,
      ...(result.memory_report.input_ceiling && {
        input_ceiling: { ...result.memory_report.input_ceiling, history_cut: history.olderLeftOut },
      }),
      source: memory.source,
      settings: memory.settings,
      memory_injection: memoryInjection,
    };
    const historyTokens = result.model_history.reduce((sum, m) => sum + m.tokens, 0);
    // Every call on the bill: the answer's, and the summary's and query rewrite's beside it.
    const answerCalls = result.messages.filter((m) => m.getType() === 'ai').length + 1;
    const bill = turnBill(this.parts.prices ?? {}, { model: result.model, usage: result.usage, calls: answerCalls }, result.side_calls);
    const cost = bill.cost;
    const answer: ChatAnswer = {
      session_id: sessionId,
      message_id: '', // the stored answer's id, below
      agent_type: agent.spec.key,
      response: result.response,
      confidence,
      escalated: result.escalated,
      sources,
      usage: bill.usage,
      ...(cost !== null && { cost }),
      history: { messages: result.model_history.length, tokens: historyTokens },
      memory: outcome,
      degraded: result.degraded,
    };
    const turnMessages: NewMessage[] = [
      { role: 'user', content: request.message, tokenCount: tokenCounter.countMessage({ content: request.message }) },
      ...result.messages.map((m) => this.toNewMessage(m)),
      {
        role: 'assistant',
        content: result.response,
        tokenCount: tokenCounter.countMessage({ content: result.response }),
        confidence,
        escalated: result.escalated,
        metadata: {
          model: result.model,
          usage: bill.usage,
          ...(cost !== null && { cost }),
          latency_ms: latencyMs,
          sources,
          // Why these passages: what the knowledge base was searched with, and how that query was made.
          retrieval: { query: result.search_query.text, method: result.search_query.method },
          memory: result.memory_report,
          // Feedback on this answer becomes a score on its trace.
          ...(traceId && { trace_id: traceId }),
        },
      },
    ];
    const stored = await tracing.observe('persist', 'span', { messages: turnMessages.length }, () =>
      store.appendTurn({
        sessionId,
        userId,
        agentType: agent.spec.key,
        // With an Idempotency-Key the answer is kept with the turn, for retries.
        idempotency: request.idempotency && { ...request.idempotency, response: { ...answer } },
        messages: turnMessages,
      }),
    );
    answer.message_id = stored.at(-1)!.id;
    clock.lap('persist');
    clock.stages.total = performance.now() - startedAt;

    this.parts.metrics.recordMemory(result.memory_report, result.compacted_by_tool);
    logger.debug({ session_id: sessionId, stages: roundStages(clock.stages) }, 'Answer stages (ms)');
    this.parts.metrics.recordAnswer({
      agentType: agent.spec.key,
      model: result.model,
      usage: result.usage,
      historyMessages: result.model_history.length,
      historyTokens,
      escalated: result.escalated,
      timeToFirstTokenMs,
    });
    logger.info(
      {
        session_id: sessionId,
        agent_type: agent.spec.key,
        model: result.model,
        ...bill.usage,
        confidence,
        escalated: result.escalated,
        tool_calls: result.messages.filter((m) => m.getType() === 'tool').length,
        memory: { ...result.memory_report, source: memory.source, memory_injection: memoryInjection },
        latency_ms: latencyMs,
        ...(result.degraded.length > 0 && { degraded: result.degraded }),
        ...(timeToFirstTokenMs !== null && { streamed: true, time_to_first_token_ms: timeToFirstTokenMs }),
      },
      'Answered chat message',
    );
    return { answer, sessionCreated: session === null, stages: roundStages(clock.stages) };
  }

  /**
   * Runs the graph, reporting each node as it finishes (`onNodeDone`, for the
   * stage timings: the nodes run one after another, so the time between two
   * updates is the later node's). With a listener it also streams: the sources
   * once retrieval is done (again after a knowledge search adds some), then the
   * text pieces of the answering node's model calls (the summarizer's, in
   * apply_memory, never leak). Returns the final state, like invoke.
   */
  private async streamGraph(
    graph: SupportGraph,
    input: Parameters<SupportGraph['invoke']>[0],
    runConfig: { signal?: AbortSignal; configurable: { identity: ConversationIdentity } },
    listener: AnswerListener | undefined,
    startedAt: number,
    onNodeDone: (node: string) => void,
  ) {
    let timeToFirstTokenMs: number | null = null;
    const pieces = new AnswerPieces();
    const sourceDocuments: RetrievedDocument[] = [];
    let result: SupportStateType | undefined;
    const streamMode = listener ? (['messages', 'updates', 'values'] as const) : (['updates', 'values'] as const);
    const stream = await graph.stream(input, { ...runConfig, streamMode: [...streamMode] });
    for await (const [mode, chunk] of stream) {
      if (mode === 'values') {
        result = chunk as SupportStateType;
      } else if (mode === 'updates') {
        const update = chunk as Record<string, Partial<SupportStateType>>;
        for (const node of Object.keys(update)) onNodeDone(node);
        // Sources as they are found: the graph's retrieval, then each knowledge search.
        const found = [...(update['retrieve']?.retrieved_documents ?? []), ...documentsFoundBySearch(update['tools']?.messages ?? [])];
        if (update['retrieve'] || found.length > 0) {
          sourceDocuments.push(...found);
          listener?.onSources?.(citedSources(sourceDocuments));
        }
      } else if (listener && mode === 'messages') {
        const [message, metadata] = chunk as [BaseMessage, { langgraph_node?: string; langgraph_step?: number }];
        if (metadata.langgraph_node !== 'generate_response' || !AIMessageChunk.isInstance(message)) continue;
        // Each run of the node is one model call (a tool round, then the answer).
        const piece = pieces.next(metadata.langgraph_step, message.text);
        if (piece === '') continue;
        timeToFirstTokenMs ??= Math.round(performance.now() - startedAt);
        listener.onToken?.(piece);
      }
    }
    if (!result) throw new Error('The graph stream ended without a final state');
    // What the node added after the model (the offer of a human agent) streams last,
    // so the pieces always add up to the stored response.
    if (listener && result.response.startsWith(pieces.text) && result.response.length > pieces.text.length) {
      listener.onToken?.(result.response.slice(pieces.text.length));
    }
    return { result, timeToFirstTokenMs };
  }

  /**
   * The memory a session's next message gets when the request names none: the
   * conversation's own setting, else its agent's default (the review console shows it).
   */
  sessionMemory(session: SessionRecord): EffectiveMemory {
    return memoryOf(this.agentFor(session.agentType).spec, session);
  }

  /**
   * Binds the session to the verified customer on its first token; a session
   * bound to another customer refuses (403). Earlier anonymous turns of the same
   * session stay in it: the browser that wrote them holds its session token.
   * Public for messages a person answers (human takeover), which skip answer().
   */
  async bindCustomer(sessionId: string, customerId: string): Promise<string> {
    const bound = await this.parts.identity.bindSessionCustomer(sessionId, customerId);
    if (!isSameCustomer(bound, customerId)) {
      throw new CustomerMismatchError('This conversation belongs to another signed-in customer: start a new conversation.');
    }
    return bound;
  }

  /** The requested agent; a session stored under an agent type that no longer exists gets the default. */
  private agentFor(agentType: string | undefined): AgentRuntime {
    return this.parts.agents.get(agentType ?? DEFAULT_AGENT_TYPE) ?? this.parts.agents.get(DEFAULT_AGENT_TYPE)!;
  }

  /**
   * The durable messages the strategy works on: the SQL window for `window`, the
   * messages after the stored summary for `summarize`, the history otherwise (with
   * the conversation's opening for `trim` and `compact`, which may pin it). All of
   * them newest first and bounded by the ceiling on one model call
   * (MODEL_INPUT_MAX_TOKENS): more could never be sent, and a long session must
   * not be read whole on every turn. `olderLeftOut`: the bound left out older
   * messages the strategy would have been given (never said of `window`, whose
   * own limits cut).
   */
  private async loadHistory(
    sessionId: string,
    session: SessionRecord | null,
    settings: MemorySettings,
  ): Promise<{ messages: StoredMessage[]; olderLeftOut: boolean }> {
    const { enabled } = this.parts.history;
    if (!enabled || !session) return { messages: [], olderLeftOut: false };
    const bound = historyLoadBound(this.parts.inputMaxTokens);
    const store = this.parts.store;
    switch (settings.mode) {
      case 'window': {
        const limits = windowLimitsFor(settings.token_budget, this.parts.history, this.parts.inputMaxTokens);
        const totals = { messages: session.messageCount, tokens: session.tokenCount };
        const fits = totals.messages <= limits.maxMessages && totals.tokens <= limits.maxTokens;
        if (fits) return { messages: await store.loadHistoryWindow(sessionId, limits), olderLeftOut: false };
        // Past the limits: the conversation's opening, pinned, then a window over the rest whose start
        // moves in steps derived from the session's totals (every instance agrees); the plain window
        // when that holds no whole turn.
        const first = settings.pin_opening_pct > 0 ? await store.loadHistoryOpening(sessionId, OPENING_READ_MESSAGES) : [];
        const plan = windowLoadPlan(first.map(toContextMessage), totals, limits, settings, (m) => this.parts.tokenCounter.countMessage(m));
        const opening = first.slice(0, plan.openingCount);
        const stepped = await store.loadHistoryWindow(sessionId, { ...plan.stepped, afterSeq: plan.afterSeq });
        const rest = stepped.length > 0 ? stepped : await store.loadHistoryWindow(sessionId, { ...plan.plain, afterSeq: plan.afterSeq });
        return { messages: rest.length > 0 ? [...opening, ...rest] : await store.loadHistoryWindow(sessionId, limits), olderLeftOut: false };
      }
      case 'summarize': {
        const afterSeq = session.summarizedThroughSeq ?? 0;
        const messages = await store.loadHistoryWindow(sessionId, { ...bound, afterSeq });
        return { messages, olderLeftOut: startsAfter(messages, afterSeq + 1, session) };
      }
      case 'trim':
      case 'compact': {
        const newest = await store.loadHistoryWindow(sessionId, bound);
        const olderLeftOut = startsAfter(newest, 1, session);
        // A session longer than the bound: the opening the strategy may pin is read as well.
        if (settings.pin_opening_pct === 0 || !olderLeftOut || newest.length === 0) return { messages: newest, olderLeftOut };
        const first = await store.loadHistoryOpening(sessionId, OPENING_READ_MESSAGES);
        return { messages: [...first.filter((m) => m.seq < newest[0]!.seq), ...newest], olderLeftOut };
      }
      case 'none': {
        const messages = await store.loadHistoryWindow(sessionId, bound);
        return { messages, olderLeftOut: startsAfter(messages, 1, session) };
      }
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

/**
 * Whether loading, bounded by the ceiling, left out older messages the strategy
 * would otherwise have been given (every strategy but `window`, whose window is
 * its own; `summarize` starts after its summary). Seqs are gapless from 1.
 */
/** Whether a load that should have started at seq `firstWanted` started later (the bound cut it). */
function startsAfter(loaded: StoredMessage[], firstWanted: number, session: SessionRecord): boolean {
  const firstLoaded = loaded[0]?.seq ?? session.messageCount + 1;
  return firstLoaded > firstWanted && session.messageCount >= firstWanted;
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

/** The stage each graph node's time counts to. */
const NODE_STAGES: Record<string, keyof StageTimings> = {
  rewrite_query: 'rewrite',
  retrieve: 'retrieval',
  apply_memory: 'memory',
  generate_response: 'model',
  tools: 'tools',
};

function roundStages(stages: StageTimings): StageTimings {
  return Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, Math.round(v * 100) / 100])) as unknown as StageTimings;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Time per stage of one answer: each lap adds the time since the previous one to a stage. */
class StageClock {
  readonly stages: StageTimings = { session: 0, window: 0, rewrite: 0, retrieval: 0, memory: 0, model: 0, tools: 0, persist: 0, total: 0 };
  private mark: number;

  constructor(startedAt: number) {
    this.mark = startedAt;
  }

  lap(stage: keyof StageTimings): void {
    const now = performance.now();
    this.stages[stage] += now - this.mark;
    this.mark = now;
  }
}
