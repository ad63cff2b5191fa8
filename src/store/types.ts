import type { ConversationMemorySetting } from '../memory/settings';

/** The roles a durable message can have, as in OpenAI's chat format. */
export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

/** A tool call an assistant message asked for (OpenAI shape, arguments parsed). */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments: for a connector's tool (action, MCP), as sent to the shop's system; else as the model asked. */
  arguments: Record<string, unknown>;
  /** Names in `arguments` filled from the verified customer, not the model (a dotted name is a body path). Absent in rows stored before. */
  bound?: string[];
  /** What the model asked for, when a connector's tool sent something else (or nothing). */
  model_arguments?: Record<string, unknown>;
  /** The tool called nothing (no verified customer, a required argument missing). */
  not_sent?: true;
}

/** One row of chat_messages. */
export interface StoredMessage {
  id: string;
  sessionId: string;
  /** Position in the session: 1, 2, 3, … without gaps. The only ordering that counts. */
  seq: number;
  role: MessageRole;
  content: string;
  toolCalls: ToolCall[] | null;
  toolCallId: string | null;
  name: string | null;
  /** Tokens this message costs the chat model, counted once when it was written. */
  tokenCount: number;
  confidence: number | null;
  escalated: boolean | null;
  /** Why an escalated answer was escalated (docs/escalation.md); null on every other message. */
  escalationReason: string | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

/** A message about to be stored; the store assigns id, seq and created_at. */
export interface NewMessage {
  role: MessageRole;
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  name?: string;
  tokenCount: number;
  confidence?: number;
  escalated?: boolean;
  /** On an escalated answer: why. The session keeps the latest (and the answer's metadata.handoff_summary). */
  escalationReason?: string;
  metadata?: Record<string, unknown>;
}

/** One row of chat_sessions. */
export interface SessionRecord {
  sessionId: string;
  userId: string | null;
  agentType: string;
  title: string | null;
  lastMessage: string | null;
  messageCount: number;
  /** Tokens of the whole durable history. */
  tokenCount: number;
  active: boolean;
  escalated: boolean;
  /** The reason of the conversation's latest escalated answer; null when none was escalated. */
  escalationReason: string | null;
  /** What the model told the person who takes over (hand_off_to_person), from its latest hand-off; null without one. */
  handoffSummary: string | null;
  /** The conversation-level memory setting (PATCH …/memory), or null. */
  memorySetting: ConversationMemorySetting | null;
  /** The rolling summary of the summarize strategy, and the last seq it covers. */
  summary: string | null;
  summarizedThroughSeq: number | null;
  /** Who answers the customer: the bot, or the person named in agentName (human takeover). */
  handler: 'bot' | 'human';
  agentName: string | null;
  /** When an escalated conversation held by nobody started waiting for a person; null when it is not waiting. */
  waitingSince: Date | null;
  /** The customer's language (ISO 639-1), kept once told with confidence (setSessionLanguage); null until then. */
  language: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A page of the review console's session list. */
export interface SessionListQuery {
  /** Text to find in the session id, customer, title or any message (case-insensitive). */
  text?: string;
  escalated?: boolean;
  /** Only conversations the bot, or a person, answers. */
  handler?: 'bot' | 'human';
  /** Only the waiting queue (true: escalated, held by nobody, the customer's last message unanswered), or only the others (false). */
  waiting?: boolean;
  /** Only conversations whose latest escalation had this reason. */
  escalationReason?: string;
  limit: number;
  /** Where the previous page ended (its nextCursor). */
  after?: SessionCursor;
}

export interface SessionCursor {
  /** updated_at as Postgres prints it, microseconds included. */
  updatedAt: string;
  sessionId: string;
}

export interface SessionListPage {
  sessions: SessionRecord[];
  /** Null on the last page. */
  nextCursor: SessionCursor | null;
}

/** A rolling summary to store for a session. */
export interface SessionSummary {
  summary: string;
  throughSeq: number;
  /** Also keep it as the customer's cross-session memory (memory_injection). */
  shareWithUser: boolean;
}

export interface HistoryWindowLimits {
  maxMessages: number;
  maxTokens: number;
  /** Only messages after this seq (the summary's watermark); all when omitted. */
  afterSeq?: number;
}

/** One turn: the customer's message and everything the agent added answering it. */
export interface TurnToAppend {
  sessionId: string;
  userId: string | null;
  agentType: string;
  messages: NewMessage[];
  /**
   * Completes this idempotency claim in the same statement: the turn is stored
   * with its key or not at all. `response` is what the client got; its
   * `message_id` is set to the stored answer's id. Throws IdempotencyKeyLostError
   * (nothing stored) when the claim is no longer held.
   */
  idempotency?: IdempotencyClaimToken & { response: Record<string, unknown> };
}

/** What appendAnswerTurn stored. */
export type AnswerTurnStored = { outcome: 'stored'; messages: StoredMessage[] } | { outcome: 'taken_over'; queued: StoredMessage };

/** A session's answers' usage and estimated cost, summed (session_usage). */
export interface SessionUsage {
  answers: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Sum of the answers' estimated costs; null when none was priced. */
  cost: number | null;
  /** How many answers carried a cost. */
  pricedAnswers: number;
}

/**
 * Conversation storage. Implementations keep ordering and counters in the
 * database, never in process memory, so several service instances can share one.
 */
export interface ChatStore {
  /**
   * The newest messages of a session that fit both limits, oldest first, never
   * starting on an assistant or tool message whose user turn was cut. System
   * messages are not part of the window. Cost does not grow with the session.
   */
  loadHistoryWindow(sessionId: string, limits: HistoryWindowLimits): Promise<StoredMessage[]>;

