import fs from 'node:fs';
import path from 'node:path';
import { CHUNK_SIZE, chunkDocument, collapseSpaces, cutLongRuns, MAX_RUN_CHARS, RUN_PIECE_CHARS } from '../../src/knowledge/chunking';
import { spacelessArticle, unbrokenWord } from '../support/adversarial-text';
import { HELP_CENTER_DIR } from '../support/test-service';

describe('a run without whitespace longer than two chunks is cut before the splitter sees it', () => {
  test('ordinary text is returned as it is: the help center, 260 KB of Thai and of Chinese, a 2,000-character paragraph without a space', () => {
    for (const file of fs.readdirSync(HELP_CENTER_DIR)) {
      const text = collapseSpaces(fs.readFileSync(path.join(HELP_CENTER_DIR, file), 'utf8'));
      expect(cutLongRuns(text)).toBe(text);
    }
    for (const text of [spacelessArticle('thai', 260_000), spacelessArticle('chinese', 260_000), '退'.repeat(MAX_RUN_CHARS)]) {
      expect(cutLongRuns(text)).toBe(text);
    }
  });

  test('a longer run becomes pieces of one chunk, nothing lost, and the splitter makes one chunk of each', async () => {
    const word = unbrokenWord(10_000, 3);
    const cut = cutLongRuns(`Before ${word} after`);
    const pieces = cut.split(' ');
    expect(pieces.slice(1, -1).every((p) => p.length <= RUN_PIECE_CHARS)).toBe(true);
    expect(pieces.join('')).toBe(`Before${word}after`);
    const chunks = await chunkDocument(word, 'text');
    expect(chunks).toHaveLength(Math.ceil(word.length / RUN_PIECE_CHARS));
    expect(chunks.every((c) => c.content.length < CHUNK_SIZE)).toBe(true);
  });

  test('a run of emoji (surrogate pairs) is never cut between the two halves of a pair', () => {
    const emoji = '\u{1F600}'.repeat(MAX_RUN_CHARS);
    const cut = cutLongRuns(emoji);
    expect(cut).not.toBe(emoji);
    expect(cut.isWellFormed()).toBe(true);
    expect(cut.replace(/ /g, '')).toBe(emoji);
  });
});
