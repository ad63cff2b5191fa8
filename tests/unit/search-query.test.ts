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
  const conversation = [
    { role: 'user', content: 'Which payment methods do you accept?' },
    { role: 'assistant', content: 'Cards, PayPal, Klarna, Apple Pay and Google Pay.' },
    { role: 'user', content: 'Are there any fees?' },
    { role: 'assistant', content: 'No payment fees.' },
  ];

  it('searches for a message that stands alone as it is, whatever came before', () => {
    expect(topicSearchQuery('Do you ship to Norway?', conversation)).toEqual({ text: 'Do you ship to Norway?', method: 'message' });
  });

  it("carries the customer's earlier messages back to the one that set the topic, oldest first, never the agent's", () => {
    expect(topicSearchQuery('What about international cards?', conversation)).toEqual({
      text: 'Which payment methods do you accept?\nAre there any fees?\nWhat about international cards?',
      method: 'topic',
    });
  });

  it('searches for the message as it is when there is nothing to carry', () => {
    expect(topicSearchQuery('Is it free?', [])).toEqual({ text: 'Is it free?', method: 'message' });
  });

  it('carries at most three earlier messages when none of them stood alone', () => {
    const vague = ['Is it free?', 'And then?', 'What about that one?', 'Even so?'].map((content) => ({ role: 'user', content }));
    expect(topicSearchQuery('Why?', vague).text.split('\n')).toEqual(['And then?', 'What about that one?', 'Even so?', 'Why?']);
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
