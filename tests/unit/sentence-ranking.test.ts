import fs from 'node:fs';
import path from 'node:path';
import { chunkDocument } from '../../src/knowledge/chunking';
import { composeExtractiveAnswer } from '../../src/models/extractive-chat-model';
import { MIN_SCORE, rankSentences, sentencesOf, wordsOf, type RankedPassage } from '../../src/models/sentence-ranking';
import { HELP_CENTER_DIR } from '../support/test-service';

/** Every chunk of a help-center article, as the retriever would hand them over. */
async function article(file: string, title: string): Promise<RankedPassage[]> {
  const text = fs.readFileSync(path.join(HELP_CENTER_DIR, file), 'utf8');
  return (await chunkDocument(text, 'markdown')).map((c) => ({ title, source: `knowledge/help-center/${file}`, content: c.content }));
}

describe('the offline responder ranks the sentences of the passages', () => {
  it('quotes the refund timing sentence first for "How long does a refund take?", over the whole refund policy and the returns guide', async () => {
    const passages = [...(await article('refunds.md', 'Refund Policy')), ...(await article('returns.md', 'How to Return an Item'))];
    const ranking = rankSentences('How long does a refund take?', passages);
    expect(ranking.nothingClears).toBe(false);
    expect(ranking.quotes[0]!.text).toMatch(/^We issue the refund within 5–7 business days/);
  });

  it('lists its quotes in score order', async () => {
    const passages = [...(await article('shipping.md', 'Shipping Options, Costs and Delivery Times')), ...(await article('payments.md', 'Payment Methods'))];
    const { quotes } = rankSentences('How much does express shipping cost?', passages);
    expect(quotes.length).toBeGreaterThan(1);
    const scores = quotes.map((q) => q.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('"Do you ship to Australia?" over the shipping page quotes where the shop ships, first', async () => {
    const { quotes, nothingClears } = rankSentences('Do you ship to Australia?', await article('shipping.md', 'Shipping Options, Costs and Delivery Times'));
    expect(nothingClears).toBe(false);
    expect(quotes[0]!.text).toMatch(/do not ship to other countries|ships from our warehouse in Germany to/);
  });

  it('"Do you ship to Australia?" over a page about something else: nothing clears, and the answer quotes nothing', () => {
    const passages = [{ title: 'Gift cards', source: 'gift-cards.md', content: 'Gift cards never expire. You can use a gift card for any order. A gift card cannot be exchanged for cash.' }];
    expect(rankSentences('Do you ship to Australia?', passages)).toEqual({ quotes: [], nothingClears: true, bestCoverage: expect.any(Number) });
    expect(rankSentences('Do you ship to Australia?', passages).bestCoverage).toBeLessThan(MIN_SCORE);
    expect(composeExtractiveAnswer('Do you ship to Australia?', passages, 'Offline.')).toMatchObject({ text: 'Offline.', nothingClears: true, quoteSupport: 0 });
  });

  it('"Do you offer gift wrapping and what does it cost?" over a two-sentence article quotes the sentence with the price first', () => {
    const passages = [
      { title: 'Gift wrapping', source: 'gift-wrapping.md', content: '# Gift wrapping\n\nWe offer gift wrapping for every order: choose it at checkout and add a card with your own message. Wrapping is 4 EUR per parcel.' },
    ];
    const { quotes } = rankSentences('Do you offer gift wrapping and what does it cost?', passages);
    expect(quotes[0]!.text).toBe('Wrapping is 4 EUR per parcel.');
    // Asked without a price cue, the sentence that shares the most words comes first.
    expect(rankSentences('Can I add a card with my own message to gift wrapping?', passages).quotes[0]!.text).toMatch(/^We offer gift wrapping/);
  });

  it('a follow-up that names no kind of answer asks for the one its previous message asked for ("and to Austria?" after a price)', () => {
    const passages = [
      {
        title: 'Shipping',
        source: 'shipping.md',
        content: '# Shipping\n\n- Austria: bikes 69 EUR.\n\nParcels to Austria are handed to the Austrian post, which delivers them to your door.',
      },
    ];
    expect(rankSentences('and to austria?', passages, 'how much is shipping for a bike?').quotes[0]!.text).toBe('Austria: bikes 69 EUR.');
    expect(rankSentences('and to austria?', passages, 'who delivers the parcels?').quotes[0]!.text).toMatch(/^Parcels to Austria/);
  });

  it('quotes the best document before a sentence of another that only shares a word, and a table row as a fact of its own', () => {
    const passages = [
      {
        title: 'Workshop and servicing',
        source: 'workshop.md',
        content: '# Workshop and servicing\n\n## Service packages\n\n| Package | Price |\n| --- | --- |\n| Basic service | 59 EUR |\n| E-bike service | 149 EUR |',
      },
      { title: 'Company bike leasing', source: 'leasing.md', content: 'You can usually buy the bike for about 18% of its original price, or give it back.' },
    ];
    const { quotes } = rankSentences('price for an e-bike service?', passages);
    expect(quotes[0]!.text).toBe('E-bike service, 149 EUR');
    expect(quotes.map((q) => q.source)).not.toContain('leasing.md');
  });

  it('meets a customer who types umlauts the long way ("gueltig") with the help center\'s spelling', () => {
    const passages = [
      {
        title: 'Gutscheine',
        source: 'gutscheine.md',
        content: '# Gutscheine\n\nDie gedruckte Karte für den Gutschein braucht 2–3 Werktage. Gutscheine sind 3 Jahre gültig.',
      },
    ];
    expect(rankSentences('wie lange ist der gutschein gueltig', passages).quotes[0]!.text).toBe('Gutscheine sind 3 Jahre gültig.');
    expect(rankSentences('wie lange ist der gutschein gültig', passages).quotes[0]!.text).toBe('Gutscheine sind 3 Jahre gültig.');
  });

  it('splits sentences and words with Intl.Segmenter, in any language, with the words it is given', () => {
    expect(sentencesOf('退货需要多长时间？退款在五个工作日内退回。谢谢。')).toEqual(['退货需要多长时间？', '退款在五个工作日内退回。', '谢谢。']);
    expect(wordsOf('Rückerstattungen dauern ٥ Tage')).toEqual(['rueckerstattungen', 'dauern', '5', 'tage']);
    const passages = [
      { title: '退款政策', source: 'zh/refunds.md', content: '我们接受三十天内的退货。退款会在五个工作日内退回原支付方式。礼品卡不能退款。' },
    ];
    const answer = composeExtractiveAnswer('退款需要几个工作日？', passages, '离线模式：我只能引用帮助中心。');
    expect(answer.nothingClears).toBe(false);
    expect(answer.text.split('\n\n').slice(0, 2)).toEqual(['离线模式：我只能引用帮助中心。', '> 退款会在五个工作日内退回原支付方式。\n\u2014 退款政策 (zh/refunds.md)']);
    // No word of its own in another language: only the source's path is Latin.
    expect(answer.text.replaceAll('zh/refunds.md', '')).not.toMatch(/[A-Za-z]/);
  });
});
