import type { Embedder } from '../embeddings';
import { ingestDocument, type IngestOptions, type KnowledgeWriter } from '../ingest';
import type { SiteKnowledge } from './site-sync';

/**
 * A site sync's documents written straight to the knowledge base (the CLI on the
 * database, the service's scheduler): chunked and embedded by ingestDocument, so an
 * unchanged page embeds nothing; removed one source at a time.
 */
export function knowledgeBaseForSites(
  writer: KnowledgeWriter,
  deleteSource: (source: string) => Promise<unknown>,
  embedder: Embedder,
  options: IngestOptions = {},
): SiteKnowledge {
  return {
    put: async (doc) => {
      const result = await ingestDocument({ source: doc.source, url: doc.url, title: doc.title, format: doc.format, parts: doc.parts }, writer, embedder, options);
      return { outcome: result.outcome, chunks: result.chunks, embedded: result.embedded };
    },
    remove: async (source) => {
      await deleteSource(source);
    },
  };
}
