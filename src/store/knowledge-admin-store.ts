import { parseJsonColumn, type SqlDatabase, type SqlQueryable } from './database';
import { chunkRows, transactionalDatabase, writeSourceChunks } from './chunk-writes';
import { isSqlFunctionCaller, sqlFunction, sqlFunctionCaller, type SqlFunctionCaller } from './sql-functions';
import type { DocumentChunk } from './types';

const FUNCTIONS = {
  sources: sqlFunction('knowledge_sources', { p_source: 'text', p_pattern: 'text', p_after_source: 'text', p_limit: 'integer' }),
  chunks: sqlFunction('knowledge_source_chunks', { p_source: 'text' }),
  put: sqlFunction('put_knowledge_source', { p_source: 'text', p_chunks: 'jsonb' }),
  delete: sqlFunction('delete_knowledge_source', { p_source: 'text' }),
  // Migration 20261126000800_document_languages.
  unanalysed: sqlFunction('unanalysed_knowledge_sources', { p_after_source: 'text', p_limit: 'integer' }),
  analyse: sqlFunction('analyse_knowledge_source', { p_source: 'text', p_content_hashes: 'text[]', p_chunks: 'jsonb' }),
  mostCited: sqlFunction('most_cited_sources', { p_since: 'text', p_limit: 'integer' }),
  unanswered: sqlFunction('unanswered_questions', { p_min_confidence: 'double precision', p_since: 'text', p_limit: 'integer' }),
  // Migration 20261127170000_knowledge_gaps.
  unansweredAsks: sqlFunction('unanswered_asks', { p_min_confidence: 'double precision', p_since: 'text', p_limit: 'integer' }),
};

/** One source (article) of the knowledge base, as the knowledge API lists it. */
export interface KnowledgeSourceSummary {
  source: string;
  title: string;
  chunkCount: number;
  /** sha256 over the chunks' content hashes in order: changes exactly when what is embedded changes. */
  contentHash: string;
  /** The model(s) its vectors were made with, comma-separated (normally one). */
  embeddingModel: string;
  charCount: number;
  updatedAt: Date;
}

export interface KnowledgeSourcePage {
  sources: KnowledgeSourceSummary[];
  /** The last source of this page, to pass as `after` for the next; null on the last page. */
  nextAfter: string | null;
}

export interface KnowledgeChunk {
  chunkIndex: number;
  title: string;
  content: string;
  contentHash: string;
  embeddingModel: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
}

export interface CitedSource {
  source: string;
  title: string;
  answers: number;
  lastCitedAt: Date;
  /** False once the source was deleted: answers cited it before. */
  inKnowledgeBase: boolean;
}

export interface UnansweredQuestion {
  question: string;
  times: number;
  bestConfidence: number;
  escalated: number;
  lastAskedAt: Date;
  /** The latest conversation it was asked in. */
  sessionId: string;
}

/** One asking of a question the help center could not answer (unanswered_asks). */
export interface UnansweredAsk {
  question: string;
  sessionId: string;
  askedAt: Date;
  confidence: number;
  escalated: boolean;
  /** Why it was escalated (`not_in_help_center`, `model`, or null for an older escalation); null too when it was answered below the threshold. */
  escalationReason: string | null;
  /** The conversation's language, when it keeps one. */
  language: string | null;
}

/**
 * The knowledge base as the knowledge API and console manage it: sources listed and
 * read, replaced and deleted one at a time (each one SQL function, hence atomic), and
 * what the stored answers cited or failed to find. Searching stays in SqlStore.
 */
export class KnowledgeAdminStore {
  private readonly fn: SqlFunctionCaller;
  private readonly writeListeners = new Set<() => void>();

  /** Over a SQL connection, or over any other caller of the same functions (Supabase). */
  /** The database, whose long writes go in slices (writeSourceChunks); null over Supabase's API. */
  private readonly db: SqlDatabase | null;

  constructor(target: SqlQueryable | SqlFunctionCaller) {
    this.fn = isSqlFunctionCaller(target) ? target : sqlFunctionCaller(target);
    this.db = transactionalDatabase(target);
  }

  /** Calls `listener` after each source this store replaced or deleted (the knowledge tool's description follows what is stored). */
  onWrite(listener: () => void): void {
    this.writeListeners.add(listener);
  }

  private written(): void {
    for (const listener of this.writeListeners) listener();
  }

