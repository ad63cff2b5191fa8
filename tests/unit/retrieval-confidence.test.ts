import { retrievalConfidence, VECTOR_ONLY_CONFIDENCE_FACTOR, WORD_COVERAGE_FLOOR } from '../../src/agent/nodes/retrieve';
import type { RetrievalEvidence, RetrievedDocument } from '../../src/store/types';

/** A document's best chunk as hybrid search returns it, with the evidence confidence reads. */
function found(source: string, similarity: number, evidence: Partial<RetrievalEvidence>, fullTextRank: number | null = 1): RetrievedDocument {
  return {
    id: source,
    source,
    title: source,
    chunkIndex: 0,
    content: 'text',
    metadata: {},
    similarity,
    fullTextRank,
    evidence: { score: 1, fullTextScore: 1, historyScore: 0, semanticRank: 1, documentSimilarity: similarity, ...evidence },
  };
}

describe('retrievalConfidence: meaning where the embedder knows the language, words where it does not', () => {
  it('is the best similarity when the embedder knows the question language: a paraphrase needs no shared word', () => {
    expect(retrievalConfidence([found('a', 0.45, { queryCoverage: 0.1 }), found('b', 0.3, { queryCoverage: 0.7 })], 0.25)).toBeCloseTo(0.45, 10);
  });

  it('gives the embedder no say when it does not know the question language: coverage alone decides', () => {
    // The English-only encoder puts any German paragraph near 0.75: that must not carry an uncovered question.
    const other = (similarity: number, queryCoverage: number) => found('a', similarity, { queryCoverage, semanticInLanguage: false });
    expect(retrievalConfidence([other(0.8, 0.12), { ...other(0.75, 0.2), source: 'b' }])).toBeCloseTo(0.2, 10);
    // Nor may its low similarity escalate a question the words cover.
    expect(retrievalConfidence([other(0.05, 0.6)])).toBeCloseTo(0.6, 10);
  });

  it("puts coverage on the threshold's scale: below WORD_COVERAGE_FLOOR is below the threshold, whatever the embedder's", () => {
    for (const threshold of [0.2, 0.25, 0.3]) {
      const covered = retrievalConfidence([found('a', 0.9, { queryCoverage: WORD_COVERAGE_FLOOR + 0.01, semanticInLanguage: false })], threshold);
      const uncovered = retrievalConfidence([found('a', 0.9, { queryCoverage: WORD_COVERAGE_FLOOR - 0.01, semanticInLanguage: false })], threshold);
      expect(covered).toBeGreaterThan(threshold);
      expect(uncovered).toBeLessThan(threshold);
    }
  });

  it('still counts a passage found by its vector alone at a fraction of its similarity', () => {
    expect(retrievalConfidence([found('a', 0.5, { queryCoverage: 0.9 }, null)])).toBeCloseTo(0.5 * VECTOR_ONLY_CONFIDENCE_FACTOR, 10);
  });

  it('counts passages of a vector-only search (no evidence) whole, and is 0 with neither evidence', () => {
    expect(retrievalConfidence([{ ...found('a', 0.4, {}), fullTextRank: undefined, evidence: undefined }])).toBeCloseTo(0.4, 10);
    // A question of stop words in a language the embedder does not know: nothing says it is covered.
    expect(retrievalConfidence([found('a', 0.9, { semanticInLanguage: false })])).toBe(0);
  });

  it('is 0 without documents and never outside 0–1', () => {
    expect(retrievalConfidence([])).toBe(0);
    expect(retrievalConfidence([found('a', 1.2, {})])).toBe(1);
    expect(retrievalConfidence([found('a', 0.1, { queryCoverage: 1, semanticInLanguage: false })], 0.5)).toBe(1);
    expect(retrievalConfidence([found('a', -0.3, { queryCoverage: 0.5 })])).toBe(0);
  });
});
