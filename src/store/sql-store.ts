import { EmbeddingModelMismatchError } from '../errors';
import type { ConversationMemorySetting } from '../memory/settings';
import { parseJsonColumn, sqlStateOf, type SqlDatabase } from './database';
import type {
  ChatStore,
  DocumentChunk,
  DocumentQuery,
  HistoryWindowLimits,
  KnowledgeStore,
  RetrievedDocument,
  SessionListPage,
  SessionListQuery,
  SessionRecord,
  SessionSummary,
  StoredChunkInfo,
  StoredMessage,
  TurnToAppend,
} from './types';

/** SQLSTATE that match_documents() raises when the query's embedding model differs. */
const EMBEDDING_MODEL_MISMATCH = 'EM001';

const SQL = {
  historyWindow: 'select * from history_window($1, $2, $3)',
  appendTurn: 'select * from append_turn($1, $2, $3, $4::jsonb)',
  session: 'select * from chat_sessions where session_id = $1',
  recentMessages: `
    select * from (
      select * from chat_messages where session_id = $1 order by seq desc limit $2
    ) newest order by seq asc`,
  messagesAfter: 'select * from session_messages_after($1, $2)',
  saveSummary: 'select save_session_summary($1, $2, $3, $4) as stored',
  setMemorySetting: 'select set_session_memory($1, $2::jsonb) as found',
  latestUserSummary: 'select * from latest_user_summary($1, $2)',
  listSessions: 'select * from list_sessions($1, $2, $3, $4, $5)',
  matchDocuments: 'select * from match_documents($1::vector, $2, $3, $4)',
  sourceChunks: `
    select chunk_index, content_hash, embedding_model from documents
    where source = $1 order by chunk_index`,
  embeddingsByHash: `
    select distinct on (content_hash) content_hash, embedding::text as embedding from documents
    where content_hash = any($1::text[]) and embedding_model = $2`,
  deleteSource: 'delete from documents where source = $1',
  insertChunk: `
    insert into documents (source, title, chunk_index, content, content_hash, metadata, embedding, embedding_model)
    values ($1, $2, $3, $4, $5, $6::jsonb, $7::vector, $8)`,
  embeddingModels: 'select distinct embedding_model from documents order by embedding_model',
} as const;

interface MessageRow {
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
  memory_strategy: ConversationMemorySetting | string | null;
  summary: string | null;
  summarized_through_seq: number | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/**
 * Chat and knowledge storage over any Postgres with the project's migrations.
 * The logic that must be atomic or fast lives in SQL functions (history_window,
 * append_turn, match_documents), so every backend shares it.
 */
export class SqlStore implements ChatStore, KnowledgeStore {
  constructor(private readonly db: SqlDatabase) {}

  async loadHistoryWindow(sessionId: string, limits: HistoryWindowLimits): Promise<StoredMessage[]> {
    const rows = await this.db.query<MessageRow>(SQL.historyWindow, [sessionId, limits.maxMessages, limits.maxTokens]);
    return rows.map(toStoredMessage);
  }

  async appendTurn(turn: TurnToAppend): Promise<StoredMessage[]> {
    const messages = turn.messages.map((m) => ({
      role: m.role,
      content: m.content,
      tool_calls: m.toolCalls ?? null,
      tool_call_id: m.toolCallId ?? null,
      name: m.name ?? null,
      token_count: m.tokenCount,
      confidence: m.confidence ?? null,
      escalated: m.escalated ?? null,
      metadata: m.metadata ?? {},
    }));
    const rows = await this.db.query<MessageRow>(SQL.appendTurn, [
      turn.sessionId,
      turn.userId,
      turn.agentType,
      JSON.stringify(messages),
    ]);
    return rows.map(toStoredMessage);
  }

  async getSession(sessionId: string): Promise<SessionRecord | null> {
    const [row] = await this.db.query<SessionRow>(SQL.session, [sessionId]);
    return row ? toSessionRecord(row) : null;
  }

  async listRecentMessages(sessionId: string, limit: number): Promise<StoredMessage[]> {
    const rows = await this.db.query<MessageRow>(SQL.recentMessages, [sessionId, limit]);
    return rows.map(toStoredMessage);
  }

  async listMessagesAfter(sessionId: string, afterSeq: number): Promise<StoredMessage[]> {
    const rows = await this.db.query<MessageRow>(SQL.messagesAfter, [sessionId, afterSeq]);
    return rows.map(toStoredMessage);
  }

