import { ConversationErasedError, EmbeddingModelMismatchError, IdempotencyKeyLostError } from '../errors';
import type { ConversationMemorySetting } from '../memory/settings';
import { cutWords } from '../knowledge/language/analysis';
import { parseJsonColumn, sqlStateOf, type SqlDatabase, type SqlQueryable } from './database';
import { transactionalDatabase, toVectorLiteral, writeSourceChunks } from './chunk-writes';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type FunctionArguments, type SqlFunction, type SqlFunctionCaller } from './sql-functions';
import type {
  ChatStore,
  DocumentChunk,
  DocumentQuery,
  HistoryWindowLimits,
  HybridQuery,
  AnswerTurnStored,
  IdempotencyClaim,
  IdempotencyClaimToken,
  IdempotencyStore,
  KnowledgeStore,
  RetrievedDocument,
  SessionListPage,
  SessionListQuery,
  SessionRecord,
  SessionSummary,
  SessionUsage,
  StoredChunkInfo,
  StoredMessage,
  TurnToAppend,
} from './types';

/** SQLSTATE that match_documents() and hybrid_search() raise when the query's embedding model differs. */
const EMBEDDING_MODEL_MISMATCH = 'EM001';
/** SQLSTATE that append_turn_idempotent() raises when the request no longer holds its key. */
const IDEMPOTENCY_KEY_LOST = 'IK001';

/** The migrations' functions the store calls; every method is one call. */
const FN = {
  historyWindow: sqlFunction('history_window', { p_session_id: 'text', p_max_messages: 'integer', p_max_tokens: 'integer' }),
  // Migration 20261123000202_history_window_after.
  historyWindowAfter: sqlFunction('history_window_after', {
    p_session_id: 'text',
    p_after_seq: 'integer',
    p_max_messages: 'integer',
    p_max_tokens: 'integer',
  }),
  // Migration 20261123000700_history_opening.
  historyOpening: sqlFunction('history_opening', { p_session_id: 'text', p_max_messages: 'integer' }),
  appendTurn: sqlFunction('append_turn', { p_session_id: 'text', p_user_id: 'text', p_agent_type: 'text', p_messages: 'jsonb' }),
  appendTurnIdempotent: sqlFunction('append_turn_idempotent', {
    p_key: 'text',
    p_claim_token: 'uuid',
    p_session_id: 'text',
    p_user_id: 'text',
    p_agent_type: 'text',
    p_messages: 'jsonb',
    p_response: 'jsonb',
  }),
  // Migration 20261125000200_turn_stored_once: a bot turn only while the bot holds the conversation.
  appendAnswerTurn: sqlFunction('append_answer_turn', {
    p_session_id: 'text',
    p_user_id: 'text',
    p_agent_type: 'text',
    p_messages: 'jsonb',
    p_key: 'text',
    p_claim_token: 'uuid',
    p_response: 'jsonb',
  }),
  session: sqlFunction('get_session', { p_session_id: 'text' }),
  recentMessages: sqlFunction('recent_messages', { p_session_id: 'text', p_limit: 'integer' }),
  sessionUsage: sqlFunction('session_usage', { p_session_id: 'text' }),
  messagesAfter: sqlFunction('session_messages_after', { p_session_id: 'text', p_after_seq: 'integer' }),
  saveSummary: sqlFunction('save_session_summary', {
    p_session_id: 'text',
    p_summary: 'text',
    p_through_seq: 'integer',
    p_share_with_user: 'boolean',
  }),
  setMemorySetting: sqlFunction('set_session_memory', { p_session_id: 'text', p_setting: 'jsonb' }),
  // Migration 20261126000900_conversation_language.
  setLanguage: sqlFunction('set_session_language', { p_session_id: 'text', p_language: 'text' }),
  // Migration 20261125000100_customer_data_erasure.
  sessionErased: sqlFunction('session_erased', { p_session_id: 'text' }),
  latestUserSummary: sqlFunction('latest_user_summary', { p_user_id: 'text', p_exclude_session_id: 'text' }),
  listSessions: sqlFunction('list_sessions', {
    p_pattern: 'text',
    p_escalated: 'boolean',
    p_handler: 'text',
    p_waiting: 'boolean',
    // Migration 20261127110000_escalation_reasons.
    p_escalation_reason: 'text',
    p_after_updated_at: 'text',
    p_after_session_id: 'text',
    p_limit: 'integer',
  }),
  // Migration 20261126000200_idempotency_key_session.
  claimIdempotencyKey: sqlFunction('claim_idempotency_key', {
    p_key: 'text',
    p_request_hash: 'text',
    p_session_id: 'text',
    p_ttl_seconds: 'integer',
    p_lease_seconds: 'integer',
  }),
  releaseIdempotencyKey: sqlFunction('release_idempotency_key', { p_key: 'text', p_claim_token: 'uuid' }),
  matchDocuments: sqlFunction('match_documents', {
    p_query_embedding: 'vector',
    p_embedding_model: 'text',
    p_match_count: 'integer',
    p_min_similarity: 'double precision',
  }),
  hybridSearch: sqlFunction('hybrid_search', {
    p_query_text: 'text',
    p_query_embedding: 'vector',
    p_embedding_model: 'text',
    p_match_count: 'integer',
    p_min_similarity: 'double precision',
    p_full_text_weight: 'double precision',
    p_semantic_weight: 'double precision',
    p_history: 'jsonb',
    // Migration 20261126001000_passages_and_compound_words.
    p_closest_passage: 'boolean',
  }),
  // Migration 20261126000850_query_coverage.
  queryCoverage: sqlFunction('query_coverage', { p_query_text: 'text', p_sources: 'text[]' }),
  sourceChunks: sqlFunction('source_chunks', { p_source: 'text' }),
  embeddingsByHash: sqlFunction('embeddings_by_hash', { p_content_hashes: 'text[]', p_embedding_model: 'text' }),
  replaceSourceChunks: sqlFunction('replace_source_chunks', { p_source: 'text', p_chunks: 'jsonb' }),
  embeddingModels: sqlFunction('embedding_models', {}),
  // Migration 20261126000800_document_languages.
  knowledgeLanguages: sqlFunction('knowledge_languages', {}),
  ping: sqlFunction('storage_ping', {}),
} as const;