  /** The session's first maxMessages messages, oldest first: where a pinned opening is chosen from. */
  loadHistoryOpening(sessionId: string, maxMessages: number): Promise<StoredMessage[]>;

  /**
   * Stores a whole turn atomically, creating the session on its first turn and
   * updating its title, last message, message count and updated time. Returns the
   * stored rows in order. Either every message is stored or none is.
   */
  appendTurn(turn: TurnToAppend): Promise<StoredMessage[]>;

  /**
   * Stores the bot's turn as appendTurn does, but only while the bot holds the
   * conversation, decided under the session row's lock that a takeover also
   * takes. When a person took it over meanwhile, only the customer's message (the
   * turn's first) is stored, queued for that person (metadata.queued_for), and the
   * Idempotency-Key, if any, is completed with it: the customer sees the person's
   * messages, never a late bot answer.
   */
  appendAnswerTurn(turn: TurnToAppend): Promise<AnswerTurnStored>;

  /** The session, or null when no turn has been stored under that id. */
  getSession(sessionId: string): Promise<SessionRecord | null>;

  /** The token usage and estimated cost its answers stored, summed over the whole session. */
  sessionUsage(sessionId: string): Promise<SessionUsage>;

  /** The newest `limit` messages of a session, oldest first (every role). */
  listRecentMessages(sessionId: string, limit: number): Promise<StoredMessage[]>;

  /** Every non-system message after `afterSeq` (0: all), oldest first. */
  listMessagesAfter(sessionId: string, afterSeq: number): Promise<StoredMessage[]>;

  /** Stores the summary unless a stored one already reaches as far; true when stored. */
  saveSummary(sessionId: string, summary: SessionSummary): Promise<boolean>;

  /** Sets (or with null clears) the conversation's memory setting; false when there is no such session. */
  setMemorySetting(sessionId: string, setting: ConversationMemorySetting | null): Promise<boolean>;

  /** Keeps (or with null forgets) the conversation's language, an ISO 639-1 code; false when there is no such session. */
  setSessionLanguage(sessionId: string, language: string | null): Promise<boolean>;

  /** Sessions, newest activity first, one keyset page at a time. */
  listSessions(query: SessionListQuery): Promise<SessionListPage>;

  /** The customer's latest summary from another session, for cross-session memory. */
  latestUserSummary(userId: string, excludeSessionId: string): Promise<{ sessionId: string; summary: string } | null>;
}

/** A knowledge chunk ready to store, with its embedding. */
export interface DocumentChunk {
  source: string;
  title: string;
  chunkIndex: number;
  content: string;
  contentHash: string;
  metadata: Record<string, unknown>;
  embedding: number[];
  embeddingModel: string;
  /** Its document's language (ISO 639-1), detected at ingest; null when nothing could be told. */
  language?: string | null;
  /** The text-search configuration its full text is indexed under (textAnalysis); 'english' when absent. */
  textConfig?: string;
  /** What its full text is made from when that is not `title content` as they are (cut into words); else null. */
  searchText?: string | null;
}

/** What is stored for a chunk, without its vector: enough to decide what to re-embed. */
export interface StoredChunkInfo {
  chunkIndex: number;
  contentHash: string;
  embeddingModel: string;
  /** Its document's language as stored (null: not known, or stored before languages were). */
  language?: string | null;
}

/** A chunk found for a query, with its cosine similarity (1 = same direction). */
export interface RetrievedDocument {
  id: string;
  source: string;
  title: string;
  chunkIndex: number;
  content: string;
  metadata: Record<string, unknown>;
  similarity: number;
  /** hybridSearch only: the document's place on the full-text side (1 = best); null when none of the query's words is in it. */
  fullTextRank?: number | null;
  /** hybridSearch only: why the document was chosen, side by side. */
  evidence?: RetrievalEvidence;
}

/** A document's standing on each side of a hybrid search (its chunks share it). */
export interface RetrievalEvidence {
  /** The fused score the documents were ranked by. */
  score: number;
  /** BM25 over the best document's BM25 (0–1); 0 when no word matched. */
  fullTextScore: number;
  /** The part of fullTextScore that earlier turns' words gave. */
  historyScore: number;
  /** Place among the candidates by the best chunk's cosine similarity, and that similarity. */
  semanticRank: number;
  documentSimilarity: number;
  /** The share of the question's words (idf-weighted) the document holds (0–1); absent when unknown. */
  queryCoverage?: number;
  /** false when the embedder does not know the question's language: its similarity says nothing (absent: it does). */
  semanticInLanguage?: boolean;
}

export interface DocumentQuery {
  embedding: number[];
  embeddingModel: string;
  count: number;
  minSimilarity: number;
}

/** A hybrid search: the query's words for the full text (earlier turns' at their weights), its vector for meaning, fused by score. */
export interface HybridQuery extends DocumentQuery {
  text: string;
  /** Earlier turns' texts whose words count at a weight below 1, newest first. */
  history: { text: string; weight: number }[];
  /** Weights of the two sides in the fusion (RETRIEVAL_FULL_TEXT_WEIGHT, RETRIEVAL_SEMANTIC_WEIGHT). */
  fullTextWeight: number;
  semanticWeight: number;
  /**
   * Also the best document's closest chunk by meaning when its words chose another (at most one
   * row more than `count`, right after that document's first): for a responder that can only quote.
   */
  closestPassage?: boolean;
}

/** Knowledge-base storage: chunks with embeddings, searched by vector similarity. */
export interface KnowledgeStore {
  /**
   * The `count` nearest chunks at or above `minSimilarity`, most similar first.
   * Throws EmbeddingModelMismatchError when stored chunks were embedded by another model.
   */
  matchDocuments(query: DocumentQuery): Promise<RetrievedDocument[]>;

