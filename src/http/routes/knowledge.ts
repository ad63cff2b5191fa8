import express, { Router, type Request, type RequestHandler } from 'express';
import { AppError, EmbeddingModelMismatchError, EmbeddingUnavailableError, NotFoundError } from '../../errors';
import { draftArticle } from '../../knowledge/drafts';
import type { Embedder } from '../../knowledge/embeddings';
import { groupGaps, QuestionVectors } from '../../knowledge/gaps';
import { ingestDocument, type DocumentToIngest, type KnowledgeWriter } from '../../knowledge/ingest';
import { convertDocument, DocumentSkipped, formatOfContentType, type SkipReason } from '../../knowledge/sources/convert';
import { normaliseUrl } from '../../knowledge/sources/site-urls';
import type { KnowledgeSyncSchedule } from '../../knowledge/sync-schedule';
import { keepRequestContext } from '../../observability/http';
import type { Logger } from '../../observability/logger';
import type { KnowledgeAdminStore, KnowledgeSourceSummary } from '../../store/knowledge-admin-store';
import type { SiteSyncStore } from '../../store/site-sync-store';
import type { ChatStore, KnowledgeStore } from '../../store/types';
import { requireAgentKey } from '../auth';
import { isFromThisMachine } from '../local-request';
import {
  articleContentSchema,
  knowledgeArticleSchema,
  knowledgeDraftRequestSchema,
  knowledgePutQuerySchema,
  knowledgeInsightsQuerySchema,
  knowledgeListQuerySchema,
  knowledgeSourceSchema,
  knowledgeSyncRequestSchema,
  knowledgeSyncsQuerySchema,
} from '../knowledge-schemas';
import { parseInput } from '../validate';

export interface KnowledgeRoutesParts {
  /** Searching and the bookkeeping ingest reads (chunks, stored vectors, models). */
  store: KnowledgeStore;
  /** The conversations a draft article is written from. */
  conversations: Pick<ChatStore, 'getSession' | 'listMessagesAfter'>;
  /** Listing, reading, replacing and deleting sources. */
  admin: KnowledgeAdminStore;
  embedder: Embedder;
  agentApiKey: string;
  /** KNOWLEDGE_DOCUMENT_MAX_BYTES: larger bodies are refused with 413. */
  documentMaxBytes: number;
  /** Answers below this confidence count as "found nothing" on the console's page. */
  escalationThreshold: number;
  /** The recorded site sync runs. */
  syncRuns: Pick<SiteSyncStore, 'recentRuns'>;
  /** The shop's languages: they guide the detection of a document's language (IngestOptions). */
  languages?: readonly string[];
  /** Runs a site's sync in the service (POST /knowledge/syncs): the schedule's own runner, so the two never overlap. */
  siteSyncs: Pick<KnowledgeSyncSchedule, 'syncSiteNow'>;
  logger: Logger;
}

/** Body types PUT accepts as text, and the format each is chunked as. */
const TEXT_FORMATS: Record<string, 'markdown' | 'text'> = {
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
};

/** How a document that cannot be stored is answered: 422 with a code per reason. */
const SKIP_ERRORS: Record<SkipReason, { status: number; code: string }> = {
  no_text_layer: { status: 422, code: 'no_text_layer' },
  empty: { status: 422, code: 'empty_document' },
  unreadable: { status: 422, code: 'unreadable_document' },
  unsupported_type: { status: 415, code: 'unsupported_media_type' },
  too_large: { status: 413, code: 'payload_too_large' },
};

/** A sync request is a URL and three options. */
const SYNC_REQUEST_MAX_BYTES = 8 * 1024;
/** Unanswered askings the insights group into gaps at most (the newest): grouping compares every pair. */
export const GAP_ASKS_LIMIT = 300;
/** A drafting request is one session id. */
const DRAFT_REQUEST_MAX_BYTES = 4 * 1024;
/** Seconds to wait before asking again while another sync runs. */
const SYNC_BUSY_RETRY_AFTER_SECONDS = 30;

/** Seconds a client should wait before retrying when the embedding model is down. */
const EMBEDDING_RETRY_AFTER_SECONDS = 30;

