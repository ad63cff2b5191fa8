import { Embeddings } from '@langchain/core/embeddings';
import { OpenAIEmbeddings } from '@langchain/openai';
import type { Config } from '../config';
import { retryRateLimitsWithBackoff } from '../models/retries';
import { EmbeddingModelMismatchError } from '../errors';
import { tokenizeWords } from './words';
import { loadSentenceEncoder } from './sentence-encoder';
import { OffThreadRunner } from './sources/off-thread';
import { eventLoopTurns } from '../background/event-loop-turns';

/** The width of documents.embedding; every embedder must produce vectors this long. */
export const EMBEDDING_DIMENSIONS = 1536;

/** The name stored with vectors made by the offline hashing embedder. */
export const OFFLINE_EMBEDDING_MODEL = 'offline-hashing-v1';

/**
 * The name stored with vectors of the offline sentence encoder: Universal Sentence
 * Encoder lite (512 dimensions), zero-padded to the column's width.
 */
export const USE_LITE_EMBEDDING_MODEL = 'use-lite-512-v1';

/** An embedder and the model name its vectors are stored under. */
export interface Embedder {
  embeddings: Embeddings;
  model: string;
  /**
   * The languages (ISO 639-1) its similarity means something in; absent: any. Outside them a
   * question's vector is noise (the sentence encoder puts any German paragraph at about 0.75
   * from any German question, and every Chinese text on one vector), so retrieval gives it no
   * weight and no say in confidence (createRetriever).
   */
  languages?: readonly string[];
}

/** The sentence encoder was trained on English only: its vocabulary has no Chinese or Japanese piece. */
export const USE_LITE_LANGUAGES: readonly string[] = ['en'];

/** Refuses a vector of another width than documents.embedding: it could be neither stored nor compared. */
export function assertDimensions(model: string, embedding: number[]): void {
  if (embedding.length !== EMBEDDING_DIMENSIONS) {
    throw new EmbeddingModelMismatchError(
      `The embedding model "${model}" returned ${embedding.length} dimensions; the knowledge base stores ${EMBEDDING_DIMENSIONS}.`,
    );
  }
}

/** OpenAI's embeddings when a key is set; offline, the sentence encoder (or the hashing embedder, OFFLINE_EMBEDDER=hashing). */
export function createEmbedder(config: Config): Embedder {
  const { apiKey, baseURL, embeddingModel, timeoutMs, maxRetries } = config.openai;
  if (!apiKey) {
    return config.offlineEmbedder === 'hashing'
      ? { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL }
      : { embeddings: new SentenceEncoderEmbeddings(), model: USE_LITE_EMBEDDING_MODEL, languages: USE_LITE_LANGUAGES };
  }
  return {
    embeddings: new OpenAIEmbeddings({
      model: embeddingModel,
      apiKey,
      dimensions: embeddingModel.startsWith('text-embedding-3') ? EMBEDDING_DIMENSIONS : undefined,
      configuration: baseURL ? { baseURL } : undefined,
      timeout: timeoutMs,
      maxRetries,
      onFailedAttempt: retryRateLimitsWithBackoff,
    }),
    model: embeddingModel,
  };
}

/** Pads a shorter vector with zeros to the column's width: cosine similarity is unchanged by it. */
export function padToDimensions(vector: number[]): number[] {
  if (vector.length >= EMBEDDING_DIMENSIONS) return vector;
  return [...vector, ...new Array<number>(EMBEDDING_DIMENSIONS - vector.length).fill(0)];
}

/**
 * Documents' chunks are encoded in this worker thread (its own copy of the encoder, about 160 MB
 * more while it lives): on the service's thread each chunk blocked the event loop 75 ms to
 * 0.8 s, and a document's chunks one after another stopped every request for as long as the
 * document took (43 s for one 260,000-character word). A few chunks per job, so a second
 * writer's chunks take turns; the budget is per job of ENCODER_JOB_TEXTS chunks.
 */
const encoderWorker = new OffThreadRunner('sentence-encoder', { maxHeapMb: 512, maxGrowthMb: 1024 });
const ENCODER_JOB_TEXTS = 8;
const ENCODER_JOB_TIMEOUT_MS = 120_000;

/**
 * The offline embedder that knows meaning: a small sentence encoder trained on
 * paraphrases, so "money back" lands near "refund" and "courier" near "carrier",
 * which no word-hashing can do. One text at a time (batching measured no faster).
 */
export class SentenceEncoderEmbeddings extends Embeddings {
  constructor() {
    super({});
  }

  /** In the encoder's worker thread, a few chunks per job: the service's event loop never waits for a document. */
  async embedDocuments(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += ENCODER_JOB_TEXTS) {
      const batch = texts.slice(start, start + ENCODER_JOB_TEXTS);
      const encoded = await encoderWorker.run<number[][]>('encode', { texts: batch }, ENCODER_JOB_TIMEOUT_MS);
      for (const vector of encoded) vectors.push(padToDimensions(vector));
    }
    return vectors;
  }

  /** In this thread: a question is short (a search query is at most 1,000 characters), about 14 ms. */
  async embedQuery(text: string): Promise<number[]> {
    const encoder = await loadSentenceEncoder();
    return padToDimensions(await encoder.embed(text));
  }
}

/**
 * A deterministic, offline embedder: the feature-hashing trick over words
 * (signed FNV-1a buckets, log-scaled counts, L2-normalised). Texts that share
 * words point the same way, which is enough to search a help center by topic
 * without a model. It knows nothing of synonyms. Word pairs were tried too: in
 * 1,536 buckets they doubled the collisions and blurred on- and off-topic scores.
 */
export class HashingEmbeddings extends Embeddings {
  constructor() {
    super({});
  }

  /** In turns: a long document's chunks (Thai or Chinese cut into words first) cost the event loop no long block. */
  async embedDocuments(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    const turn = eventLoopTurns();
    for (const text of texts) {
      vectors.push(hashingVector(text));
      await turn();
    }
    return vectors;
  }

  async embedQuery(text: string): Promise<number[]> {
    return hashingVector(text);
  }
}

export function hashingVector(text: string): number[] {
  const words = tokenizeWords(text);
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);

  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const [feature, count] of counts) {
    const hash = fnv1a(feature);
    const sign = hash & 1 ? 1 : -1;
    vector[(hash >>> 1) % EMBEDDING_DIMENSIONS]! += sign * (1 + Math.log(count));
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