/** A chat_messages row as the drivers return it. */
export interface MessageRow {
  id: string;
  session_id: string;
  seq: number;
  role: StoredMessage['role'];
  content: string;
  tool_calls: StoredMessage['toolCalls'] | string | null;
  tool_call_id: string | null;
  name: string | null;
  token_count: number;
  confidence: number | null;
  escalated: boolean | null;
  /** Migration 20261127110000_escalation_reasons. */
  escalation_reason?: string | null;
  metadata: Record<string, unknown> | string | null;
  created_at: Date | string;
}

interface SessionRow {
  session_id: string;
  user_id: string | null;
  agent_type: string;
  title: string | null;
  last_message: string | null;
  message_count: number;
  token_count: number | string;
  active: boolean;
  escalated: boolean;
  /** Migration 20261127110000_escalation_reasons. */
  escalation_reason?: string | null;
  handoff_summary?: string | null;
  memory_strategy: ConversationMemorySetting | string | null;
  summary: string | null;
  summarized_through_seq: number | null;
  handler: 'bot' | 'human';
  agent_name: string | null;
  waiting_since: Date | string | null;
  /** Migration 20261126000900_conversation_language. */
  language?: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A turn as append_turn and append_answer_turn take it. */
function turnArgs(turn: TurnToAppend) {
  const messages = turn.messages.map((m) => ({
    role: m.role,
    content: storableText(m.content),
    tool_calls: m.toolCalls ?? null,
    tool_call_id: m.toolCallId ?? null,
    name: m.name ?? null,
    token_count: m.tokenCount,
    confidence: m.confidence ?? null,
    escalated: m.escalated ?? null,
    escalation_reason: m.escalationReason ?? null,
    metadata: m.metadata ?? {},
  }));
  return { p_session_id: turn.sessionId, p_user_id: turn.userId, p_agent_type: turn.agentType, p_messages: messages };
}

/**
 * Chat, knowledge and idempotency storage over any Postgres with the project's
 * migrations. Every method is one call of a SQL function (history_window,
 * append_turn, match_documents, …), so the logic lives in the migrations and
 * every backend shares it: over a SQL connection (pg, PGlite) the calls are
 * selects; over Supabase's API they are PostgREST .rpc() calls.
 */
export class SqlStore implements ChatStore, KnowledgeStore, IdempotencyStore {
  private readonly fn: SqlFunctionCaller;

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  /** The database, whose long writes go in slices (writeSourceChunks); null over Supabase's API. */
  private readonly db: SqlDatabase | null;

  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
    this.db = transactionalDatabase(target);
  }

