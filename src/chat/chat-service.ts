import { randomUUID } from 'node:crypto';
import { ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { SupportGraph } from '../agent/graph';
import { ANSWER_TEXT_SEPARATOR, answerText } from '../agent/nodes/generate-response';
import { confidenceReadsWords } from '../agent/nodes/retrieve';
import { DEGRADED_KNOWLEDGE } from '../agent/state';
import { handOffOf } from '../agent/tools/hand-off-to-person';
import type { SearchQuery } from '../knowledge/search-query';
import type { ContextMessage } from '../memory/context';
import type { MemoryReport } from '../memory/strategies';
import { NO_USAGE, type SideModelCall, type TokenUsage } from '../models/token-usage';
import type { Redactor } from '../privacy/redaction';
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
import type { ChatStore, NewMessage, RetrievedDocument, SessionRecord, StoredMessage, ToolCall } from '../store/types';
import { isSentToolCall, type SentToolCall } from '../connectors/guarded-tool';
import type { AnswerListener, ChatAnswer, ChatOutcome, ChatRequest } from './answer-types';
import type { LanguageDetector } from '../knowledge/language/detect';
import { resolveTurnLanguage, type TurnLanguage } from './conversation-language';
import { turnBill, type PriceTable } from './cost';
import { queuedMessageOf, type QueuedMessage } from './handoff';
import { defaultActReply, recognizeConversationAct, type ConversationAct, type RecognizedAct, type SmallTalkAct } from './conversation-acts';
import { citedSources, round, streamGraph } from './graph-run';
import { groundedByTools, HUMAN_HANDOFF_OFFER, judgeTurn, keepsAnsweredArticle, PERSON_HANDOFF, toolFailedIn, type EscalationReason, type Verdict } from './escalation';
import { handoverSummary } from './handover-summary';
import { HistoryLoader, toContextMessage } from './history-loader';
import { NODE_STAGES, roundStages, StageClock } from './stage-timings';

/** An agent ready to answer: its spec, its compiled graph, and what its judge needs. */
export interface AgentRuntime {
  spec: AgentSpec;
  graph: SupportGraph;
  escalation: {
    /** Retrieval confidence below this: the help center does not cover the question (ESCALATION_CONFIDENCE_THRESHOLD). */
    threshold: number;
    /**
     * What an escalated answer ends with, asked at answer time (outside support hours it promises no person),
     * told whether the customer asked for a person; default HUMAN_HANDOFF_OFFER, or PERSON_HANDOFF when they asked.
     */
    offer?: (language: string, customerAsked: boolean) => string;
  };
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
  /** The reply to small talk in a language: the shop file's words (`acts`); absent: the built-in reply (defaultActReply). */
  actReply?: (act: SmallTalkAct, language: string) => string;
  /** REDACT, for the model's hand-off summary (stored and shown to people); absent: stored as written. */
  redactor?: Redactor;
}

/** One customer turn as the stages see it. */
interface Turn {
  request: ChatRequest;
  sessionId: string;
  session: SessionRecord | null;
  agent: AgentRuntime;
  userId: string | null;
  /** The verified customer (customer token), or null: anonymous for personal data. */
  customerId: string | null;
  memory: EffectiveMemory;
  /** The customer's language for this turn, and whether the conversation keeps it (the acts stage may tell it for small talk). */
  language: TurnLanguage;
  traceId: string | null;
  startedAt: number;
  clock: StageClock;
}

/** What the history-and-memory stage loaded for the graph. */
interface TurnContext {
  loaded: StoredMessage[];
  /** The load's bound left out older messages the strategy would have been given. */
  olderLeftOut: boolean;
  memoryInjection: boolean;
  crossSessionMemory: string | null;
}

/** What the answering stage (an act, or the graph) produced: what the judge weighs and the later stages store and record. */
interface TurnRun {
  /** The act the acts stage answered, or null when the graph did. */
  act: ConversationAct | null;
  /** The answer's text before the judge's ending (empty when nothing was written: a request for a person, a silent hand-off). */
  response: string;
  /** This turn's tool calls and results, in order. */
  messages: BaseMessage[];
  /** The graph's retrieval and the model's knowledge searches: the answer's sources. */
  retrievedDocuments: RetrievedDocument[];
  searchQuery: SearchQuery | null;
  /** The graph's own retrieval (the retrieval record), without the model's searches. */
  graphDocuments?: RetrievedDocument[];
  confidence: number;
  nothingAnswers: boolean;
  /** The turn's search found first the article the previous answer was given from (keepsAnsweredArticle). */
  keepsAnsweredArticle: boolean;
  /** The offline responder's best-supported quote (0–1; 0 when a model answered). */
  quoteSupport: number;
  /** Retrieval's confidence was read from words, not meaning (confidenceReadsWords). */
  confidenceFromWords: boolean;
  /** How well the passages hold the question's own words (offline; 0 when a model answered). */
  ownWordsSupport: number;
  /** The model that wrote the answer; NO_MODEL when none was called. */
  model: string;
  /** The answering model's calls this turn (each tool round, and the answer unless the turn ended with the hand-off). */
  modelCalls: number;
  usage: TokenUsage;
  sideCalls: SideModelCall[];
  memoryReport: MemoryReport;
  modelHistory: ContextMessage[];
  compactedByTool: Record<string, number>;
  degraded: string[];
  /** What was streamed to the listener already. */
  streamed: string;
  timeToFirstTokenMs: number | null;
  historyOlderLeftOut: boolean;
  memoryInjection: boolean;
}

/** The model of an answer no model wrote (an act's reply). */
const NO_MODEL = 'none';

/** The memory report of a turn that sent the model nothing. */
function unsentMemory(memory: EffectiveMemory): MemoryReport {
  return { strategy: memory.settings.mode, tokens_before: 0, tokens_after: 0, compacted_items: 0, summarized: false, trimmed_turns: 0, triggered_by: null };
}

function modelHistoryTokens(run: TurnRun): number {
  return run.modelHistory.reduce((sum, m) => sum + m.tokens, 0);
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
          output: { response: traceText(tracing, answer.response), confidence: answer.confidence, escalated: answer.escalated, escalation_reason: answer.escalation_reason },
          // The turn's bill, every model call counted (each call is also a generation of this trace).
          metadata: { usage: answer.usage, ...(answer.cost !== undefined && { cost: answer.cost }), escalation_reason: answer.escalation_reason },
        });
        if (traceId) {
          tracing.score({ traceId, name: 'confidence', value: answer.confidence, dataType: 'NUMERIC' });
          tracing.score({ traceId, name: 'escalated', value: answer.escalated ? 1 : 0, dataType: 'BOOLEAN' });
          if (answer.escalation_reason) tracing.score({ traceId, name: 'escalation_reason', value: answer.escalation_reason, dataType: 'CATEGORICAL' });
        }
        return outcome;
      });
    } catch (error) {
      // A customer who hung up is not a model failure.
      if (!signal?.aborted) metrics.recordAnswerError(error);
      throw error;
    }
  }

  /**
   * The turn inside its trace, stage by stage: the conversation act (small talk and
   * "a person, please" are answered here, unsearched), else the history and memory,
   * then the graph (rewrite, retrieve, answer); the judge, who decides whether the
   * answer goes to a person and why; storing the turn; recording it.
   */
  private async respond(turn: Turn, signal?: AbortSignal, listener?: AnswerListener): Promise<ChatOutcome> {
    const act = this.recognizeAct(turn);
    const run = act ? this.answerAct(turn, act) : await this.runGraph(turn, await this.loadContext(turn), signal, listener);
    const verdict = this.judge(turn, run);
    const answer = this.composeAnswer(turn, run, verdict, listener);
    const takenOver = await this.persist(turn, run, answer);
    this.record(turn, run, answer);
    const { clock } = turn;
    return { answer, sessionCreated: turn.session === null, stages: roundStages(clock.stages), ...(takenOver && { takenOver }) };
  }

  /** Acts: the conversation act the message is (small talk, or asking for a person), or null for a question to search for. */
  private recognizeAct(turn: Turn): RecognizedAct | null {
    return recognizeConversationAct(turn.request.message);
  }

  /**
   * An act's answer, without search or model: small talk gets the shop's short reply
   * in the customer's language; a customer who asks for a person gets nothing here
   * (the judge escalates the turn and the shop's hand-over sentence is the answer).
   * The act's own language answers only when nothing better told the turn's language
   * (a short greeting must not flip the conversation's).
   */
  private answerAct(turn: Turn, act: RecognizedAct): TurnRun {
    const told = turn.language.source === 'request' || turn.language.source === 'detected' || turn.language.source === 'conversation';
    if (act.language && !told) turn.language = { language: act.language, source: 'detected', keep: false };
    const reply = this.parts.actReply ?? defaultActReply;
    const response = act.act === 'ask_for_person' ? '' : reply(act.act, turn.language.language);
    return {
      act: act.act,
      response,
      messages: [],
      retrievedDocuments: [],
      searchQuery: null,
      // Nothing was looked up, and nothing is in doubt: what the customer said is answered as said.
      confidence: 1,
      nothingAnswers: false,
      keepsAnsweredArticle: false,
      quoteSupport: 0,
      confidenceFromWords: false,
      ownWordsSupport: 0,
      model: NO_MODEL,
      modelCalls: 0,
      usage: NO_USAGE,
      sideCalls: [],
      memoryReport: unsentMemory(turn.memory),
      modelHistory: [],
      compactedByTool: {},
      degraded: [],
      streamed: '',
      timeToFirstTokenMs: null,
      historyOlderLeftOut: false,
      memoryInjection: false,
    };
  }

  /** History and memory: the durable history the strategy needs, and the customer's cross-session memory. */
  private async loadContext(turn: Turn): Promise<TurnContext> {
    const { store, logger, tracing } = this.parts;
    const { sessionId, session, memory, customerId, clock } = turn;
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
    return { loaded, olderLeftOut: history.olderLeftOut, memoryInjection, crossSessionMemory: crossSession?.summary ?? null };
  }

  /** The graph: rewrite the query, retrieve, apply the memory strategy, answer (with tool rounds). */
  private async runGraph(turn: Turn, context: TurnContext, signal?: AbortSignal, listener?: AnswerListener): Promise<TurnRun> {
    const { request, sessionId, session, agent, userId, customerId, memory, language, startedAt, clock } = turn;
    const input = {
      query: request.message,
      session_id: sessionId,
      user_id: userId,
      conversation_history: context.loaded.map(toContextMessage),
      history_tokens_total: session?.tokenCount ?? 0,
      history_messages_total: session?.messageCount ?? 0,
      memory_settings: memory.settings,
      memory_state: { summary: session?.summary ?? null, summarizedThroughSeq: session?.summarizedThroughSeq ?? null },
      memory_injection: context.memoryInjection,
      cross_session_memory: context.crossSessionMemory,
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
    const { result } = streamed;
    return {
      act: null,
      response: result.response ?? answerText(result.messages),
      messages: result.messages,
      // The graph's retrieval and any knowledge searches the model made are the answer's sources.
      retrievedDocuments: [...result.retrieved_documents, ...documentsFoundBySearch(result.messages)],
      searchQuery: result.search_query,
      graphDocuments: result.retrieved_documents,
      confidence: result.confidence,
      nothingAnswers: result.nothing_answers ?? false,
      keepsAnsweredArticle: keepsAnsweredArticle(context.loaded, result.retrieved_documents),
      quoteSupport: result.quote_support ?? 0,
      confidenceFromWords: confidenceReadsWords(result.retrieved_documents),
      ownWordsSupport: result.own_words_support ?? 0,
      model: result.model,
      modelCalls: result.messages.filter((m) => m.getType() === 'ai').length + (result.response === undefined ? 0 : 1),
      usage: result.usage,
      sideCalls: result.side_calls,
      memoryReport: result.memory_report,
      modelHistory: result.model_history,
      compactedByTool: result.compacted_by_tool,
      degraded: result.degraded,
      streamed: streamed.streamedText,
      timeToFirstTokenMs: streamed.timeToFirstTokenMs,
      historyOlderLeftOut: context.olderLeftOut,
      memoryInjection: context.memoryInjection,
    };
  }

  /** The judge: whether the answer goes to a person, and why (src/chat/escalation.ts decides, once). */
  private judge(turn: Turn, run: TurnRun): Verdict {
    return judgeTurn({
      customerAsked: run.act === 'ask_for_person',
      handOff: handOffOf(run.messages),
      toolFailed: toolFailedIn(run.messages),
      groundedByTools: groundedByTools(run.messages),
      confidence: run.confidence,
      threshold: turn.agent.escalation.threshold,
      nothingAnswers: run.nothingAnswers,
      keepsAnsweredArticle: run.keepsAnsweredArticle,
      quoteSupport: run.quoteSupport,
      confidenceFromWords: run.confidenceFromWords,
      ownWordsSupport: run.ownWordsSupport,
      knowledgeUnavailable: run.degraded.includes(DEGRADED_KNOWLEDGE),
    });
  }

  /**
   * The answer as the customer gets it: an escalated answer ends with the shop's
   * hand-over sentence (or is only that sentence, when nothing was written before it).
   * After the model's hand-off the model's own words stand alone when it wrote some: it
   * already told the customer. A streamed answer gets what was not streamed yet.
   */
  private composeAnswer(turn: Turn, run: TurnRun, verdict: Verdict, listener?: AnswerListener): ChatAnswer {
    const { request, sessionId, agent, language } = turn;
    const toldByModel = verdict.reason === 'model' && run.response !== '';
    const customerAsked = verdict.reason === 'customer_asked';
    const handOver =
      verdict.escalated && !toldByModel ? (agent.escalation.offer?.(language.language, customerAsked) ?? (customerAsked ? PERSON_HANDOFF : HUMAN_HANDOFF_OFFER)) : null;
    const response = handOver === null ? run.response : [run.response, handOver].filter((t) => t !== '').join(ANSWER_TEXT_SEPARATOR);
    // What was added after the model's words (the hand-over sentence) streams last, so the pieces add up to the stored response.
    if (listener && response.startsWith(run.streamed) && response.length > run.streamed.length) listener.onToken?.(response.slice(run.streamed.length));
    const handOff = handOffOf(run.messages);
    const summary = handOff?.summary ?? (verdict.reason && this.handoverSummary(turn, run, verdict.reason));
    const bill = this.bill(run);
    return {
      session_id: sessionId,
      message_id: '', // the stored answer's id, in persist
      agent_type: agent.spec.key,
      response,
      confidence: round(run.confidence),
      escalated: verdict.escalated,
      escalation_reason: verdict.reason,
      ...(summary && { handoff_summary: this.redact(summary) }),
      sources: citedSources(run.retrievedDocuments),
      usage: bill.usage,
      ...(bill.cost !== null && { cost: bill.cost }),
      history: { messages: run.modelHistory.length, tokens: modelHistoryTokens(run) },
      memory: {
        ...run.memoryReport,
        ...(run.memoryReport.input_ceiling && { input_ceiling: { ...run.memoryReport.input_ceiling, history_cut: run.historyOlderLeftOut } }),
        source: turn.memory.source,
        settings: turn.memory.settings,
        memory_injection: run.memoryInjection,
      },
      degraded: run.degraded,
      language: language.language,
      ...(request.redacted && { redacted: request.redacted }),
    };
  }

  /** The summary for the person who takes over when the judge, not the model, handed the turn over. */
  private handoverSummary(turn: Turn, run: TurnRun, reason: EscalationReason): string | null {
    return handoverSummary({
      reason,
      question: turn.request.message,
      earlierQuestion: run.modelHistory.findLast((m) => m.role === 'user')?.content ?? null,
      documents: run.graphDocuments ?? run.retrievedDocuments,
      confidence: run.confidence,
      messages: run.messages,
    });
  }

  /** Every call on the bill: the answer's, and the summary's and query rewrite's beside it. */
  private bill(run: TurnRun) {
    return turnBill(this.parts.prices ?? {}, { model: run.model, usage: run.usage, calls: run.modelCalls }, run.sideCalls);
  }

  /**
   * Persist: the question, any tool calls and results, and the answer in one
   * transaction, only while the bot still holds the conversation (a person may have
   * taken it over meanwhile: then only the question is stored, and returned here).
   */
  private async persist(turn: Turn, run: TurnRun, answer: ChatAnswer): Promise<QueuedMessage | undefined> {
    const { store, tokenCounter, logger, tracing } = this.parts;
    const { request, sessionId, agent, userId, language, traceId, startedAt, clock } = turn;
    // What each connector tool actually sent, by tool call id: stored on the call the model made.
    const sentCalls = new Map(
      run.messages.flatMap((m) => (ToolMessage.isInstance(m) && isSentToolCall(m.artifact) ? [[m.tool_call_id, m.artifact] as const] : [])),
    );
    const turnMessages: NewMessage[] = [
      {
        role: 'user',
        content: request.message,
        tokenCount: tokenCounter.countMessage({ content: request.message }),
        ...(request.redacted && { metadata: { redacted: request.redacted } }),
      },
      ...run.messages.map((m) => this.toNewMessage(m, sentCalls)),
      {
        role: 'assistant',
        content: answer.response,
        tokenCount: tokenCounter.countMessage({ content: answer.response }),
        confidence: answer.confidence,
        escalated: answer.escalated,
        ...(answer.escalation_reason && { escalationReason: answer.escalation_reason }),
        metadata: {
          model: run.model,
          usage: answer.usage,
          ...(answer.cost !== undefined && { cost: answer.cost }),
          latency_ms: Math.round(performance.now() - startedAt),
          sources: answer.sources,
          ...(run.act && { act: run.act }),
          ...(answer.handoff_summary !== undefined && { handoff_summary: answer.handoff_summary }),
          // Why these passages: how the query was made, and each document's place and score on each side.
          ...(run.searchQuery && { retrieval: retrievalRecord(run.searchQuery, run.graphDocuments ?? []) }),
          memory: run.memoryReport,
          // Feedback on this answer becomes a score on its trace.
          ...(traceId && { trace_id: traceId }),
        },
      },
    ];
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
    // The conversation keeps a language told with confidence (after the turn, which created the session if it was new).
    if (language.keep) await store.setSessionLanguage(sessionId, language.language);
    let takenOver: QueuedMessage | undefined;
    if (stored.outcome === 'stored') answer.message_id = stored.messages.at(-1)!.id;
    else {
      takenOver = queuedMessageOf(stored.queued);
      logger.info({ session_id: sessionId, agent_name: takenOver.agent_name }, 'A person took over while the answer was made: only the question was stored, for them');
    }
    clock.lap('persist');
    clock.stages.total = performance.now() - startedAt;
    return takenOver;
  }

  /** Record: the metrics and the log line of the answer (the trace gets it in answer()). */
  private record(turn: Turn, run: TurnRun, answer: ChatAnswer): void {
    const { logger, metrics } = this.parts;
    const { sessionId, agent, memory, language, startedAt, clock } = turn;
    metrics.recordMemory(run.memoryReport, run.compactedByTool);
    logger.debug({ session_id: sessionId, stages: roundStages(clock.stages) }, 'Answer stages (ms)');
    metrics.recordAnswer({
      agentType: agent.spec.key,
      model: run.model,
      usage: run.usage,
      historyMessages: run.modelHistory.length,
      historyTokens: answer.history.tokens,
      escalated: answer.escalated,
      escalationReason: answer.escalation_reason,
      timeToFirstTokenMs: run.timeToFirstTokenMs,
    });
    logger.info(
      {
        session_id: sessionId,
        agent_type: agent.spec.key,
        model: run.model,
        ...answer.usage,
        confidence: answer.confidence,
        escalated: answer.escalated,
        escalation_reason: answer.escalation_reason,
        ...(run.act && { act: run.act }),
        tool_calls: run.messages.filter((m) => m.getType() === 'tool').length,
        memory: { ...run.memoryReport, source: memory.source, memory_injection: run.memoryInjection },
        latency_ms: Math.round(performance.now() - startedAt),
        language: language.language,
        language_source: language.source,
        ...(run.degraded.length > 0 && { degraded: run.degraded }),
        ...(run.timeToFirstTokenMs !== null && { streamed: true, time_to_first_token_ms: run.timeToFirstTokenMs }),
      },
      'Answered chat message',
    );
  }

  /** Stored text is redacted as the customer's messages are (REDACT): the model may repeat a card number in its summary. */
  private redact(text: string): string {
    return this.parts.redactor?.redact(text).text ?? text;
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