/**
 * The knowledge API, for the support team and integrations (agent key): list and read
 * the knowledge base's sources, create or replace one article (chunked and embedded as
 * `npm run ingest` does, written in one SQL call, so answers see the old article or the
 * new one, never a mix), and delete one (its chunks are gone for the next question).
 */
export function knowledgeRoutes(parts: KnowledgeRoutesParts): Router {
  const router = Router();
  router.use('/knowledge', requireAgentKey(parts.agentApiKey));
  const questionVectors = new QuestionVectors(parts.embedder);
  const writer: KnowledgeWriter = {
    listSourceChunks: (source) => parts.store.listSourceChunks(source),
    findEmbeddingsByHash: (hashes, model) => parts.store.findEmbeddingsByHash(hashes, model),
    // Serialized with other writers of the same source (two PUTs at once must not collide).
    replaceSourceChunks: (source, chunks) => parts.admin.replaceSourceChunks(source, chunks),
  };

  router.get('/knowledge/sources', async (req, res) => {
    const query = parseInput(knowledgeListQuerySchema, req.query);
    const page = await parts.admin.listSources({ text: query.q, after: query.after, limit: query.limit });
    res.json({ sources: page.sources.map(toSourceItem), next_after: page.nextAfter });
  });

  router.get('/knowledge/sources/:source', async (req, res) => {
    const source = parseInput(knowledgeSourceSchema, req.params.source);
    const summary = await parts.admin.getSource(source);
    const chunks = await parts.admin.sourceChunks(source);
    if (!summary || chunks.length === 0) throw new NotFoundError(`No knowledge source "${source}".`);
    res.json({
      ...toSourceItem(summary),
      chunks: chunks.map((c) => ({ chunk_index: c.chunkIndex, content: c.content, content_hash: c.contentHash })),
    });
  });

  router.put('/knowledge/sources/:source', boundedRawBody(parts.documentMaxBytes), async (req, res) => {
    const source = parseInput(knowledgeSourceSchema, req.params.source);
    const doc = await readDocument(req, source, parts.documentMaxBytes);
    await refuseMixedEmbeddingModels(parts.store, parts.embedder);
    let result;
    try {
      result = await ingestDocument(doc, writer, parts.embedder, { languages: parts.languages });
    } catch (error) {
      if (error instanceof EmbeddingUnavailableError) {
        res.set('Retry-After', String(EMBEDDING_RETRY_AFTER_SECONDS));
        throw new AppError(503, 'embedding_unavailable', error.message, { cause: error.cause });
      }
      if (error instanceof EmbeddingModelMismatchError) throw new AppError(409, 'embedding_model_mismatch', error.message);
      throw error;
    }
    parts.logger.info({ source, outcome: result.outcome, chunks: result.chunks, embedded: result.embedded }, 'Knowledge source written');
    res.status(result.outcome === 'added' ? 201 : 200).json({
      source,
      title: result.title,
      outcome: result.outcome,
      chunk_count: result.chunks,
      embedded: result.embedded,
      embedding_model: parts.embedder.model,
    });
  });

  router.delete('/knowledge/sources/:source', async (req, res) => {
    const source = parseInput(knowledgeSourceSchema, req.params.source);
    const deleted = await parts.admin.deleteSource(source);
    if (deleted === 0) throw new NotFoundError(`No knowledge source "${source}".`);
    parts.logger.info({ source, chunks: deleted }, 'Knowledge source deleted');
    res.json({ source, deleted_chunks: deleted });
  });

  router.get('/knowledge/syncs', async (req, res) => {
    const query = parseInput(knowledgeSyncsQuerySchema, req.query);
    // One more than asked tells whether another page follows.
    const runs = await parts.syncRuns.recentRuns({ site: query.site, beforeId: query.cursor ? Number(query.cursor) : undefined, limit: query.limit + 1 });
    const page = runs.slice(0, query.limit);
    res.json({
      syncs: page.map((run) => ({
        id: run.id,
        site: run.site,
        trigger: run.trigger,
        status: run.status,
        started_at: run.startedAt.toISOString(),
        finished_at: run.finishedAt?.toISOString() ?? null,
        counts: run.counts,
        errors: run.errors,
        message: run.message,
      })),
      next_cursor: runs.length > query.limit ? String(page.at(-1)!.id) : null,
    });
  });

  router.post('/knowledge/syncs', express.json({ limit: SYNC_REQUEST_MAX_BYTES }), async (req, res) => {
    const body = parseInput(knowledgeSyncRequestSchema, req.body ?? {});
    const site = normaliseUrl(body.site)!;
    // The agent key alone must not make the service read the private network into the knowledge base:
    // a site is crawled public-only unless it is a configured site named with allow_private_network,
    // or the operator asks for it from the service's own machine (npm run ingest next to it).
    if (body.allow_private_network && !isFromThisMachine(req)) {
      throw new AppError(
        403,
        'private_site_refused',
        'allow_private_network is honoured only from the service\'s own machine (npm run ingest -- --allow-private-network there), or for a site of KNOWLEDGE_SYNC_URLS or the shop file\'s knowledge.sites configured with it.',
      );
    }
    const started = await parts.siteSyncs.syncSiteNow(site, {
      trigger: 'api',
      prune: body.prune,
      maxPages: body.max_pages,
      concurrency: body.concurrency,
      allowPrivateNetwork: body.allow_private_network,
    });
    if (!started) {
      res.set('Retry-After', String(SYNC_BUSY_RETRY_AFTER_SECONDS));
      throw new AppError(409, 'sync_in_progress', 'A knowledge sync is going on (on this instance or another); try again when it has ended.');
    }
    parts.logger.info({ site, run_id: started.runId, prune: body.prune }, `Knowledge sync of ${site} started on request (run #${started.runId})`);
    res
      .status(202)
      .location(`/api/v1/knowledge/syncs?site=${encodeURIComponent(site)}`)
      .json({ id: started.runId, site, status: 'running' });
  });

  router.get('/knowledge/insights', async (req, res) => {
    const { days, limit } = parseInput(knowledgeInsightsQuerySchema, req.query);
    const since = new Date(Date.now() - days * 24 * 3600 * 1000);
    const [cited, unanswered, asks] = await Promise.all([
      parts.admin.mostCitedSources(since, limit),
      parts.admin.unansweredQuestions(parts.escalationThreshold, since, limit),
      parts.admin.unansweredAsks(parts.escalationThreshold, since, GAP_ASKS_LIMIT),
    ]);
    const gaps = (await groupGaps(asks, questionVectors)).slice(0, limit);
    res.json({
      since: since.toISOString(),
      most_cited: cited.map((c) => ({
        source: c.source,
        title: c.title,
        answers: c.answers,
        last_cited_at: c.lastCitedAt.toISOString(),
        in_knowledge_base: c.inKnowledgeBase,
      })),
      unanswered: unanswered.map((q) => ({
        question: q.question,
        times: q.times,
        best_confidence: q.bestConfidence,
        escalated: q.escalated,
        last_asked_at: q.lastAskedAt.toISOString(),
        session_id: q.sessionId,
      })),
      gaps: gaps.map((g) => ({
        question: g.question,
        count: g.count,
        examples: g.examples,
        reasons: g.reasons,
        session_ids: g.sessionIds,
        last_asked_at: g.lastAskedAt.toISOString(),
      })),
    });
  });

  router.post('/knowledge/drafts', express.json({ limit: DRAFT_REQUEST_MAX_BYTES }), async (req, res) => {
    const { session_id: sessionId } = parseInput(knowledgeDraftRequestSchema, req.body ?? {});
    const session = await parts.conversations.getSession(sessionId);
    if (!session) throw new NotFoundError(`No conversation with session_id "${sessionId}".`);
    const draft = draftArticle(session, await parts.conversations.listMessagesAfter(sessionId, 0));
    res.json({ session_id: sessionId, title: draft.title, body: draft.body, source: draft.source });
  });

  return router;
}

