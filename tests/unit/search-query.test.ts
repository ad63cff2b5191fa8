import { rewriteRequest } from '../../src/knowledge/query-rewriter';
import { standsAlone, topicSearchQuery } from '../../src/knowledge/search-query';
import { retrievalConfidence, VECTOR_ONLY_CONFIDENCE_FACTOR } from '../../src/agent/nodes/retrieve';
import type { RetrievedDocument } from '../../src/store/types';

describe('standsAlone: whether a message can be searched for without the conversation', () => {
  it.each([
    'What is your refund policy?',
    'How long does a refund take?',
    'Do you ship to Norway?',
    'Are there any fees for Klarna?',
    'By the way, what is the best smartphone to buy this year?',
    'One more thing: how do I reset my password?',
  ])('"%s" stands alone', (message) => expect(standsAlone(message)).toBe(true));

  it.each([
    'Is it free?', // refers back
    'Which one is cheaper?',
    'And after it has shipped?', // continues
    'What about international cards?',
    'How long does the process take?', // only generic words
    'Are there any fees?',
    'Is there a limit?',
    'And then what happens?',
  ])('"%s" needs the conversation', (message) => expect(standsAlone(message)).toBe(false));
});

describe('topicSearchQuery: the offline method', () => {
  const weights = { weight: 0.2, followUpWeight: 0.5 };
  const conversation = [
    { role: 'user', content: 'Which payment methods do you accept?' },
    { role: 'assistant', content: 'Cards, PayPal, Klarna, Apple Pay and Google Pay.' },
    { role: 'user', content: 'Are there any fees?' },
    { role: 'assistant', content: 'No payment fees.' },
  ];

  it("searches for a message that stands alone by its own words, the customer's earlier messages at a small weight halving per message back", () => {
    expect(topicSearchQuery('Do you ship to Norway?', conversation, weights)).toEqual({
      text: 'Do you ship to Norway?',
      method: 'message',
      history: [
        { text: 'Are there any fees?', weight: 0.2 },
        { text: 'Which payment methods do you accept?', weight: 0.1 },
      ],
    });
  });

  it("gives a follow-up's earlier messages more weight, and its vectors the topic back to the message that set it, never the agent's words", () => {
    expect(topicSearchQuery('What about international cards?', conversation, weights)).toEqual({
      text: 'What about international cards?',
      vectorText: 'Which payment methods do you accept?\nAre there any fees?\nWhat about international cards?',
      history: [
        { text: 'Are there any fees?', weight: 0.5 },
        { text: 'Which payment methods do you accept?', weight: 0.25 },
      ],
      method: 'topic',
    });
  });

  it('searches for the message as it is when there is nothing to carry, or the weights are 0', () => {
    expect(topicSearchQuery('Is it free?', [], weights)).toEqual({ text: 'Is it free?', method: 'message' });
    expect(topicSearchQuery('Do you ship to Norway?', conversation, { weight: 0, followUpWeight: 0.5 })).toEqual({ text: 'Do you ship to Norway?', method: 'message' });
  });

  it('carries at most three earlier messages', () => {
    const vague = ['Is it free?', 'And then?', 'What about that one?', 'Even so?'].map((content) => ({ role: 'user', content }));
    const query = topicSearchQuery('Why?', vague, weights);
    expect(query.vectorText!.split('\n')).toEqual(['And then?', 'What about that one?', 'Even so?', 'Why?']);
    expect(query.history!.map((h) => h.text)).toEqual(['Even so?', 'What about that one?', 'And then?']);
    expect(query.history!.map((h) => h.weight)).toEqual([0.5, 0.25, 0.125]);
  });
});

describe('rewriteRequest: what the rewrite model is shown', () => {
  it('shows the last six messages, answers cut at 400 characters, then the message to rewrite', () => {
    const earlier = [
      ...Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `old question ${i}` })),
      { role: 'user', content: 'What is your refund policy?' },
      { role: 'assistant', content: 'x'.repeat(1000) },
    ];
    const request = rewriteRequest('How long does the process take?', earlier);
    expect(request).not.toContain('old question 1');
    expect(request).toContain('Customer: What is your refund policy?');
    expect(request).toContain(`Agent: ${'x'.repeat(400)}…`);
    expect(request).not.toContain('x'.repeat(401));
    expect(request).toMatch(/Latest customer message: How long does the process take\?\n/);
  });
});

describe('retrievalConfidence', () => {
  const passage = (similarity: number, fullTextRank: number | null | undefined): RetrievedDocument => ({
    id: 'id',
    source: 's',
    title: 't',
    chunkIndex: 0,
    content: 'c',
    metadata: {},
    similarity,
    ...(fullTextRank !== undefined && { fullTextRank }),
  });

  it('is the best similarity of a passage that shares a word with the query', () => {
    expect(retrievalConfidence([passage(0.3, 2), passage(0.5, 1)])).toBe(0.5);
  });

  it('counts a passage found by its vector alone at a fraction of its similarity', () => {
    expect(retrievalConfidence([passage(0.42, null), passage(0.15, 1)])).toBeCloseTo(0.42 * VECTOR_ONLY_CONFIDENCE_FACTOR, 10);
  });

  it('is 0 without passages, and never outside 0–1', () => {
    expect(retrievalConfidence([])).toBe(0);
    expect(retrievalConfidence([passage(-0.3, 1)])).toBe(0);
    expect(retrievalConfidence([passage(1.0000001, 1)])).toBe(1);
  });

  it('counts passages from a vector-only search (no full-text side) whole', () => {
    expect(retrievalConfidence([passage(0.4, undefined)])).toBe(0.4);
  });
});
