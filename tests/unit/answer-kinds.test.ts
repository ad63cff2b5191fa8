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
    expect(askedKinds('Can I pay with PayPal?').size).toBe(0);
  });

  it('finds prices, durations, distances and ways to reach the shop with their units, in any script', () => {
    expect(statesKind('Wrapping is 4 EUR per parcel.', 'price')).toBe(true);
    expect(statesKind('Teile 4,90 Euro (ab 80 Euro versandkostenfrei).', 'price')).toBe(true);
    expect(statesKind('Choose gift wrapping at checkout.', 'price')).toBe(false);
    expect(statesKind('Delivery takes 3–5 working days.', 'duration')).toBe(true);
    expect(statesKind('Die Spedition braucht dann 3–5 Werktage.', 'duration')).toBe(true);
    expect(statesKind('退款会在五个工作日内退回。', 'duration')).toBe(true);
    expect(statesKind('Returning parts costs 5.90 EUR.', 'duration')).toBe(false);
    expect(statesKind('Most of our e-bikes ride 60 to 120 km.', 'distance')).toBe(true);
    expect(statesKind('Most of our e-bikes have 7 gears.', 'distance')).toBe(false);
    expect(statesKind('Call us on +49 341 555 0185 during opening hours.', 'contact')).toBe(true);
  });
});
