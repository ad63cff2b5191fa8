import { randomUUID } from 'node:crypto';
import { ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { SupportGraph } from '../agent/graph';
import { isSameCustomer, type ConversationIdentity, type CustomerSentences } from '../agent/tools/conversation-customer';
import { documentsFoundBySearch } from '../agent/tools/search-knowledge-base';
import type { AgentSpec } from '../agent-specs/spec';
import type { Config } from '../config';
import { CustomerMismatchError, SessionAccessError } from '../errors';
import { retrievalRecord } from '../knowledge/retrieval-record';
import { resolveMemory, type EffectiveMemory, type MemoryLevel } from '../memory/settings';
import type { TokenCounter } from '../memory/tokens';
import type { Tracing } from '../observability/langfuse';
import { traceText } from '../observability/personal-data';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { IdentityStore } from '../store/identity-store';
import type { ChatStore, NewMessage, SessionRecord, ToolCall } from '../store/types';
import { isSentToolCall, type SentToolCall } from '../connectors/guarded-tool';
import type { AnswerListener, ChatAnswer, ChatOutcome, ChatRequest, MemoryOutcome } from './answer-types';
import type { LanguageDetector } from '../knowledge/language/detect';
import { resolveTurnLanguage, type TurnLanguage } from './conversation-language';
import { turnBill, type PriceTable } from './cost';
import { queuedMessageOf, type QueuedMessage } from './handoff';
import { citedSources, round, streamGraph } from './graph-run';
import { HistoryLoader, toContextMessage } from './history-loader';
import { NODE_STAGES, roundStages, StageClock } from './stage-timings';

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
  /** The agent a request without agent_type gets: the shop file's first. */
  defaultAgentType: string;
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
  /**
   * How the customer's language is told: the detector and the shop file's `languages`
   * (the first the default). Absent: nothing is detected, and a turn's language is the
   * request's, the conversation's, the widget's or English.
   */
  languages?: {
    detector: LanguageDetector;
    shopLanguages: readonly string[];
    /** The shop's sentences the tools pass on (sign-in, tool failure) in a language: the shop file's words for it. */
    sentencesFor?: (language: string) => CustomerSentences;
  };
}

/** Stands in when no detector is given: it never tells a language. */
const NO_DETECTION: LanguageDetector = { detect: () => ({ language: null, reliable: false }) };

/** Precedence: the request's setting, then the conversation's, then the agent's, then `window`. */
function memoryOf(agent: AgentSpec, session: SessionRecord | null, request: MemoryLevel = {}): EffectiveMemory {
  return resolveMemory({
    request,
    conversation: session?.memorySetting,
    agent: { strategy: agent.memoryStrategy, memory_injection: agent.memoryInjection },
  });
}

/**
 * The bot's answer to one customer turn (turn.ts decides that the bot answers):
 * resolve the agent and its memory setting, load the durable history the strategy
 * needs, run the graph, then store the question, any tool calls and results, and
 * the answer together. Nothing is stored until the answer
 * is complete, so a failed or aborted turn leaves no trace.
 */
export class ChatService {
  private readonly history: HistoryLoader;

  constructor(private readonly parts: ChatServiceParts) {
    this.history = new HistoryLoader(parts);
  }

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
    const language = resolveTurnLanguage({
      message: request.message,
      requested: request.language,
      kept: session?.language,
      widget: request.widgetLanguage,
      shopLanguages: this.parts.languages?.shopLanguages,
      detector: this.parts.languages?.detector ?? NO_DETECTION,
    });

