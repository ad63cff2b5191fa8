import fc from 'fast-check';
import { boundedSearchText, SEARCH_QUERY_MAX_CHARS } from '../../src/knowledge/search-query';

describe('boundedSearchText: what a search query may cost', () => {
  it('leaves a query within the bound as it is', () => {
    const question = 'How long does a refund take?';
    expect(boundedSearchText(question)).toBe(question);
    expect(boundedSearchText('x'.repeat(SEARCH_QUERY_MAX_CHARS))).toHaveLength(SEARCH_QUERY_MAX_CHARS);
  });

  it('keeps the head (the topic) and the tail (the newest message) of a longer one', () => {
    const query = `What is your refund policy?\n${'filler words '.repeat(500)}\nHow long does the process take?`;
    const bounded = boundedSearchText(query);
    expect(bounded.startsWith('What is your refund policy?')).toBe(true);
    expect(bounded.endsWith('How long does the process take?')).toBe(true);
    expect(bounded.length).toBeLessThanOrEqual(SEARCH_QUERY_MAX_CHARS + 1);
  });

  it('never grows past the bound nor splits a surrogate pair, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 5000 }), fc.integer({ min: 2, max: 1200 }), (text, max) => {
        const bounded = boundedSearchText(text, max);
        expect(bounded.length).toBeLessThanOrEqual(Math.max(text.length, max + 1));
        if (text.isWellFormed()) expect(bounded.isWellFormed()).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
