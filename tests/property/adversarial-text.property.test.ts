/**
 * Every step that walks a customer's (or a knowledge file's) text character by
 * character, thrown generated texts of the longest allowed length from each
 * adversarial class (tests/support/adversarial-text.ts): runs of each Unicode
 * space separator, line breaks, combining marks, emoji ZWJ sequences, bidi
 * controls, CJK, long words, repeated punctuation, with random noise mixed in.
 *
 * The ceiling per call is generous (CALL_CEILING_MS, far above what a linear step
 * takes and far below what the quadratic ones took: 12 s for the token counter on
 * 3,990 × U+3000, minutes for the markdown title on a heading line of spaces):
 * it catches a return of the quadratic cases, not small slowdowns, which
 * npm run bench:adversarial measures.
 *
 * Runs: FC_NUM_RUNS overrides the number of runs per property, FC_SEED the seed.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { normalizeOrderId } from '../../src/agent/tools/lookup-order';
import { buildSystemPrompt, formatKnowledge, parseKnowledge } from '../../src/agent/prompts';
import { chunkDocument, markdownTitle } from '../../src/knowledge/chunking';
import { hashingVector } from '../../src/knowledge/embeddings';
import { tokenizeWords } from '../../src/knowledge/words';
import { ExtractiveSummarizer, capSummary, informationScore } from '../../src/memory/summarizer';
import { TokenCounter, countBytePairs } from '../../src/memory/tokens';
import { composeExtractiveAnswer } from '../../src/models/extractive-chat-model';
import { createLogger } from '../../src/observability/logger';
import { Redactor } from '../../src/privacy/redaction';
import { adversarialText, ADVERSARIAL_CLASS_NAMES, ADVERSARIAL_CLASSES, randomWhitespace } from '../support/adversarial-text';

/** The default MESSAGE_MAX_CHARS, and the most it may be set to. */
const DEFAULT_MAX = 4000;
const LARGEST_MAX = 100_000;
const CALL_CEILING_MS = 1500;
/** At 100,000 characters: still far below what a quadratic step takes there (token counting on 100,000 em spaces: about a minute). */
const LARGEST_CALL_CEILING_MS = 5000;
const NUM_RUNS = Number(process.env['FC_NUM_RUNS'] ?? 25);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);

const counter = new TokenCounter('gpt-4o-mini');
// js-tiktoken's own encoder, for exact comparisons (the counter keeps it).
const encoder = (counter as unknown as { encoder: { encode(text: string, a: string[], d: string[]): number[] } }).encoder;
const summarizer = new ExtractiveSummarizer(counter);
const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
const logger = createLogger('info', discard);
const redactor = new Redactor(['card', 'iban']);

/** The steps, each taking a text of any length. */
const STEPS: Record<string, (text: string) => unknown> = {
  count_tokens: (text) => counter.countText(text),
  count_message: (text) => counter.countMessage({ content: text, name: text.slice(0, 64) }),
  chunk_markdown: (text) => chunkDocument(text, 'markdown'),
  chunk_text: (text) => chunkDocument(text, 'text'),
  markdown_title: (text) => markdownTitle(`# ${text}\n${text}`),
  offline_embedding: (text) => hashingVector(text),
  query_words: (text) => tokenizeWords(text),
  order_number: (text) => normalizeOrderId(text),
  offline_answer: (text) =>
    composeExtractiveAnswer(text, parseKnowledge(`${buildSystemPrompt({ instructions: 'x', crossSessionMemory: text })}\n\n${formatKnowledge([document(text)])}`)),
  offline_summary: (text) =>
    summarizer.summarize({ previousSummary: text, messages: [{ role: 'user', content: text, tokens: 1 }], tokenBudget: 2000 }),
  cap_summary: (text) => capSummary(text, 500, counter),
  information_score: (text) => informationScore(text),
  redact: (text) => redactor.redact(text),
  log_line: (text) => logger.info({ message: text, user_id: text.slice(0, 128) }, text),
};

