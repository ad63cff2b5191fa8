import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { TokenUsage } from '../models/token-usage';
import { EmbeddingModelMismatchError, EmbeddingUnavailableError, ModelTimeoutError, ModelUnavailableError } from '../errors';
import type { MemoryReport } from '../memory/strategies';

/** What one answered request adds to the metrics. */
export interface AnswerMetrics {
  agentType: string;
  model: string;
  usage: TokenUsage;
  /** What the model was sent of the conversation, after the memory strategy. */
  historyMessages: number;
  historyTokens: number;
  escalated: boolean;
  /** Why it was escalated (one of ESCALATION_REASONS, src/chat/escalation.ts), null when it was not: a bounded label. */
  escalationReason: string | null;
  /** Streamed answers only. */
  timeToFirstTokenMs: number | null;
}

/** What a model call was for, as the llm_tokens_total label says it: the answer, or a rolling summary. */
export type ModelCallPurpose = 'answer' | 'summary' | 'rewrite';

/** Why a model (chat or embedding) failed a request, as the model_errors_total label says it. */
export type ModelErrorKind = 'timeout' | 'unavailable' | 'embedding_unavailable' | 'embedding_model_mismatch';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The service's Prometheus metrics, on a registry of its own (GET /metrics). */
export class Metrics {
  readonly registry = new Registry();

  private readonly compactionItems = new Counter({
    name: 'memory_compaction_items_total',
    help: 'Tool results replaced by placeholders in what the model was sent, by tool',
    labelNames: ['tool'] as const,
    registers: [this.registry],
  });

  private readonly memoryTokens = new Histogram({
    name: 'memory_tokens_before_after',
    help: 'Prompt tokens with the whole history (before) and as sent after the memory strategy (after)',
    labelNames: ['stage', 'strategy'] as const,
    buckets: [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 512000],
    registers: [this.registry],
  });

  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route (the pattern, not the path) and status; streams until their last byte',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  private readonly timeToFirstToken = new Histogram({
    name: 'chat_time_to_first_token_seconds',
    help: 'Streamed answers: from the request to the first piece of the answer',
    labelNames: ['agent_type'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  private readonly modelTokens = new Counter({
    name: 'llm_tokens_total',
    help: 'Tokens the models reported, by model, kind (prompt, completion, or cached: the prompt tokens served from the provider cache, included in prompt) and purpose (answer: every call of a turn; summary: rolling summaries)',
    labelNames: ['model', 'kind', 'purpose'] as const,
    registers: [this.registry],
  });

  private readonly historyMessages = new Histogram({
    name: 'chat_history_window_messages',
    help: 'Messages of the conversation sent to the model with each question, after the memory strategy',
    buckets: [0, 1, 2, 4, 6, 10, 20, 40, 80, 160],
    registers: [this.registry],
  });

  private readonly historyTokens = new Histogram({
    name: 'chat_history_window_tokens',
    help: 'Tokens of the conversation sent to the model with each question, after the memory strategy',
    buckets: [0, 100, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000],
    registers: [this.registry],
  });

  private readonly retrievalDuration = new Histogram({
    name: 'retrieval_duration_seconds',
    help: 'Knowledge retrieval (embedding the query and the vector search), for the graph and the search tool',
    buckets: SECONDS,
    registers: [this.registry],
  });

  private readonly retrievalHits = new Histogram({
    name: 'retrieval_hits',
    help: 'Passages a retrieval returned (at most RETRIEVAL_TOP_K, above RETRIEVAL_MIN_SIMILARITY)',
    buckets: [0, 1, 2, 3, 4, 5, 8, 10, 20, 50],
    registers: [this.registry],
  });

  private readonly escalations = new Counter({
    name: 'chat_escalations_total',
    help: 'Answers escalated to a human agent, by agent type and reason (not_in_help_center, customer_asked, model, tool_failed, knowledge_unavailable)',
    labelNames: ['agent_type', 'reason'] as const,
    registers: [this.registry],
  });

  private readonly answers = new Counter({
    name: 'chat_answers_total',
    help: 'Answers stored, by agent type, whether they were streamed, and why they were escalated (none: answered)',
    labelNames: ['agent_type', 'streamed', 'escalation_reason'] as const,
    registers: [this.registry],
  });

  private readonly modelErrors = new Counter({
    name: 'model_errors_total',
    help: 'Chat requests failed by a model, by kind: timeout, unavailable, embedding_unavailable, embedding_model_mismatch',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly feedback = new Counter({
    name: 'answer_feedback_total',
    help: "Customers' ratings of answers (a changed rating counts again), by rating",
    labelNames: ['rating'] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  recordMemory(report: MemoryReport, compactedByTool: Record<string, number>): void {
    this.memoryTokens.observe({ stage: 'before', strategy: report.strategy }, report.tokens_before);
    this.memoryTokens.observe({ stage: 'after', strategy: report.strategy }, report.tokens_after);
    for (const [tool, items] of Object.entries(compactedByTool)) this.compactionItems.inc({ tool }, items);
  }

  recordModelTokens(model: string, purpose: ModelCallPurpose, usage: TokenUsage): void {
    this.modelTokens.inc({ model, kind: 'prompt', purpose }, usage.prompt_tokens);
    this.modelTokens.inc({ model, kind: 'completion', purpose }, usage.completion_tokens);
    // Part of the prompt tokens above, not more of them: what the provider's prompt cache served.
    this.modelTokens.inc({ model, kind: 'cached', purpose }, usage.cached_tokens);
  }

  recordAnswer(answer: AnswerMetrics): void {
    this.recordModelTokens(answer.model, 'answer', answer.usage);
    this.historyMessages.observe(answer.historyMessages);
    this.historyTokens.observe(answer.historyTokens);
    if (answer.escalated) this.escalations.inc({ agent_type: answer.agentType, reason: answer.escalationReason ?? 'none' });
    this.answers.inc({ agent_type: answer.agentType, streamed: String(answer.timeToFirstTokenMs !== null), escalation_reason: answer.escalationReason ?? 'none' });
    if (answer.timeToFirstTokenMs !== null) {
      this.timeToFirstToken.observe({ agent_type: answer.agentType }, answer.timeToFirstTokenMs / 1000);
    }
  }

  /** Counts a failed answer when a model caused it; other failures (a database error) are not model errors. */
  recordAnswerError(error: unknown): void {
    const kind = modelErrorKind(error);
    if (kind) this.modelErrors.inc({ kind });
  }

  recordRetrieval(seconds: number, hits: number): void {
    this.retrievalDuration.observe(seconds);
    this.retrievalHits.observe(hits);
  }

  recordRequest(method: string, route: string, status: number, seconds: number): void {
    this.requestDuration.observe({ method, route, status: String(status) }, seconds);
  }

  recordFeedback(rating: 'up' | 'down'): void {
    this.feedback.inc({ rating });
  }
}

export function modelErrorKind(error: unknown): ModelErrorKind | null {
  if (error instanceof ModelTimeoutError) return 'timeout';
  if (error instanceof ModelUnavailableError) return 'unavailable';
  if (error instanceof EmbeddingUnavailableError) return 'embedding_unavailable';
  if (error instanceof EmbeddingModelMismatchError) return 'embedding_model_mismatch';
  return null;
}
