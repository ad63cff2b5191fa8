import fs from 'node:fs';
import path from 'node:path';
import { chunkDocument } from '../../src/knowledge/chunking';
import { composeExtractiveAnswer } from '../../src/models/extractive-chat-model';
import { MEANING_CANDIDATES, MIN_SCORE, rankSentences, sentencesOf, wordsOf, type RankedPassage } from '../../src/models/sentence-ranking';
import { sentenceMeaningOf } from '../../src/models/sentence-meaning';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL } from '../../src/knowledge/embeddings';
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
    expect(rankSentences('Do you ship to Australia?', passages)).toEqual({ quotes: [], nothingClears: true, bestCoverage: expect.any(Number), candidates: [] });
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

  it('quotes a sentence that announces a list with its items, in one line, and not those items again', async () => {
    const passages = await article('payments.md', 'Payment Methods');
    const { quotes } = rankSentences('Which payment methods do you accept?', passages);
    expect(quotes[0]!.text).toBe(
      'Northwind Home accepts the following payment methods in all countries we ship to: Visa, Mastercard and American Express (credit and debit); PayPal; Klarna pay-in-30 (pay later); Apple Pay and Google Pay; Northwind Home gift cards',
    );
    expect(quotes.slice(1).map((q) => q.text)).not.toContain('PayPal');
    // The answer's first quoted line holds what the customer asked for.
    const answer = composeExtractiveAnswer('My card was declined at checkout', passages, 'Offline.');
    expect(answer.text.split('\n').find((l) => l.startsWith('> '))).toMatch(/^> If your card payment is declined at checkout, check the following: Card details: .*; 3-D Secure: confirm the payment/);
  });

  it('quotes a long list up to a bound, and a table with the sentence that announces it', () => {
    const items = Array.from({ length: 12 }, (_, i) => `- Model ${i + 1} of our touring range, with its own frame geometry and its own gears.`).join('\n');
    const passages = [
      {
        title: 'Werkstatt',
        source: 'werkstatt.md',
        content: `# Werkstatt\n\nWir bieten diese Pakete an:\n\n| Paket | Preis |\n| --- | --- |\n| Basis | 59 Euro |\n| Komplett | 129 Euro |\n\nWir reparieren diese Räder:\n\n${items}`,
      },
    ];
    expect(rankSentences('welche pakete bietet ihr an', passages).quotes[0]!.text).toBe('Wir bieten diese Pakete an: Basis, 59 Euro; Komplett, 129 Euro');
    const long = rankSentences('welche räder repariert ihr', passages).quotes[0]!.text;
    expect(long).toMatch(/^Wir reparieren diese Räder: Model 1 of our touring range, with its own frame geometry and its own gears; Model 2 .*; …$/);
    expect(long.length).toBeLessThanOrEqual(325);
  });

  it("reads a help center's own question as the heading of the answer after it, not as a quote", () => {
    const passages = [
      {
        title: 'Returns',
        source: 'returns.md',
        content: '# Returns\n\nChanged your mind? You can return anything within 30 days of delivery.\n\n## Your money back\n\nWe refund to the original payment method within 7 days. A bank can take another 3–5 working days to show it.',
      },
    ];
    const { quotes } = rankSentences('i changed my mind, what now', passages);
    expect(quotes[0]!.text).toBe('You can return anything within 30 days of delivery.');
    expect(quotes.map((q) => q.text)).not.toContain('Changed your mind?');
  });

  it('answers "can I …?" with what one can do, and "where do I …?" with where to go, in English and German', async () => {
    const passages = [
      {
        title: 'Paying in instalments',
        source: 'payment.md',
        content: '# Paying in instalments\n\nFrom an order of 500 EUR you can pay in 6, 12 or 24 monthly instalments. Over 6 and 12 months the financing is interest-free; over 24 months the interest rate is 5.9%.',
      },
    ];
    expect(rankSentences('can I split the payment over a few months', passages).quotes[0]!.text).toMatch(/^From an order of 500 EUR you can pay/);
    const pickup = [
      {
        title: 'Versand',
        source: 'versand.md',
        content:
          '# Versand\n\nDie Räder verlassen unseren Laden fertig eingestellt. Eine Spedition liefert das Rad innerhalb von 3–5 Werktagen. Die Spedition ruft dich am Vortag an. Du kannst deine Bestellung kostenlos bei uns abholen. Teile kommen als Paket.',
      },
    ];
    expect(rankSentences('kann ich das rad im laden abholen', pickup).quotes[0]!.text).toMatch(/^Du kannst deine Bestellung/);
    const invoices = await article('invoices-and-vat.md', 'Invoices and VAT');
    expect(rankSentences('Where do I get my invoice?', invoices).quotes[0]!.text).toMatch(/under Account > Orders/);
  });

  it('keeps a sentence whole when ICU would cut it after a quoted label that ends with "?"', () => {
    expect(sentencesOf('Select "Forgot password?" on the sign-in page. We send a link.')).toEqual(['Select "Forgot password?" on the sign-in page.', 'We send a link.']);
    // Lower-case pieces join up to a bound, not into one sentence of a whole hostile text.
    const pieces = sentencesOf('why? '.repeat(20_000));
    expect(pieces.length).toBeGreaterThan(10);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(2000);
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

  it('reads "500g" as "500 g", as help centers write it', () => {
    expect(wordsOf('500g of beans, 20kg a month')).toEqual(['500', 'g', 'of', 'beans', '20', 'kg', 'a', 'month']);
    const content = '# Coffee subscription\n\nA subscription delivers coffee every 2, 3 or 4 weeks.\n\n| Size | Price in the subscription |\n| --- | --- |\n| 250 g | 8.50 EUR |\n| 500 g | 15.90 EUR |\n| 1 kg | 29.00 EUR |';
    const passages = [{ title: 'Coffee subscription', source: 'abo.md', content }];
    expect(rankSentences('how much is 500g in the subscription', passages).quotes[0]?.text).toBe('500 g, 15.90 EUR');
  });

  it('lets closeness in meaning reorder the quotes, never what clears the bar or the support the judge reads', () => {
    // A workshop page first, as the retriever hands it over for a question about the workshop.
    const passages = ['workshop.md', 'shipping.md'].map((file) => {
      const content = fs.readFileSync(path.join(__dirname, '../fixtures/judge-kb/en', file), 'utf8');
      return { title: content.split('\n')[0]!.replace('# ', ''), source: file, content };
    });
    const question = 'what guarantee do i get on a repair';
    const byWords = rankSentences(question, passages);
    expect(byWords.quotes[0]?.text).toBe('Book a workshop appointment online or at the counter.');
    expect(byWords.candidates.length).toBeGreaterThan(1);
    expect(byWords.candidates.length).toBeLessThanOrEqual(MEANING_CANDIDATES);
    const warranty = byWords.candidates.find((s) => s.includes('warranty'))!;
    const closeness = new Map(byWords.candidates.map((s) => [s, s === warranty ? 0.8 : 0.2]));
    const withMeaning = rankSentences(question, passages, '', closeness);
    expect(withMeaning.quotes[0]?.text).toBe(warranty);
    expect(withMeaning.nothingClears).toBe(byWords.nothingClears);
    expect(withMeaning.bestCoverage).toBe(byWords.bestCoverage);
    // Nothing to reorder when nothing clears: meaning does not make an answer.
    const offTopic = rankSentences('Can I bring my dog?', passages, '', new Map([[warranty, 1]]));
    expect(offTopic).toMatchObject({ nothingClears: true, quotes: [] });
  });

  it('reads meaning only with the offline sentence encoder, not with word hashing', () => {
    expect(sentenceMeaningOf({ embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL })).toBeUndefined();
  });
});