function document(text: string) {
  return { id: 'd1', source: 'faq.md', title: text.slice(0, 200), chunkIndex: 0, content: text, metadata: {}, similarity: 0.5 };
}

async function elapsedMs(step: (text: string) => unknown, text: string): Promise<number> {
  const started = performance.now();
  await step(text);
  return performance.now() - started;
}

describe('no text of the allowed length makes a step slow (linear, not quadratic, in any run)', () => {
  beforeAll(() => {
    // Warm the encoder and the regular expressions, so the first run is not charged their set-up.
    for (const step of Object.values(STEPS)) void step('warm up');
  });

  for (const [name, step] of Object.entries(STEPS)) {
    it(`${name}: every class at ${DEFAULT_MAX} characters, noise mixed in, within ${CALL_CEILING_MS} ms`, async () => {
      await fc.assert(
        fc.asyncProperty(adversarialText(DEFAULT_MAX), async ({ text }) => {
          expect(await elapsedMs(step, text)).toBeLessThan(CALL_CEILING_MS);
        }),
        { numRuns: NUM_RUNS, seed: SEED },
      );
    });
  }

  it(`every step, every class at ${LARGEST_MAX} characters (MESSAGE_MAX_CHARS at its largest), within ${LARGEST_CALL_CEILING_MS} ms`, async () => {
    const slow: string[] = [];
    const texts = { ...Object.fromEntries(ADVERSARIAL_CLASS_NAMES.map((k) => [k, ADVERSARIAL_CLASSES[k](LARGEST_MAX)])), random_whitespace: randomWhitespace(LARGEST_MAX) };
    for (const [kind, text] of Object.entries(texts)) {
      for (const [name, step] of Object.entries(STEPS)) {
        const ms = await elapsedMs(step, text);
        if (ms >= LARGEST_CALL_CEILING_MS) slow.push(`${name} on ${kind}: ${Math.round(ms)} ms`);
      }
    }
    expect(slow).toEqual([]);
  });
});

describe('the token counter stays the tokenizer’s count', () => {
  it('counts ordinary text (no pre-tokenizer piece over 64 characters) exactly as js-tiktoken does', () => {
    const words = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('order', 'ZX-14440', ' ', '\n', '\n\n', '  ', '注文', '🙂', 'é', '<|endoftext|>', '!!', '12345'),
    );
    fc.assert(
      fc.property(fc.array(words, { maxLength: 200 }), (parts) => {
        const text = parts.join(' ');
        expect(counter.countText(text)).toBe(encoder.encode(text, [], []).length);
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  it('merges one piece into the same number of tokens as js-tiktoken (countBytePairs)', () => {
    const { ranks, pieces } = counter as unknown as { ranks: Map<string, number>; pieces: RegExp };
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }), (piece) => {
        if (!piece.isWellFormed()) return;
        // countBytePairs merges one pre-tokenizer piece: a string the encoding's pattern cuts in
        // several ("\u0000_A") is merged piece by piece by both, never as a whole.
        const cut = [...piece.matchAll(pieces)];
        if (cut.length !== 1 || cut[0]![0] !== piece) return;
        expect(countBytePairs(new TextEncoder().encode(piece), ranks)).toBe(encoder.encode(piece, [], []).length);
      }),
      { numRuns: 500, seed: SEED },
    );
  });

  it('overcounts a long run by at most one token per 16-character slice, never undercounts', () => {
    for (const kind of ['ideographic_space', 'em_space', 'no_break_space', 'ascii_space', 'newline', 'cjk', 'long_word'] as const) {
      const text = ADVERSARIAL_CLASSES[kind](400);
      const exact = encoder.encode(text, [], []).length;
      const counted = counter.countText(text);
      expect(counted).toBeGreaterThanOrEqual(exact);
      expect(counted - exact).toBeLessThanOrEqual(Math.ceil(text.length / 16));
    }
  });
});
