import type { SqlDatabase, SqlQueryable } from './database';
import { sqlFunction, sqlFunctionCaller, type SqlFunction, type SqlFunctionCaller } from './sql-functions';
import type { DocumentChunk } from './types';

// Migration 20261127150000_knowledge_chunk_slices.
const ADD_SOURCE_CHUNKS = sqlFunction('add_source_chunks', { p_source: 'text', p_chunks: 'jsonb' });
const DEFER_STATISTICS = sqlFunction('defer_knowledge_statistics', {});
const REFRESH_STATISTICS = sqlFunction('refresh_knowledge_statistics', { p_sources: 'text[]' });

/** How long one statement of a sliced write should take: the event loop waits no longer. */
const SLICE_TARGET_MS = 25;
const FIRST_SLICE_CHUNKS = 4;
const MAX_SLICE_CHUNKS = 64;

/** The database when the store has one with transactions (PGlite, a server), for writes in slices; null over Supabase's API. */
export function transactionalDatabase(target: SqlQueryable | SqlFunctionCaller): SqlDatabase | null {
  return typeof (target as Partial<SqlDatabase>).transaction === 'function' ? (target as SqlDatabase) : null;
}

/**
 * Replaces every chunk of a source through `replace` (put_knowledge_source or
 * replace_source_chunks): for more chunks than one slice, in slices when there is a database
 * with transactions (writeChunksInSlices); otherwise (Supabase's API) in one call.
 */
export async function writeSourceChunks(
  fn: SqlFunctionCaller,
  db: SqlDatabase | null,
  replace: SqlFunction,
  source: string,
  chunks: DocumentChunk[],
): Promise<void> {
  if (db && chunks.length > FIRST_SLICE_CHUNKS) return writeChunksInSlices(db, replace, source, chunks);
  await fn.value<number>(replace, { p_source: source, p_chunks: chunkRows(chunks) });
}

/**
 * Replaces a source's chunks in one transaction of short statements: `replace`
 * (put_knowledge_source or replace_source_chunks) with the first slice, then add_source_chunks
 * with each further one, the event loop given back between them; the source's full-text
 * statistics are recounted once, at the end, not after every slice. The slice grows or shrinks
 * so each statement takes about SLICE_TARGET_MS. On PGlite, which runs on the service's thread,
 * the statements themselves blocked (40 ms a chunk under load: one 390-chunk statement stopped
 * the service 15 s); on a server, building one call's JSON of every vector did (1.2 s for 261
 * chunks under load). A reader sees the old chunks or the new ones, never a mix: PGlite runs
 * one transaction at a time, and a server's readers see the transaction once it commits.
 */
async function writeChunksInSlices(db: SqlDatabase, replace: SqlFunction, source: string, chunks: DocumentChunk[]): Promise<void> {
  await db.transaction(async (tx) => {
    const fn = sqlFunctionCaller(tx);
    await fn.value(DEFER_STATISTICS, {});
    let size = FIRST_SLICE_CHUNKS;
    let start = 0;
    do {
      const slice = chunks.slice(start, start + size);
      const started = performance.now();
      await fn.value<number>(start === 0 ? replace : ADD_SOURCE_CHUNKS, { p_source: source, p_chunks: chunkRows(slice) });
      const tookMs = Math.max(1, performance.now() - started);
      start += slice.length;
      size = Math.max(1, Math.min(MAX_SLICE_CHUNKS, Math.round((size * SLICE_TARGET_MS) / tookMs)));
      await new Promise((resolve) => setImmediate(resolve));
    } while (start < chunks.length);
    await fn.value(REFRESH_STATISTICS, { p_sources: [source] });
  });
}

/** Chunks as the chunk-writing SQL functions take them (p_chunks, jsonb). */
export function chunkRows(chunks: DocumentChunk[]) {
  return chunks.map((c) => ({
    title: c.title,
    chunk_index: c.chunkIndex,
    content: c.content,
    content_hash: c.contentHash,
    metadata: c.metadata,
    embedding: toVectorLiteral(c.embedding),
    embedding_model: c.embeddingModel,
    language: c.language ?? null,
    text_config: c.textConfig ?? null,
    search_text: c.searchText ?? null,
  }));
}

/** A vector in pgvector's text form. */
export function toVectorLiteral(embedding: number[]): string {
  return `[${embedding.join(',')}]`;
}
