import fc from 'fast-check';
import { IBAN_LENGTHS, isDigitSource, ibanValid, luhnValid, Redactor } from '../../src/privacy/redaction';

const cards = new Redactor(['card']);
const both = new Redactor(['card', 'iban']);

/** The Luhn check digit that makes `body` + digit valid (computed here independently of the module). */
function luhnDigit(body: string): string {
  for (let d = 0; d <= 9; d++) {
    const digits = body + d;
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      const v = Number(digits[digits.length - 1 - i]) * (i % 2 === 1 ? 2 : 1);
      sum += v > 9 ? v - 9 : v;
    }
    if (sum % 10 === 0) return String(d);
  }
  throw new Error('unreachable');
}

/** A card-number-shaped string of 13–19 digits (valid or not), and where the customer split it. */
const digitsOfLength = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((a) => a.join(''));
/** Card numbers start with 1–9 (ISO/IEC 7812: no card network has the industry digit 0). */
const cardBody = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 11, max: 17 }).chain((n) => digitsOfLength(n))).map(([first, rest]) => `${first}${rest}`);
const validCard = cardBody.map((body) => body + luhnDigit(body));
const invalidCard = fc.tuple(cardBody, fc.integer({ min: 1, max: 9 })).map(([body, shift]) => body + String((Number(luhnDigit(body)) + shift) % 10));

/** A grouping: cut points between digits, each with a space or a dash (none: the digits typed together). */
function grouped(digits: string) {
  return fc
    .array(fc.tuple(fc.integer({ min: 1, max: digits.length - 1 }), fc.constantFrom(' ', '-')), { maxLength: 6 })
    .map((cuts) => {
      const at = new Map(cuts);
      let out = '';
      for (let i = 0; i < digits.length; i++) out += (at.has(i) ? at.get(i) : '') + digits[i];
      return { digits, typed: out, groups: out.split(/[ -]/) };
    });
}

/** Words around the number: no digits, so what is masked can only come from the number. */
const words = fc.array(fc.constantFrom('my', 'card', 'is', 'please', 'refund', 'to', 'thanks!', 'Karte:', '(visa)', 'número'), { maxLength: 4 }).map((w) => w.join(' '));

const cardShaped = (digits: string) => digits.length >= 13 && digits.length <= 19 && digits[0] !== '0' && luhnValid(digits);

/**
 * Whether a span of whole groups other than the whole number is itself a valid card
 * number, or (the whole number included) a valid 16 or 15-digit card with a 3 or
 * 4-digit security code glued to its last group.
 */
function someGroupSpanValid(groups: string[]): boolean {
  for (let i = 0; i < groups.length; i++) {
    for (let j = i; j < groups.length; j++) {
      const joined = groups.slice(i, j + 1).join('');
      if (!(i === 0 && j === groups.length - 1) && cardShaped(joined)) return true;
      for (const [card, code] of [[16, 3], [15, 4], [15, 3]] as const) {
        if (joined.length === card + code && groups[j]!.length > code && cardShaped(joined.slice(0, card))) return true;
      }
    }
  }
  return false;
}