  async loadHistoryWindow(sessionId: string, limits: HistoryWindowLimits): Promise<StoredMessage[]> {
    const rows =
      limits.afterSeq === undefined
        ? await this.fn.rows<MessageRow>(FN.historyWindow, {
            p_session_id: sessionId,
            p_max_messages: limits.maxMessages,
            p_max_tokens: limits.maxTokens,
          })
        : await this.fn.rows<MessageRow>(FN.historyWindowAfter, {
            p_session_id: sessionId,
            p_after_seq: limits.afterSeq,
            p_max_messages: limits.maxMessages,
            p_max_tokens: limits.maxTokens,
          });
    return rows.map(toStoredMessage);
  }

  async loadHistoryOpening(sessionId: string, maxMessages: number): Promise<StoredMessage[]> {
    const rows = await this.fn.rows<MessageRow>(FN.historyOpening, { p_session_id: sessionId, p_max_messages: maxMessages });
    return rows.map(toStoredMessage);
  }

  async appendTurn(turn: TurnToAppend): Promise<StoredMessage[]> {
    try {
      return await this.appendTurnOnce(turn);
    } catch (error) {
      if (error instanceof IdempotencyKeyLostError) throw error;
      throw await this.erasedOr(error, turn.sessionId);
    }
  }

  /**
   * The conversation was erased while this turn was being answered: the store refused to
   * bring it back (ER410), or found its row gone mid-statement. Then ConversationErasedError,
   * else the error as it was.
   */
  private async erasedOr(error: unknown, sessionId: string): Promise<unknown> {
    const erased = await this.fn.value<boolean>(FN.sessionErased, { p_session_id: sessionId }).catch(() => false);
    return erased ? new ConversationErasedError() : error;
  }

  private async appendTurnOnce(turn: TurnToAppend): Promise<StoredMessage[]> {
    const args = turnArgs(turn);
    if (!turn.idempotency) return (await this.fn.rows<MessageRow>(FN.appendTurn, args)).map(toStoredMessage);
    try {
      const { key, claimToken, response } = turn.idempotency;
      const rows = await this.fn.rows<MessageRow>(FN.appendTurnIdempotent, { ...args, p_key: key, p_claim_token: claimToken, p_response: response });
      return rows.map(toStoredMessage);
    } catch (error) {
      if (sqlStateOf(error) === IDEMPOTENCY_KEY_LOST) throw new IdempotencyKeyLostError();
      throw error;
    }
  }

  async appendAnswerTurn(turn: TurnToAppend): Promise<AnswerTurnStored> {
    const { key = null, claimToken = null, response = null } = turn.idempotency ?? {};
    try {
      const rows = await this.fn.rows<MessageRow>(FN.appendAnswerTurn, { ...turnArgs(turn), p_key: key, p_claim_token: claimToken, p_response: response });
      const messages = rows.map(toStoredMessage);
      // A person took the conversation over: only the customer's message came back, queued for them.
      const [first] = messages;
      if (messages.length === 1 && first!.role === 'user' && first!.metadata['queued_for'] !== undefined) return { outcome: 'taken_over', queued: first! };
      return { outcome: 'stored', messages };
    } catch (error) {
      if (sqlStateOf(error) === IDEMPOTENCY_KEY_LOST) throw new IdempotencyKeyLostError();
      throw await this.erasedOr(error, turn.sessionId);
    }
  }