function toSourceItem(s: KnowledgeSourceSummary) {
  return {
    source: s.source,
    title: s.title,
    chunk_count: s.chunkCount,
    content_hash: s.contentHash,
    embedding_model: s.embeddingModel,
    char_count: s.charCount,
    updated_at: s.updatedAt.toISOString(),
  };
}

/**
 * Reads the body as bytes up to the limit, whatever its type (checked afterwards), and
 * names the limit in the 413. (The app's JSON parser skips these paths: its limit is smaller.)
 */
function boundedRawBody(maxBytes: number): RequestHandler {
  const read = express.raw({ type: () => true, limit: maxBytes });
  return (req, res, next) =>
    read(req, res, (error?: unknown) => {
      const tooLarge = (error as { type?: string } | undefined)?.type === 'entity.too.large';
      // Reading the body loses the request's log context (as after express.json in app.ts): restore it.
      keepRequestContext(req, res, () =>
        next(tooLarge ? new AppError(413, 'payload_too_large', `A document may be at most ${maxBytes} bytes (KNOWLEDGE_DOCUMENT_MAX_BYTES).`) : error),
      );
    });
}

/**
 * The document in the body: an HTML page, a PDF or a Word file converted to Markdown (PDF
 * page by page), markdown or plain text as is, or JSON {title, content | parts, format, url}.
 * `?url=` names where a non-JSON document came from. A document with nothing to store is
 * refused (422) before anything is written.
 */
