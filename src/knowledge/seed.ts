import type { Logger } from '../observability/logger';
import type { SqlStore } from '../store/sql-store';
import type { Embedder } from './embeddings';
import { findSourceFiles, ingestFiles } from './ingest';
import type { KnowledgeAdminStore } from '../store/knowledge-admin-store';
import { analyseStoredKnowledge } from './language/reindex';

/** What prepareKnowledge needs beyond the folders: the shop's languages, and the store to analyse stored chunks with. */
export interface PrepareKnowledgeOptions {
  languages?: readonly string[];
  admin?: Pick<KnowledgeAdminStore, 'unanalysedSources' | 'sourceChunks' | 'analyseSource'>;
}

/**
 * Gets the knowledge base ready: on an empty one, ingests the shop's folders (the
 * shop file's `knowledge.folders`, or the sample shop's KNOWLEDGE_SEED_DIR); on a
 * filled one, warns when it was embedded by another model than the configured
 * one (every question would fail until it is re-ingested). A failure here is
 * logged, not fatal: the service still answers, without that knowledge.
 *
 * First, once, chunks stored before documents had a language are analysed
 * (analyseStoredKnowledge): the one-time step of migration 20261126000800.
 */
export async function prepareKnowledge(
  folders: string[],
  store: SqlStore,
  embedder: Embedder,
  logger: Logger,
  options: PrepareKnowledgeOptions = {},
): Promise<void> {
  if (options.admin) {
    try {
      const analysed = await analyseStoredKnowledge({ store, admin: options.admin, embedder }, { languages: options.languages });
      if (analysed.sources + analysed.skipped > 0) {
        logger.info(
          { ...analysed },
          `Analysed the language of ${analysed.sources} stored knowledge sources (${analysed.chunks} chunks, ${analysed.embedded} embedded again)`,
        );
      }
    } catch (error) {
      // Unanalysed chunks stay searchable as before (English analysis); the next start tries again.
      logger.error({ err: error }, 'Could not analyse the stored knowledge base\'s languages; it is searched as before until the next start');
    }
  }
  const models = await store.listEmbeddingModels();
  if (models.length > 0) {
    const others = models.filter((m) => m !== embedder.model);
    if (others.length > 0) {
      logger.warn(
        { stored: models, configured: embedder.model },
        `The knowledge base was embedded with ${others.join(', ')}, not ${embedder.model}: questions will fail with ` +
          'embedding_model_mismatch until it is re-ingested (npm run ingest -- <folders>)',
      );
    }
    return;
  }
  if (folders.length === 0) return;
  try {
    const files = await findSourceFiles(folders);
    const summary = await ingestFiles(files, store, embedder, undefined, { languages: options.languages });
    logger.info(
      { dirs: folders, files: summary.files, chunks: summary.chunks },
      `Knowledge base was empty: ingested ${summary.files} files (${summary.chunks} chunks) from ${folders.join(', ')}`,
    );
  } catch (error) {
    logger.error(
      { err: error, dirs: folders },
      'Could not ingest the seed knowledge base; starting without it (run npm run ingest once the embedder is reachable)',
    );
  }
}