  /**
   * The chunks of the `count` best documents by score fusion of full text (BM25 of whole
   * documents, normalised by the best) and vectors (best chunk's cosine, at or above
   * `minSimilarity`), each document's best chunk first; every chunk carries its cosine
   * similarity and its document's evidence. Throws EmbeddingModelMismatchError like matchDocuments.
   */
  hybridSearch(query: HybridQuery): Promise<RetrievedDocument[]>;

  /**
   * Each source's coverage of a question (0–1): the share of the question's words it holds,
   * each weighed by its idf in the knowledge base (query_coverage). A source the question
   * shares nothing with is 0; the map is empty when the question has no word the full text keeps.
   */
  queryCoverage(text: string, sources: string[]): Promise<Map<string, number>>;

  /** The chunks stored for a source, by chunk index. */
  listSourceChunks(source: string): Promise<StoredChunkInfo[]>;

  /** Stored embeddings by content hash for one model, so unchanged text is not embedded twice. */
  findEmbeddingsByHash(contentHashes: string[], embeddingModel: string): Promise<Map<string, number[]>>;

  /** Replaces every chunk of a source with these, atomically. */
  replaceSourceChunks(source: string, chunks: DocumentChunk[]): Promise<void>;

  /** The embedding models the stored chunks were made with. */
  listEmbeddingModels(): Promise<string[]>;

  /**
   * The languages the knowledge base's chunks are written in (ISO 639-1), the language with
   * the most chunks first; chunks whose language is not known yet are not counted.
   */
  knowledgeLanguages(): Promise<string[]>;
}

/** A request's hold on an idempotency key, from claimIdempotencyKey. */
export interface IdempotencyClaimToken {
  key: string;
  claimToken: string;
}

/** What claimIdempotencyKey found. */
export type IdempotencyClaim =
  /** The caller runs the request, then stores its turn with appendTurn({ idempotency }) or releases the key. */
  | { outcome: 'claimed'; claim: IdempotencyClaimToken }
  /** The turn was stored: the answer as the first request returned it. */
  | { outcome: 'completed'; response: Record<string, unknown>; sessionCreated: boolean }
  /** Another request holds the key and has not finished. */
  | { outcome: 'in_progress' }
  /** The key was used with another request. */
  | { outcome: 'mismatch' };

/**
 * Idempotency keys, kept in the database so every instance sees them. A key is
 * claimed before the work, completed in the same statement that stores the turn
 * (TurnToAppend.idempotency), or released when the work failed.
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for a request whose body has digest `requestHash`, running in
   * session `sessionId` (the record belongs to it: erasing the session erases it;
   * completing the key records the session the turn was stored in). A key expires
   * `ttlSeconds` after it was first claimed; a claim not completed within
   * `leaseSeconds` may be taken over by a retry (its first holder then can no longer complete it).
   */
  claimIdempotencyKey(key: string, requestHash: string, sessionId: string, options: { ttlSeconds: number; leaseSeconds: number }): Promise<IdempotencyClaim>;

  /** Gives the key up after a failed request, so a retry runs it. False when the claim was no longer held. */
  releaseIdempotencyKey(claim: IdempotencyClaimToken): Promise<boolean>;
}