  async getSession(sessionId: string): Promise<SessionRecord | null> {
    const [row] = await this.fn.rows<SessionRow>(FN.session, { p_session_id: sessionId });
    return row ? toSessionRecord(row) : null;
  }

  async listRecentMessages(sessionId: string, limit: number): Promise<StoredMessage[]> {
    const rows = await this.fn.rows<MessageRow>(FN.recentMessages, { p_session_id: sessionId, p_limit: limit });
    return rows.map(toStoredMessage);
  }

  async sessionUsage(sessionId: string): Promise<SessionUsage> {
    const [row] = await this.fn.rows<{
      answers: number;
      prompt_tokens: number | string;
      cached_tokens: number | string;
      completion_tokens: number | string;
      cost: number | string | null;
      priced_answers: number;
    }>(FN.sessionUsage, { p_session_id: sessionId });
    return {
      answers: Number(row?.answers ?? 0),
      promptTokens: Number(row?.prompt_tokens ?? 0),
      cachedTokens: Number(row?.cached_tokens ?? 0),
      completionTokens: Number(row?.completion_tokens ?? 0),
      cost: row?.cost === null || row?.cost === undefined ? null : Number(row.cost),
      pricedAnswers: Number(row?.priced_answers ?? 0),
    };
  }

  async listMessagesAfter(sessionId: string, afterSeq: number): Promise<StoredMessage[]> {
    const rows = await this.fn.rows<MessageRow>(FN.messagesAfter, { p_session_id: sessionId, p_after_seq: afterSeq });
    return rows.map(toStoredMessage);
  }

  async saveSummary(sessionId: string, summary: SessionSummary): Promise<boolean> {
    const stored = await this.fn.value<boolean>(FN.saveSummary, {
      p_session_id: sessionId,
      p_summary: summary.summary,
      p_through_seq: summary.throughSeq,
      p_share_with_user: summary.shareWithUser,
    });
    return stored === true;
  }

  async setMemorySetting(sessionId: string, setting: ConversationMemorySetting | null): Promise<boolean> {
    const found = await this.fn.value<boolean>(FN.setMemorySetting, { p_session_id: sessionId, p_setting: setting });
    return found === true;
  }

  async setSessionLanguage(sessionId: string, language: string | null): Promise<boolean> {
    const found = await this.fn.value<boolean>(FN.setLanguage, { p_session_id: sessionId, p_language: language });
    return found === true;
  }

  async latestUserSummary(userId: string, excludeSessionId: string): Promise<{ sessionId: string; summary: string } | null> {
    const [row] = await this.fn.rows<{ session_id: string; summary: string }>(FN.latestUserSummary, {
      p_user_id: userId,
      p_exclude_session_id: excludeSessionId,
    });
    return row ? { sessionId: row.session_id, summary: row.summary } : null;
  }