  async saveSummary(sessionId: string, summary: SessionSummary): Promise<boolean> {
    const [row] = await this.db.query<{ stored: boolean }>(SQL.saveSummary, [
      sessionId,
      summary.summary,
      summary.throughSeq,
      summary.shareWithUser,
    ]);
    return row?.stored === true;
  }

  async setMemorySetting(sessionId: string, setting: ConversationMemorySetting | null): Promise<boolean> {
    const [row] = await this.db.query<{ found: boolean }>(SQL.setMemorySetting, [
      sessionId,
      setting === null ? null : JSON.stringify(setting),
    ]);
    return row?.found === true;
  }

  async latestUserSummary(userId: string, excludeSessionId: string): Promise<{ sessionId: string; summary: string } | null> {
    const [row] = await this.db.query<{ session_id: string; summary: string }>(SQL.latestUserSummary, [userId, excludeSessionId]);
    return row ? { sessionId: row.session_id, summary: row.summary } : null;
  }

  async listSessions(query: SessionListQuery): Promise<SessionListPage> {
    // One row more than asked tells whether another page follows.
    const rows = await this.db.query<SessionRow & { cursor_updated_at: string }>(SQL.listSessions, [
      query.text ? `%${escapeLikePattern(query.text)}%` : null,
      query.escalated ?? null,
      query.after?.updatedAt ?? null,
      query.after?.sessionId ?? null,
      query.limit + 1,
    ]);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      sessions: page.map(toSessionRecord),
      nextCursor: rows.length > query.limit && last ? { updatedAt: last.cursor_updated_at, sessionId: last.session_id } : null,
    };
  }

  async matchDocuments(query: DocumentQuery): Promise<RetrievedDocument[]> {
    try {
      const rows = await this.db.query<{
        id: string;
        source: string;
        title: string;
        chunk_index: number;
        content: string;
        metadata: Record<string, unknown> | string;
        similarity: number;
      }>(SQL.matchDocuments, [toVectorLiteral(query.embedding), query.embeddingModel, query.count, query.minSimilarity]);
      return rows.map((r) => ({
        id: r.id,
        source: r.source,
        title: r.title,
        chunkIndex: r.chunk_index,
        content: r.content,
        metadata: parseJsonColumn(r.metadata) ?? {},
        similarity: Number(r.similarity),
      }));
    } catch (error) {
      if (sqlStateOf(error) === EMBEDDING_MODEL_MISMATCH) {
        throw new EmbeddingModelMismatchError((error as Error).message);
      }
      throw error;
    }
  }

  async listSourceChunks(source: string): Promise<StoredChunkInfo[]> {
    const rows = await this.db.query<{ chunk_index: number; content_hash: string; embedding_model: string }>(
      SQL.sourceChunks,
      [source],
    );
    return rows.map((r) => ({ chunkIndex: r.chunk_index, contentHash: r.content_hash, embeddingModel: r.embedding_model }));
  }

  async findEmbeddingsByHash(contentHashes: string[], embeddingModel: string): Promise<Map<string, number[]>> {
    if (contentHashes.length === 0) return new Map();
    const rows = await this.db.query<{ content_hash: string; embedding: string }>(SQL.embeddingsByHash, [
      contentHashes,
      embeddingModel,
    ]);
    return new Map(rows.map((r) => [r.content_hash, JSON.parse(r.embedding) as number[]]));
  }

  async replaceSourceChunks(source: string, chunks: DocumentChunk[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(SQL.deleteSource, [source]);
      for (const c of chunks) {
        await tx.query(SQL.insertChunk, [
          source,
          c.title,
          c.chunkIndex,
          c.content,
          c.contentHash,
          JSON.stringify(c.metadata),
          toVectorLiteral(c.embedding),
          c.embeddingModel,
        ]);
      }
    });
  }

  async listEmbeddingModels(): Promise<string[]> {
    const rows = await this.db.query<{ embedding_model: string }>(SQL.embeddingModels);
    return rows.map((r) => r.embedding_model);
  }
}

/** Text to match literally inside an ILIKE pattern: its %, _ and \\ escaped. */
function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** pgvector's text form, '[0.1,0.2,…]', which every driver passes through unchanged. */
function toVectorLiteral(embedding: number[]): string {
  return `[${embedding.join(',')}]`;
}

function toStoredMessage(r: MessageRow): StoredMessage {
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
    memorySetting: parseJsonColumn(r.memory_strategy),
    summary: r.summary,
    summarizedThroughSeq: r.summarized_through_seq === null ? null : Number(r.summarized_through_seq),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}