describe('card numbers in what a customer types', () => {
  it('masks every Luhn-valid number of 13 to 19 digits, in every grouping, keeping its last four digits', () => {
    fc.assert(
      fc.property(validCard.chain(grouped), words, words, ({ digits, typed }, before, after) => {
        const text = `${before} ${typed} ${after}`;
        const { text: masked, found } = cards.redact(text);
        expect(masked).toBe(`${before} [card ending ${digits.slice(-4)}] ${after}`);
        expect(found).toEqual({ card: 1 });
        expect(masked.replace(/\D/g, '')).not.toContain(digits);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a Luhn-invalid digit run as typed, in every grouping', () => {
    fc.assert(
      fc.property(invalidCard.chain(grouped), words, words, ({ typed, groups }, before, after) => {
        // A part of the run, split where the customer split it, may itself be a valid card number, or one with a glued security code (and is then masked).
        fc.pre(!someGroupSpanValid(groups));
        const text = `${before} ${typed} ${after}`;
        expect(cards.redact(text)).toEqual({ text, found: {} });
      }),
      { numRuns: 500 },
    );
  });

  it('masks a card number followed by its expiry and security code, and keeps those', () => {
    expect(cards.redact('4242 4242 4242 4242 12 25 123').text).toBe('[card ending 4242] 12 25 123');
    expect(cards.redact('card 4000056655665556, exp 12/27').text).toBe('card [card ending 5556], exp 12/27');
  });

  it('keeps order numbers, phone numbers and short digit runs as typed', () => {
    for (const text of [
      'Where is order ZX-14440?',
      'order 10042 and 10043',
      'Call me on +1 (555) 123-4567 or +44 20 7946 0958',
      'my number is +49 1512 3456 7890 12',
      'tracking 1Z999AA10123456784',
      '12345678',
      '2026-11-25',
      'reference 0000000000000000',
      'message 00000000-0000-4000-8000-000000000000',
    ]) {
      expect(cards.redact(text)).toEqual({ text, found: {} });
    }
  });

  it('keeps a Luhn-invalid 16-digit number as typed', () => {
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(cards.redact('card 4242 4242 4242 4241').text).toBe('card 4242 4242 4242 4241');
  });

  it('masks each of several card numbers in one message', () => {
    expect(cards.redact('old 4111-1111-1111-1111, new 5555 5555 5555 4444').text).toBe('old [card ending 1111], new [card ending 4444]');
    expect(cards.redact('4111111111111111 5555555555554444')).toEqual({ text: '[card ending 1111] [card ending 4444]', found: { card: 2 } });
  });

  it('knows every character NFKC folds into a digit (a text without any is not searched)', () => {
    const missing: string[] = [];
    const extra: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const makesDigit = /[0-9]/.test(String.fromCodePoint(code).normalize('NFKC'));
      if (makesDigit && !isDigitSource(code)) missing.push(code.toString(16));
      if (!makesDigit && isDigitSource(code)) extra.push(code.toString(16));
    }
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it('redacts nothing with no detectors (REDACT empty)', () => {
    expect(new Redactor([]).redact('4242 4242 4242 4242')).toEqual({ text: '4242 4242 4242 4242', found: {} });
  });
});

/** Each digit as its keycap emoji: the digit, VARIATION SELECTOR-16, COMBINING ENCLOSING KEYCAP (4️⃣). */
const keycaps = (digits: string) => digits.replace(/[0-9]/g, (d) => `${d}\ufe0f\u20e3`);

describe('card numbers typed with marks, keycaps or other separators (issue 42, finding 4)', () => {
  it('masks a number with a combining mark after or between its digits, the marks included', () => {
    for (const mark of ['\u0301', '\u034f']) {
      // After every digit, between the groups, and after the last digit: the mask takes the whole span.
      expect(cards.redact(`card ${'4242424242424242'.replace(/[0-9]/g, `$&${mark}`)} thanks`).text).toBe('card [card ending 4242] thanks');
      expect(cards.redact(`card 4242${mark}4242${mark}4242${mark}4242${mark}.`).text).toBe('card [card ending 4242].');
      expect(cards.redact(`card 4242 ${mark}4242 4242 4242`).text).toBe('card [card ending 4242]');
      expect(cards.redact(`card 4242${mark}-4242-4242-4242`).found).toEqual({ card: 1 });
    }
  });

  it('masks a number typed in keycap digits, keycaps and all', () => {
    expect(cards.redact(`card ${keycaps('4242424242424242')} thanks`)).toEqual({ text: 'card [card ending 4242] thanks', found: { card: 1 } });
    expect(cards.redact(`card ${keycaps('4242 4242 4242 4242')}`).text).toBe('card [card ending 4242]');
    // Only the variation selector, or only the keycap mark.
    expect(cards.redact('5555\ufe0f555555554444').text).toBe('[card ending 4444]');
    expect(cards.redact('5\u20e3555555555554444\u20e3!').text).toBe('[card ending 4444]!');
  });

  it('masks groups separated by _ , · \' + or |, with or without spaces around them', () => {
    for (const separator of ['_', ',', ', ', '·', '\u30fb', "'", '\u2019', '+', '|', ' | ', '\uff5c', '\uff3f']) {
      const text = `card ${['4000', '0566', '5566', '5556'].join(separator)} please`;
      expect({ separator, masked: cards.redact(text).text }).toEqual({ separator, masked: 'card [card ending 5556] please' });
    }
    expect(cards.redact('Amex 3782_822463_10005').text).toBe('Amex [card ending 0005]');
  });

  it('keeps a Luhn-invalid number written those ways, and ordinary numbers with those marks, as typed', () => {
    for (const text of [
      'card 4242_4242_4242_4241',
      `card ${keycaps('4242424242424241')}`,
      'card 4242\u03014242\u03014242\u03014241',
      'card 4242 | 4242 | 4242 | 4241',
      '$1,234,567.89',
      "CHF 1'234'567.50",
      'orders 10042, 10043 and 10044',
      'Tel. +49 (0)30 1234567',
      '2+2 = 4',
      'A·B·1·2',
      'page 1 | 2 | 3',
      'room 4️⃣0️⃣4️⃣',
      'café 2026',
    ]) {
      expect(cards.redact(text)).toEqual({ text, found: {} });
    }
  });

  it('does not join groups separated by different kinds of mark into one number', () => {
    expect(cards.redact('4242,4242.4242,4242').found).toEqual({});
    expect(cards.redact('4242_4242 4242_4242').found).toEqual({});
  });
});

/** A valid IBAN for a country and a BBAN: the check digits computed here by the standard's rule. */
function ibanOf(country: string, bban: string): string {
  const numeric = [...`${bban}${country}00`].map((c) => (c >= 'A' ? String(c.charCodeAt(0) - 55) : c)).join('');
  const check = 98 - Number(BigInt(numeric) % 97n);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
}

const bbanOf = (length: number) =>
  fc.array(fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'), { minLength: length, maxLength: length }).map((a) => a.join(''));
/** Every country of the registry, with a BBAN of that country's length. */
const validIban = fc.constantFrom(...Object.entries(IBAN_LENGTHS)).chain(([c, length]) => bbanOf(length - 4).map((b) => ibanOf(c, b)));
/** How IBANs are written: in one piece, or in groups of four (the printed form). */
const ibanWritten = (iban: string) => fc.constantFrom(iban, iban.replace(/(.{4})(?=.)/g, '$1 '), iban.toLowerCase());
/** Words around the IBAN, short ones included (which a written IBAN's last group must not swallow). */
const ibanWords = fc.array(fc.constantFrom('IBAN:', 'please', 'refund', 'to', 'it', 'then', 'bank', 'DE'), { maxLength: 3 }).map((w) => w.join(' '));

describe('IBANs in what a customer types (REDACT=card,iban)', () => {
  it('masks every IBAN whose mod-97 check holds, in one piece or in groups of four', () => {
    fc.assert(
      fc.property(validIban.chain((iban) => ibanWritten(iban).map((typed) => ({ iban, typed }))), ibanWords, ibanWords, ({ iban, typed }, before, after) => {
        const text = `${before} ${typed} ${after}`;
        const { text: masked, found } = both.redact(text);
        expect(masked).toBe(`${before} [IBAN ending ${iban.slice(-4)}] ${after}`);
        expect(found).toEqual({ iban: 1 });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a string shaped like an IBAN whose check fails', () => {
    fc.assert(
      fc.property(validIban, fc.integer({ min: 1, max: 96 }), ibanWords, (value, shift, before) => {
        // Change the check digits: the mod-97 check then fails.
        const check = (Number(value.slice(2, 4)) + shift) % 100;
        const wrong = `${value.slice(0, 2)}${String(check).padStart(2, '0')}${value.slice(4)}`;
        fc.pre(!ibanValid(wrong) && !/^\d{13,19}$/.test(wrong));
        const text = `${before} ${wrong}`;
        expect(both.redact(text)).toEqual({ text, found: {} });
      }),
      { numRuns: 300 },
    );
  });

  it('masks a printed IBAN followed by more words, and leaves IBANs alone when only cards are redacted', () => {
    expect(both.redact('DE89 3704 0044 0532 0130 00 and thanks').text).toBe('[IBAN ending 3000] and thanks');
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(cards.redact('GB82 WEST 1234 5698 7654 32').text).toBe('GB82 WEST 1234 5698 7654 32');
  });
});
