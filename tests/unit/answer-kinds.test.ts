import { askedKinds, statesKind } from '../../src/models/answer-kinds';

describe('the kind of answer a question asks for, and the sentences that state it', () => {
  it('reads the cue in every language it has data for', () => {
    expect([...askedKinds('Do you offer gift wrapping and what does it cost?')]).toEqual(['price']);
    expect([...askedKinds('was kostet der versand fuer ein fahrrad?')]).toEqual(['price']);
    expect([...askedKinds('¿Cuánto cuesta el envío?')]).toEqual(['price']);
    expect([...askedKinds('How long does a refund take?')]).toEqual(['duration']);
    expect([...askedKinds('wie lange dauert das einstellen')]).toEqual(['duration']);
    expect([...askedKinds('退款需要多长时间？')]).toEqual(['duration']);
    expect([...askedKinds('wie weit komm ich mit einer ladung?')]).toEqual(['distance']);
    expect([...askedKinds('whats your phone number')]).toEqual(['contact']);
    expect(askedKinds('Which payment methods do you take?').size).toBe(0);
  });

  it('reads "can I …?" as asking what one can do, and "how do I …?" as asking where to go, in many languages', () => {
    for (const q of ['Can I pay with PayPal?', 'kann ich das rad zurueckgeben', '¿Puedo pagar con PayPal?', 'Puis-je payer plus tard ?', 'kan ik later betalen', '我可以退货吗？']) {
      expect([...askedKinds(q)]).toEqual(['possibility']);
    }
    for (const q of ['How do I return an item?', 'where do i find my invoice', 'wo finde ich meine rechnung', 'Comment faire un retour ?', '如何退货？']) {
      expect([...askedKinds(q)]).toEqual(['instruction']);
    }
    // "How to" is not read into "Leave a comment": the cues are whole phrases.
    expect(askedKinds('Where is Leipzig? Leave a comment').size).toBe(0);
  });

  it('finds what one can do, and where to go (an address with a path, a menu path, an e-mail address)', () => {
    expect(statesKind('You can return anything within 30 days.', 'possibility')).toBe(true);
    expect(statesKind('Eine Barauszahlung ist nicht möglich.', 'possibility')).toBe(true);
    expect(statesKind('A bank can take another 3–5 working days.', 'possibility')).toBe(false);
    expect(statesKind('Go to northwind.example/returns and enter your order number.', 'instruction')).toBe(true);
    expect(statesKind('Download it under Account > Orders.', 'instruction')).toBe(true);
    expect(statesKind('Items marked "Final sale" cannot be returned.', 'instruction')).toBe(false);
    expect(statesKind('Send photos to service@kettenwerk.example.', 'instruction')).toBe(true);
    expect(statesKind('Returns are free in the EU.', 'instruction')).toBe(false);
  });

  it('finds prices, durations, distances and ways to reach the shop with their units, in any script', () => {
    expect(statesKind('Wrapping is 4 EUR per parcel.', 'price')).toBe(true);
    expect(statesKind('Teile 4,90 Euro (ab 80 Euro versandkostenfrei).', 'price')).toBe(true);
    expect(statesKind('Choose gift wrapping at checkout.', 'price')).toBe(false);
    expect(statesKind('Delivery takes 3–5 working days.', 'duration')).toBe(true);
    expect(statesKind('It keeps the standard 2-year legal guarantee.', 'duration')).toBe(true);
    expect(statesKind('Die Spedition braucht dann 3–5 Werktage.', 'duration')).toBe(true);
    expect(statesKind('退款会在五个工作日内退回。', 'duration')).toBe(true);
    expect(statesKind('Returning parts costs 5.90 EUR.', 'duration')).toBe(false);
    expect(statesKind('Most of our e-bikes ride 60 to 120 km.', 'distance')).toBe(true);
    expect(statesKind('Most of our e-bikes have 7 gears.', 'distance')).toBe(false);
    expect(statesKind('Call us on +49 341 555 0185 during opening hours.', 'contact')).toBe(true);
  });
});
