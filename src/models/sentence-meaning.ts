/**
 * How close in meaning the offline responder's candidate sentences are to the question, read by
 * the offline sentence encoder (the embedder the knowledge base is searched with) in the languages
 * it knows. Words alone miss a paraphrase ("guarantee" for "warranty", "send out" for "leave our
 * workshop"); meaning alone picked the answering sentence less often than words (measured in
 * BENCHMARKS.md), so it only adds to the words' order (sentence-ranking.ts, MEANING_WEIGHT).
 */
import { USE_LITE_EMBEDDING_MODEL, type Embedder } from '../knowledge/embeddings';
import { dot, unitLength } from '../knowledge/vector-math';

export interface SentenceMeaning {
  /** The languages (ISO 639-1) its closeness means something in. */
  languages: readonly string[];
  /** Each sentence's cosine to the question. */
  closeness(question: string, sentences: readonly string[]): Promise<Map<string, number>>;
}

/**
 * Sentence vectors kept, newest used last: a help center's sentences come back turn after turn, so
 * after the first few questions most candidates cost nothing (about 2 KB each).
 */
const KEPT_VECTORS = 4096;

/** The offline encoder's closeness; none for the hashing embedder (words again) or a hosted one (a paid call a sentence). */
export function sentenceMeaningOf(embedder: Embedder): SentenceMeaning | undefined {
  if (embedder.model !== USE_LITE_EMBEDDING_MODEL || !embedder.languages) return undefined;
  const kept = new Map<string, number[]>();
  return {
    languages: embedder.languages,
    async closeness(question, sentences) {
      const texts = [...new Set([question, ...sentences])];
      const vectors = new Map(texts.flatMap((t) => (kept.has(t) ? [[t, kept.get(t)!] as const] : [])));
      const missing = texts.filter((t) => !vectors.has(t));
      // In the encoder's worker thread (embedDocuments): the service's event loop does not wait on it.
      if (missing.length > 0) (await embedder.embeddings.embedDocuments(missing)).forEach((v, i) => vectors.set(missing[i]!, unitLength(v)));
      for (const [text, vector] of vectors) {
        kept.delete(text);
        kept.set(text, vector);
      }
      for (const oldest of kept.keys()) {
        if (kept.size <= KEPT_VECTORS) break;
        kept.delete(oldest);
      }
      const asked = vectors.get(question)!;
      return new Map(sentences.map((s) => [s, dot(asked, vectors.get(s)!)]));
    },
  };
}