    // One trace per request, its observations tagged with the session, the customer, the agent and the strategy.
    const trace = {
      sessionId,
      // The customer id is personal data: Langfuse gets its pseudonym, the id only when told to capture personal data.
      userId,
      tags: [`agent_type:${agent.spec.key}`, `memory:${memory.settings.mode}`, ...(listener ? ['streamed'] : [])],
      metadata: { agent_type: agent.spec.key, memory_strategy: memory.settings.mode, memory_source: memory.source, language: language.language, language_source: language.source },
    };
    try {
      return await tracing.trace(listener ? 'chat.stream' : 'chat', { message: traceText(tracing, request.message) }, trace, async (root, traceId) => {
        const outcome = await this.respond({ request, sessionId, session, agent, userId, customerId, memory, language, traceId, startedAt, clock }, signal, listener);
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
      /** The customer's language for this turn, and whether the conversation keeps it. */
      language: TurnLanguage;
      traceId: string | null;
      startedAt: number;
      clock: StageClock;
    },
    signal?: AbortSignal,
    listener?: AnswerListener,
  ): Promise<ChatOutcome> {
    const { store, tokenCounter, logger, tracing } = this.parts;
    const { request, sessionId, session, agent, userId, customerId, memory, language, traceId, startedAt, clock } = turn;

    const history = await tracing.observe('load_history', 'span', { mode: memory.settings.mode }, async (span) => {
      const loaded = await this.history.load(sessionId, session, memory.settings);
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
      language: language.language,
    };
    // A tool may end the turn with an HTTP error (too many wrong order proofs: 429): nothing is stored then.
    let stoppedBy: Error | null = null;
    const stop = new AbortController();
    const identity: ConversationIdentity = {
      verifiedCustomerId: customerId,
      verifiedCustomerEmail: customerId !== null ? (request.customerEmail ?? null) : null,
      sessionId,
      clientAddress: request.clientAddress ?? null,
      ...(this.parts.languages?.sentencesFor && { sentences: this.parts.languages.sentencesFor(language.language) }),
      stopTurn: (error) => {
        stoppedBy ??= error;
        stop.abort(error);
      },
    };
    const runConfig = { signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal, configurable: { identity } };
    const streamed = await streamGraph(agent.graph, input, runConfig, listener, startedAt, (node) => clock.lap(NODE_STAGES[node] ?? 'model')).catch(
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
      language: language.language,
      ...(request.redacted && { redacted: request.redacted }),
    };
    // What each connector tool actually sent, by tool call id: stored on the call the model made.
    const sentCalls = new Map(
      result.messages.flatMap((m) => (ToolMessage.isInstance(m) && isSentToolCall(m.artifact) ? [[m.tool_call_id, m.artifact] as const] : [])),
    );
    const turnMessages: NewMessage[] = [
      {
        role: 'user',
        content: request.message,
        tokenCount: tokenCounter.countMessage({ content: request.message }),
        ...(request.redacted && { metadata: { redacted: request.redacted } }),
      },
      ...result.messages.map((m) => this.toNewMessage(m, sentCalls)),
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
          // Why these passages: how the query was made, and each document's place and score on each side.
          retrieval: retrievalRecord(result.search_query, result.retrieved_documents),
          memory: result.memory_report,
          // Feedback on this answer becomes a score on its trace.
          ...(traceId && { trace_id: traceId }),
        },
      },
    ];
    // Stored only while the bot still holds the conversation (a person may have taken it over meanwhile).
    const stored = await tracing.observe('persist', 'span', { messages: turnMessages.length }, () =>
      store.appendAnswerTurn({
        sessionId,
        userId,
        agentType: agent.spec.key,
        // With an Idempotency-Key the answer is kept with the turn, for retries.
        idempotency: request.idempotency && { ...request.idempotency, response: { ...answer } },
        messages: turnMessages,
      }),
    );
    let takenOver: QueuedMessage | undefined;
    // The conversation keeps a language told with confidence (after the turn, which created the session if it was new).
    if (language.keep) await store.setSessionLanguage(sessionId, language.language);
    if (stored.outcome === 'stored') answer.message_id = stored.messages.at(-1)!.id;
    else {
      takenOver = queuedMessageOf(stored.queued);
      logger.info({ session_id: sessionId, agent_name: takenOver.agent_name }, 'A person took over while the answer was made: only the question was stored, for them');
    }
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
        language: language.language,
        language_source: language.source,
        ...(result.degraded.length > 0 && { degraded: result.degraded }),
        ...(timeToFirstTokenMs !== null && { streamed: true, time_to_first_token_ms: timeToFirstTokenMs }),
      },
      'Answered chat message',
    );
    return { answer, sessionCreated: session === null, stages: roundStages(clock.stages), ...(takenOver && { takenOver }) };
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
    const fallback = this.parts.defaultAgentType;
    return this.parts.agents.get(agentType ?? fallback) ?? this.parts.agents.get(fallback)!;
  }

  /** A tool call or tool result of this turn, as it is stored (results in full). */
  private toNewMessage(message: BaseMessage, sentCalls: ReadonlyMap<string, SentToolCall>): NewMessage {
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
    const toolCalls = (ai.tool_calls ?? []).map((c) => storedToolCall({ id: c.id ?? '', name: c.name, arguments: c.args }, sentCalls.get(c.id ?? '')));
    return {
      role: 'assistant',
      content: ai.text,
      toolCalls,
      tokenCount: tokenCounter.countMessage({ content: ai.text, tool_calls: toolCalls }),
    };
  }
}

/**
 * A tool call as stored: for a connector's tool, `arguments` are what was sent (the
 * bound ones from the verified customer, listed in `bound`), `model_arguments` what
 * the model asked for, and `not_sent` marks a call that reached nothing. Built-in
 * tools' calls are stored as the model made them.
 */
export function storedToolCall(call: ToolCall, sent: SentToolCall | undefined): ToolCall {
  if (!sent) return call;
  if (sent.sent_arguments === null) return { ...call, model_arguments: sent.model_arguments, not_sent: true };
  return { ...call, arguments: sent.sent_arguments, bound: sent.bound, model_arguments: sent.model_arguments };
}
