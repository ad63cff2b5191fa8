import type { RetrievedDocument } from '../store/types';
import type { SearchQuery } from './search-query';

/** Why one document was cited: its place and score on each side of the search. */
export interface CitedDocumentEvidence {
  source: string;
  /** Its place among the documents retrieved (1 = first) and the fused score it was ranked by. */
  place: number;
  score: number;
  /** Full text: place by BM25 (null: none of the query's words) and BM25 over the best document's. */
  full_text: { place: number | null; score: number };
  /** Vectors: place among the candidates by the best chunk's similarity, and that similarity. */
  vectors: { place: number; similarity: number };
  /** The part of the full-text score that earlier turns' words gave. */
  history: { score: number };
}

/** What is stored as an answer's metadata.retrieval: how the query was made, and why each document came. */
export interface RetrievalRecord {
  query: string;
  method: SearchQuery['method'];
  vector_query?: string;
  history?: { text: string; weight: number }[];
  documents?: CitedDocumentEvidence[];
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export function retrievalRecord(query: SearchQuery, retrieved: RetrievedDocument[]): RetrievalRecord {
  const documents: CitedDocumentEvidence[] = [];
  for (const d of retrieved) {
    if (!d.evidence || documents.some((e) => e.source === d.source)) continue;
    documents.push({
      source: d.source,
      place: documents.length + 1,
      score: round(d.evidence.score),
      full_text: { place: d.fullTextRank ?? null, score: round(d.evidence.fullTextScore) },
      vectors: { place: d.evidence.semanticRank, similarity: round(d.evidence.documentSimilarity) },
      history: { score: round(d.evidence.historyScore) },
    });
  }
  return {
    query: query.text,
    method: query.method,
    ...(query.vectorText !== undefined && query.vectorText !== query.text && { vector_query: query.vectorText }),
    ...(query.history && query.history.length > 0 && { history: query.history }),
    ...(documents.length > 0 && { documents }),
  };
}
