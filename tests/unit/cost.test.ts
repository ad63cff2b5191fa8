import { estimateCost, priceOf } from '../../src/chat/cost';

const PRICES = {
  'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
  'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
};

describe('estimated cost of an answer', () => {
  it('bills uncached prompt tokens at the input price, cached ones at the cached-input price, completion at the output price', () => {
    const usage = { prompt_tokens: 3000, completion_tokens: 200, total_tokens: 3200, cached_tokens: 2048 };
    expect(estimateCost(PRICES, 'gpt-4o-mini', usage)).toBeCloseTo((952 * 0.15 + 2048 * 0.075 + 200 * 0.6) / 1e6, 10);
    expect(estimateCost(PRICES, 'gpt-4o-mini', { ...usage, cached_tokens: 0 })).toBeCloseTo((3000 * 0.15 + 200 * 0.6) / 1e6, 10);
  });

  it("prices a provider's dated model name by the longest configured name it starts with", () => {
    expect(priceOf(PRICES, 'gpt-4o-mini-2024-07-18')).toBe(PRICES['gpt-4o-mini']);
    expect(priceOf(PRICES, 'gpt-4o-2024-08-06')).toBe(PRICES['gpt-4o']);
  });

  it('reports no cost, rather than a wrong one, for a model without a price or with no prices at all', () => {
    const usage = { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, cached_tokens: 0 };
    expect(estimateCost(PRICES, 'offline-extractive', usage)).toBeNull();
    expect(estimateCost({}, 'gpt-4o-mini', usage)).toBeNull();
  });
});
