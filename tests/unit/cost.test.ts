import { estimateCost, priceOf, turnBill } from '../../src/chat/cost';

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

describe("a turn's bill: every model call", () => {
  const answer = { prompt_tokens: 3000, completion_tokens: 200, total_tokens: 3200, cached_tokens: 2048 };
  const summary = { prompt_tokens: 1500, completion_tokens: 100, total_tokens: 1600, cached_tokens: 1024 };
  const rewrite = { prompt_tokens: 300, completion_tokens: 10, total_tokens: 310, cached_tokens: 0 };

  it('adds the summary and rewrite calls to the total, each purpose also on its own, each priced at its own model', () => {
    const bill = turnBill(PRICES, { model: 'gpt-4o-mini', usage: answer, calls: 2 }, [
      { purpose: 'rewrite', model: 'gpt-4o', usage: rewrite },
      { purpose: 'summary', model: 'gpt-4o-mini-2024-07-18', usage: summary },
    ]);
    expect(bill.usage).toMatchObject({ prompt_tokens: 4800, completion_tokens: 310, total_tokens: 5110, cached_tokens: 3072 });
    expect(bill.usage.by_purpose.answer).toMatchObject({ ...answer, calls: 2, cost: estimateCost(PRICES, 'gpt-4o-mini', answer) });
    expect(bill.usage.by_purpose.summary).toMatchObject({ ...summary, calls: 1, cost: estimateCost(PRICES, 'gpt-4o-mini', summary) });
    expect(bill.usage.by_purpose.rewrite).toMatchObject({ ...rewrite, calls: 1, cost: estimateCost(PRICES, 'gpt-4o', rewrite) });
    const sum = estimateCost(PRICES, 'gpt-4o-mini', answer)! + estimateCost(PRICES, 'gpt-4o-mini', summary)! + estimateCost(PRICES, 'gpt-4o', rewrite)!;
    expect(bill.cost).toBeCloseTo(sum, 7);
  });

  it('sums two calls of one purpose, and shows no total cost when one call has no price', () => {
    const bill = turnBill(PRICES, { model: 'gpt-4o-mini', usage: answer, calls: 1 }, [
      { purpose: 'summary', model: 'gpt-4o-mini', usage: summary },
      { purpose: 'summary', model: 'my-local-model', usage: summary },
    ]);
    expect(bill.usage.by_purpose.summary).toMatchObject({ prompt_tokens: 3000, calls: 2 });
    expect(bill.usage.by_purpose.summary).not.toHaveProperty('cost');
    expect(bill.usage.by_purpose.answer.cost).toBe(estimateCost(PRICES, 'gpt-4o-mini', answer));
    expect(bill.cost).toBeNull();
  });

  it('is the answer alone when no other call was made', () => {
    const bill = turnBill(PRICES, { model: 'gpt-4o-mini', usage: answer, calls: 1 }, []);
    expect(bill.usage).toEqual({ ...answer, by_purpose: { answer: { ...answer, calls: 1, cost: estimateCost(PRICES, 'gpt-4o-mini', answer) } } });
    expect(bill.cost).toBe(estimateCost(PRICES, 'gpt-4o-mini', answer));
  });
});
