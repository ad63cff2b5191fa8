import type { TurnUsage } from './cost';
import type { EffectiveMemory, MemorySettings, MemoryStrategyInput } from '../memory/settings';
import type { MemoryReport } from '../memory/strategies';
import type { IdempotencyClaimToken } from '../store/types';
import type { RedactionCounts } from '../privacy/redaction';
import type { EscalationReason } from './escalation';
import type { QueuedMessage } from './handoff';
import type { StageTimings } from './stage-timings';

// What one customer turn takes and gives: the request, the answer as POST /api/v1/chat
// returns it, and what a streamed answer reports on the way.

export interface ChatRequest {
  message: string;
  sessionId?: string;
  /** The caller proved it may continue this session (its session token, or the agent key). */
  mayContinueSession?: boolean;
  /** A label for the customer (shown to agents); it unlocks nothing unless customerId is the same. */
  userId?: string;
  /** The customer a valid X-Customer-Token vouched for on this request: the only key to personal data. */
  customerId?: string;
  /** The verified customer's e-mail (the customer token's `email` claim), for tools that bind `customer.email`. */
  customerEmail?: string;
  /** The client's address, for the per-client limit on wrong order proofs. */
  clientAddress?: string;
  agentType?: string;
  memoryStrategy?: MemoryStrategyInput;
  memoryInjection?: boolean;
  /** What redaction masked in `message` (REDACT), which then holds the masked text; absent when nothing was. */
  redacted?: RedactionCounts;
  /** The request's `language` (ISO 639-1): an override the conversation keeps. */
  language?: string;
  /** The widget's language (its Accept-Language: the page's `lang`, then the browser's): breaks a tie, overrides nothing. */
  widgetLanguage?: string | null;
  /** The request's claim on its Idempotency-Key: storing the turn completes it (see IdempotentRequests). */
  idempotency?: IdempotencyClaimToken;
}

export interface SourceReference {
  title: string;
  source: string;
  score: number;
  /** Where the document came from (a page's canonical URL, a PDF's link), when it was ingested with one. */
  url?: string;
  /** The PDF page of the cited chunk (from 1). */
  page?: number;
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
  /** Why the answer went to a person (docs/escalation.md); null when it was not escalated. */
  escalation_reason: EscalationReason | null;
  /** The model's summary for the person who takes over, when it called hand_off_to_person (redacted). */
  handoff_summary?: string;
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
  /** The language the answer was asked for (ISO 639-1): see docs/your-shop.md, Languages. */
  language: string;
  /**
   * What was masked in the customer's message before it was stored or sent to the
   * model (REDACT), e.g. `{"card": 1}`: the widget tells the customer. Absent when nothing was.
   */
  redacted?: RedactionCounts;
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
  /**
   * Set when a person took the conversation over while the answer was being made:
   * the answer was not stored, only the customer's message, queued for that person.
   */
  takenOver?: QueuedMessage;
}