async function readDocument(req: Request, source: string, maxBytes: number): Promise<DocumentToIngest> {
  const contentType = req.get('content-type') ?? '';
  const format = formatOfContentType(contentType);
  const { url } = parseInput(knowledgePutQuerySchema, req.query);
  if (format !== 'html' && format !== 'pdf' && format !== 'docx') {
    const article = readArticle(req, source);
    return 'url' in article || url === undefined ? article : { ...article, url };
  }
  const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (bytes.length === 0) throw new AppError(400, 'invalid_request', 'The document is empty.');
  try {
    const converted = await convertDocument(bytes, format, { url, contentType, maxBytes });
    return { source, title: converted.title, format: converted.format, parts: converted.parts, ...(url !== undefined && { url }) };
  } catch (error) {
    if (!(error instanceof DocumentSkipped)) throw error;
    const { status, code } = SKIP_ERRORS[error.reason];
    throw new AppError(status, code, `${error.message} Nothing was stored.`, { cause: error.cause });
  }
}

/** The article in the body: markdown or plain text as is, or JSON {title, content | parts, format, url}. */
function readArticle(req: Request, source: string): DocumentToIngest {
  const type = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const charset = /;\s*charset="?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError(415, 'unsupported_media_type', 'Send the article as UTF-8 (charset=utf-8).');
  }
  if (type !== 'application/json' && !TEXT_FORMATS[type]) {
    throw new AppError(
      415,
      'unsupported_media_type',
      'Send the document as text/markdown, text/plain, text/html, application/pdf or a Word file ' +
        '(application/vnd.openxmlformats-officedocument.wordprocessingml.document), ' +
        'or as JSON {"title", "content"} with Content-Type: application/json.',
    );
  }
  const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new AppError(400, 'invalid_request', 'The article must be UTF-8 text.');
  }
  if (type === 'application/json') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new AppError(400, 'invalid_json', 'The request body is not valid JSON.');
    }
    const article = parseInput(knowledgeArticleSchema, json);
    const common = { source, format: article.format, title: article.title, ...(article.url !== undefined && { url: article.url }) };
    return article.parts
      ? { ...common, parts: article.parts.map((p) => ({ markdown: p.content, ...(p.page !== undefined && { page: p.page }) })) }
      : { ...common, text: article.content! };
  }
  return { source, text: parseInput(articleContentSchema, text), format: TEXT_FORMATS[type]! };
}

/**
 * Vectors of two models cannot be searched together: while the stored knowledge was
 * embedded by another model, adding this one's would break every question. Re-ingest
 * everything with the new model first (npm run ingest, with the service stopped).
 */
async function refuseMixedEmbeddingModels(store: KnowledgeStore, embedder: Embedder): Promise<void> {
  const others = (await store.listEmbeddingModels()).filter((m) => m !== embedder.model);
  if (others.length > 0) {
    throw new AppError(
      409,
      'embedding_model_mismatch',
      `The knowledge base was embedded with ${others.join(', ')}, but this service embeds with ${embedder.model}: ` +
        're-ingest the whole knowledge base with the current model first; nothing was changed.',
    );
  }
}
