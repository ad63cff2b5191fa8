/** The evaluation's own arithmetic: the plain BM25 baseline and the paired bootstrap interval (scripts/lib). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { plainBm25 } from '../../scripts/lib/plain-bm25';
import { pairedInterval, recallAt, type RankedTurn } from '../../scripts/lib/retrieval-scores';

describe('plainBm25: the baseline every set is compared with', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plain-bm25-'));
  fs.writeFileSync(path.join(dir, 'refunds.md'), '# Refunds\n\nRefunds are paid within 14 days. A refund goes back to the card.');
  fs.writeFileSync(path.join(dir, 'shipping.md'), '# Shipping\n\nThe courier delivers in 3 days. Shipping is free over 50 EUR.');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'The the the and of it is this that.');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ranks by the query words, ignores stop words, and leaves out documents sharing no word', () => {
    const bm25 = plainBm25(dir);
    expect(bm25.rank('When is my refund paid?')).toEqual(['refunds.md']);
    expect(bm25.rank('Is shipping free with the courier?')[0]).toBe('shipping.md');
    expect(bm25.rank('the and of')).toEqual([]);
  });
});

describe('pairedInterval and recallAt', () => {
  const turns = (service: number | null, baseline: number | null, conversations = 10): RankedTurn[] =>
    Array.from({ length: conversations * 3 }, (_, i) => ({ conversation: `c${i % conversations}`, first: i < conversations, service, baseline }));

  it('is exactly 0 when both rank alike, and exactly 1 when only the service hits', () => {
    expect(pairedInterval(turns(1, 1), 3)).toEqual([0, 0]);
    expect(pairedInterval(turns(2, null), 3)).toEqual([1, 1]);
    expect(pairedInterval(turns(5, 1), 3)).toEqual([-1, -1]);
  });

  it('brackets the observed difference when conversations differ', () => {
    const mixed = [...turns(1, null, 5), ...turns(1, 1, 5).map((t) => ({ ...t, conversation: `d${t.conversation}` }))];
    const [low, high] = pairedInterval(mixed, 3);
    const r = recallAt(mixed);
    const observed = r.service[3]! - r.bm25[3]!;
    expect(observed).toBeCloseTo(0.5, 5);
    expect(low).toBeLessThan(observed);
    expect(high).toBeGreaterThan(observed);
    expect(low).toBeGreaterThanOrEqual(0);
    expect(high).toBeLessThanOrEqual(1);
  });
});