  async listSessions(query: SessionListQuery): Promise<SessionListPage> {
    // One row more than asked tells whether another page follows.
    const rows = await this.fn.rows<SessionRow & { cursor_updated_at: string }>(FN.listSessions, {
      p_pattern: query.text ? `%${escapeLikePattern(query.text)}%` : null,
      p_escalated: query.escalated ?? null,
      p_handler: query.handler ?? null,
      p_waiting: query.waiting ?? null,
      p_escalation_reason: query.escalationReason ?? null,
      p_after_updated_at: query.after?.updatedAt ?? null,
      p_after_session_id: query.after?.sessionId ?? null,
      p_limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      sessions: page.map(toSessionRecord),
      nextCursor: rows.length > query.limit && last ? { updatedAt: last.cursor_updated_at, sessionId: last.session_id } : null,
    };
  }

  async claimIdempotencyKey(key: string, requestHash: string, sessionId: string, options: { ttlSeconds: number; leaseSeconds: number }): Promise<IdempotencyClaim> {
    const [row] = await this.fn.rows<{
      outcome: IdempotencyClaim['outcome'];
      claim_token: string | null;
      response: Record<string, unknown> | string | null;
      session_created: boolean | null;
    }>(FN.claimIdempotencyKey, {
      p_key: key,
      p_request_hash: requestHash,
      p_session_id: sessionId,
      p_ttl_seconds: options.ttlSeconds,
      p_lease_seconds: options.leaseSeconds,
    });
    switch (row?.outcome) {
      case 'claimed':
        return { outcome: 'claimed', claim: { key, claimToken: row.claim_token! } };
      case 'completed':
        return { outcome: 'completed', response: parseJsonColumn(row.response)!, sessionCreated: row.session_created === true };
      case 'mismatch':
        return { outcome: 'mismatch' };
      default:
        return { outcome: 'in_progress' };
    }
  }

  async releaseIdempotencyKey(claim: IdempotencyClaimToken): Promise<boolean> {
    return (await this.fn.value<boolean>(FN.releaseIdempotencyKey, { p_key: claim.key, p_claim_token: claim.claimToken })) === true;
  }

  async matchDocuments(query: DocumentQuery): Promise<RetrievedDocument[]> {
    return this.searchDocuments(FN.matchDocuments, {
      p_query_embedding: toVectorLiteral(query.embedding),
      p_embedding_model: query.embeddingModel,
      p_match_count: query.count,
      p_min_similarity: query.minSimilarity,
    });
  }

  /**
   * hybrid_search analyses the query with each of the knowledge base's text-search
   * configurations; what Postgres cannot do, cutting Chinese, Japanese, Thai and Korean
   * into words as their chunks were cut (cutWords), is done here first.
   */
  async hybridSearch(query: HybridQuery): Promise<RetrievedDocument[]> {
    return this.searchDocuments(FN.hybridSearch, {
      p_query_text: cutWords(query.text),
      p_query_embedding: toVectorLiteral(query.embedding),
      p_embedding_model: query.embeddingModel,
      p_match_count: query.count,
      p_min_similarity: query.minSimilarity,
      p_full_text_weight: query.fullTextWeight,
      p_semantic_weight: query.semanticWeight,
      p_history: query.history.map((h) => ({ ...h, text: cutWords(h.text) })),
      p_closest_passage: query.closestPassage ?? false,
    });
  }

  /** match_documents and hybrid_search return the same chunk rows (hybrid_search adds each document's evidence). */
  private async searchDocuments(fn: SqlFunction, args: FunctionArguments): Promise<RetrievedDocument[]> {
    try {
      const rows = await this.fn.rows<{
        id: string;
        source: string;
        title: string;
        chunk_index: number;
        content: string;
        metadata: Record<string, unknown> | string;
        similarity: number;
        full_text_rank?: number | null;
        score?: number | null;
        full_text_score?: number | null;
        history_score?: number | null;
        semantic_rank?: number | null;
        document_similarity?: number | null;
      }>(fn, args);
      return rows.map((r) => ({
        id: r.id,
        source: r.source,
        title: r.title,
        chunkIndex: r.chunk_index,
        content: r.content,
        metadata: parseJsonColumn(r.metadata) ?? {},
        similarity: Number(r.similarity),
        ...(r.full_text_rank !== undefined && { fullTextRank: r.full_text_rank === null ? null : Number(r.full_text_rank) }),
        ...(r.score !== undefined && r.score !== null && {
          evidence: {
            score: Number(r.score),
            fullTextScore: Number(r.full_text_score ?? 0),
            historyScore: Number(r.history_score ?? 0),
            semanticRank: Number(r.semantic_rank),
            documentSimilarity: Number(r.document_similarity),
          },
        }),
      }));
    } catch (error) {
      if (sqlStateOf(error) === EMBEDDING_MODEL_MISMATCH) {
        throw new EmbeddingModelMismatchError((error as Error).message);
      }
      throw error;
    }
  }


  async listSourceChunks(source: string): Promise<StoredChunkInfo[]> {
    const rows = await this.fn.rows<{ chunk_index: number; content_hash: string; embedding_model: string; language?: string | null }>(
      FN.sourceChunks,
      { p_source: source },
    );
    return rows.map((r) => ({
      chunkIndex: r.chunk_index,
      contentHash: r.content_hash,
      embeddingModel: r.embedding_model,
      ...(r.language != null && { language: r.language }),
    }));
  }

  async findEmbeddingsByHash(contentHashes: string[], embeddingModel: string): Promise<Map<string, number[]>> {
    if (contentHashes.length === 0) return new Map();
    const rows = await this.fn.rows<{ content_hash: string; embedding: string }>(FN.embeddingsByHash, {
      p_content_hashes: contentHashes,
      p_embedding_model: embeddingModel,
    });
    return new Map(rows.map((r) => [r.content_hash, JSON.parse(r.embedding) as number[]]));
  }

  async replaceSourceChunks(source: string, chunks: DocumentChunk[]): Promise<void> {
    await writeSourceChunks(this.fn, this.db, FN.replaceSourceChunks, source, chunks);
  }

  async queryCoverage(text: string, sources: string[]): Promise<Map<string, number>> {
    if (sources.length === 0) return new Map();
    // Cut into words as hybridSearch cuts the query, so coverage counts the words the search found.
    const rows = await this.fn.rows<{ source: string; coverage: number }>(FN.queryCoverage, { p_query_text: cutWords(text), p_sources: sources });
    return new Map(rows.map((r) => [r.source, Number(r.coverage)]));
  }

  async listEmbeddingModels(): Promise<string[]> {
    const rows = await this.fn.rows<{ embedding_model: string }>(FN.embeddingModels, {});
    return rows.map((r) => r.embedding_model);
  }

  async knowledgeLanguages(): Promise<string[]> {
    const rows = await this.fn.rows<{ language: string }>(FN.knowledgeLanguages, {});
    return rows.map((r) => r.language);
  }

  /** Resolves when the database answers and has the schema (for /health). */
  async ping(): Promise<void> {
    if ((await this.fn.value<boolean>(FN.ping, {})) !== true) throw new Error('The database has no chat_sessions table: apply the migrations');
  }
}

/** Text to match literally inside an ILIKE pattern: its %, _ and \\ escaped. */
function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** pgvector's text form, '[0.1,0.2,…]', which every driver passes through unchanged. */
/** Chunks as the p_chunks JSON that replace_source_chunks and put_knowledge_source read. */
export function toStoredMessage(r: MessageRow): StoredMessage {
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: Number(r.seq),
    role: r.role,
    content: r.content,
    toolCalls: parseJsonColumn(r.tool_calls),
    toolCallId: r.tool_call_id,
    name: r.name,
    tokenCount: Number(r.token_count),
    confidence: r.confidence === null ? null : Number(r.confidence),
    escalated: r.escalated,
    escalationReason: r.escalation_reason ?? null,
    metadata: parseJsonColumn(r.metadata) ?? {},
    createdAt: new Date(r.created_at),
  };
}

function toSessionRecord(r: SessionRow): SessionRecord {
  return {
    sessionId: r.session_id,
    userId: r.user_id,
    agentType: r.agent_type,
    title: r.title,
    lastMessage: r.last_message,
    messageCount: Number(r.message_count),
    tokenCount: Number(r.token_count),
    active: r.active,
    escalated: r.escalated,
    escalationReason: r.escalation_reason ?? null,
    handoffSummary: r.handoff_summary ?? null,
    memorySetting: parseJsonColumn(r.memory_strategy),
    summary: r.summary,
    summarizedThroughSeq: r.summarized_through_seq === null ? null : Number(r.summarized_through_seq),
    handler: r.handler ?? 'bot',
    agentName: r.agent_name ?? null,
    waitingSince: r.waiting_since ? new Date(r.waiting_since) : null,
    language: r.language ?? null,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/**
 * Text as Postgres can store it: the customer's message is checked at the door, but
 * model answers and tool results may still carry NUL or a lone surrogate, which
 * jsonb and text refuse; losing those characters beats losing the turn.
 */
function storableText(text: string): string {
  return text.replaceAll('\u0000', '').toWellFormed();
}