  /** Sources ordered by name; `text` finds it in titles and source names (case-insensitive). */
  async listSources(query: { text?: string; after?: string; limit: number; source?: string }): Promise<KnowledgeSourcePage> {
    // One row more than asked tells whether another page follows.
    const rows = await this.fn.rows<{
      source: string;
      title: string;
      chunk_count: number;
      content_hash: string;
      embedding_model: string;
      char_count: number;
      updated_at: Date | string;
    }>(FUNCTIONS.sources, {
      p_source: query.source ?? null,
      p_pattern: query.text ? `%${query.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null,
      p_after_source: query.after ?? null,
      p_limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit).map((r) => ({
      source: r.source,
      title: r.title,
      chunkCount: Number(r.chunk_count),
      contentHash: r.content_hash,
      embeddingModel: r.embedding_model,
      charCount: Number(r.char_count),
      updatedAt: new Date(r.updated_at),
    }));
    return { sources: page, nextAfter: rows.length > query.limit ? page.at(-1)!.source : null };
  }

  /** One source's row of the listing, or null when it has no chunks. */
  async getSource(source: string): Promise<KnowledgeSourceSummary | null> {
    return (await this.listSources({ source, limit: 1 })).sources[0] ?? null;
  }

  /** Every chunk of a source by chunk index (none: no such source). */
  async sourceChunks(source: string): Promise<KnowledgeChunk[]> {
    const rows = await this.fn.rows<{
      chunk_index: number;
      title: string;
      content: string;
      content_hash: string;
      embedding_model: string;
      metadata: Record<string, unknown> | string | null;
      created_at: Date | string;
    }>(FUNCTIONS.chunks, { p_source: source });
    return rows.map((r) => ({
      chunkIndex: Number(r.chunk_index),
      title: r.title,
      content: r.content,
      contentHash: r.content_hash,
      embeddingModel: r.embedding_model,
      metadata: parseJsonColumn(r.metadata) ?? {},
      createdAt: new Date(r.created_at),
    }));
  }

  /**
   * Replaces every chunk of a source atomically, serialized with other writers of the
   * same source (put_knowledge_source); the KnowledgeStore.replaceSourceChunks shape,
   * so ingest can write through it.
   */
  async replaceSourceChunks(source: string, chunks: DocumentChunk[]): Promise<void> {
    await writeSourceChunks(this.fn, this.db, FUNCTIONS.put, source, chunks);
    this.written();
  }

  /** Sources holding chunks whose language is not known yet, by name after `after`. */
  async unanalysedSources(after: string | null, limit: number): Promise<string[]> {
    const rows = await this.fn.rows<{ source: string }>(FUNCTIONS.unanalysed, { p_after_source: after, p_limit: limit });
    return rows.map((r) => r.source);
  }

  /**
   * Rewrites an unanalysed source's chunks with their language, only while it still holds
   * exactly the chunks read (`expectedHashes`, in order); false when a writer came first.
   */
  async analyseSource(source: string, expectedHashes: string[], chunks: DocumentChunk[]): Promise<boolean> {
    const written = await this.fn.value<number>(FUNCTIONS.analyse, {
      p_source: source,
      p_content_hashes: expectedHashes,
      p_chunks: chunkRows(chunks),
    });
    return Number(written) >= 0;
  }

  /** Deletes a source's chunks in one statement; returns how many there were (0: no such source). */
  async deleteSource(source: string): Promise<number> {
    const deleted = Number(await this.fn.value<number>(FUNCTIONS.delete, { p_source: source }));
    if (deleted > 0) this.written();
    return deleted;
  }

  /** Sources cited by answers since `since`, most cited first. */
  async mostCitedSources(since: Date, limit: number): Promise<CitedSource[]> {
    const rows = await this.fn.rows<{
      source: string;
      title: string | null;
      answers: number | string;
      last_cited_at: Date | string;
      in_knowledge_base: boolean;
    }>(FUNCTIONS.mostCited, { p_since: since.toISOString(), p_limit: limit });
    return rows.map((r) => ({
      source: r.source,
      title: r.title ?? r.source,
      answers: Number(r.answers),
      lastCitedAt: new Date(r.last_cited_at),
      inKnowledgeBase: r.in_knowledge_base,
    }));
  }

  /** Questions since `since` whose answer was escalated or below `minConfidence`, most frequent first. */
  async unansweredQuestions(minConfidence: number, since: Date, limit: number): Promise<UnansweredQuestion[]> {
    const rows = await this.fn.rows<{
      question: string;
      times: number | string;
      best_confidence: number;
      escalated: number | string;
      last_asked_at: Date | string;
      session_id: string;
    }>(FUNCTIONS.unanswered, { p_min_confidence: minConfidence, p_since: since.toISOString(), p_limit: limit });
    return rows.map((r) => ({
      question: r.question,
      times: Number(r.times),
      bestConfidence: Number(r.best_confidence),
      escalated: Number(r.escalated),
      lastAskedAt: new Date(r.last_asked_at),
      sessionId: r.session_id,
    }));
  }

  /**
   * Each asking since `since` of a question whose answer was escalated for want of knowledge
   * (not because the customer asked for a person or a tool failed) or stayed below
   * `minConfidence`, newest first, at most `limit`.
   */
  async unansweredAsks(minConfidence: number, since: Date, limit: number): Promise<UnansweredAsk[]> {
    const rows = await this.fn.rows<{
      question: string;
      session_id: string;
      asked_at: Date | string;
      confidence: number;
      escalated: boolean;
      escalation_reason: string | null;
      language: string | null;
    }>(FUNCTIONS.unansweredAsks, { p_min_confidence: minConfidence, p_since: since.toISOString(), p_limit: limit });
    return rows.map((r) => ({
      question: r.question,
      sessionId: r.session_id,
      askedAt: new Date(r.asked_at),
      confidence: Number(r.confidence),
      escalated: r.escalated,
      escalationReason: r.escalation_reason,
      language: r.language,
    }));
  }
}
