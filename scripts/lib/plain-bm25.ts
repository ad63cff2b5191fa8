/**
 * The baseline every retrieval figure is compared with: plain BM25 (k1 1.2, b 0.75)
 * over whole documents, the turn's own words alone, computed here from the files so
 * it shares nothing with the service. Words are lower-cased letter and digit runs
 * without stemming; Lucene's English stop words are dropped (as a search engine's
 * standard analyzer would).
 */
import fs from 'node:fs';
import path from 'node:path';

const STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w));
}

export interface PlainBm25 {
  /** Document file names, best first (only documents sharing a word with the query). */
  rank(query: string): string[];
}

export function plainBm25(docsDir: string, k1 = 1.2, b = 0.75): PlainBm25 {
  const docs = fs
    .readdirSync(docsDir)
    .filter((f) => /\.(md|txt)$/u.test(f))
    .sort()
    .map((file) => {
      const tokens = words(fs.readFileSync(path.join(docsDir, file), 'utf8'));
      const tf = new Map<string, number>();
      for (const w of tokens) tf.set(w, (tf.get(w) ?? 0) + 1);
      return { file, tf, length: tokens.length };
    });
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  const averageLength = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, n);
  return {
    rank(query) {
      const terms = [...new Set(words(query))];
      return docs
        .map((d) => {
          let score = 0;
          for (const w of terms) {
            const tf = d.tf.get(w);
            if (!tf) continue;
            const idf = Math.log(1 + (n - df.get(w)! + 0.5) / (df.get(w)! + 0.5));
            score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / averageLength));
          }
          return { file: d.file, score };
        })
        .filter((s) => s.score > 0)
        .sort((x, y) => y.score - x.score || x.file.localeCompare(y.file))
        .map((s) => s.file);
    },
  };
}
