/**
 * Card numbers as people really paste them (issue 30, point 1): generated valid
 * (Luhn) numbers of 13–19 digits, split by every class of separator copying and
 * typing produce (issue 42 added underscores, commas, middle dots, apostrophes, plus
 * signs and bars), in full-width or keycap digits, with zero-width characters inside
 * and combining marks after any digit, glued to letters before and followed by a
 * 3–4-digit security code, are masked, marks and all; Luhn-invalid
 * numbers written the same ways, and the ordinary-digits corpus
 * (tests/fixtures/redaction/ordinary-digits.json), are kept byte for byte.
 *
 * Runs: FC_NUM_RUNS overrides the number of runs per property, FC_SEED the seed.
 */
import fc from 'fast-check';
import { luhnValid, Redactor } from '../../src/privacy/redaction';
import ordinaryDigits from '../fixtures/redaction/ordinary-digits.json';

const NUM_RUNS = Number(process.env['FC_NUM_RUNS'] ?? 1000);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);
const redactor = new Redactor(['card', 'iban']);

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

const digitsOfLength = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((a) => a.join(''));
/** A card number's first 12–18 digits (ISO/IEC 7812: no card network has the industry digit 0). */
const cardBody = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 11, max: 17 }).chain(digitsOfLength)).map(([first, rest]) => `${first}${rest}`);
const validCard = cardBody.map((body) => body + luhnDigit(body));
const invalidCard = fc.tuple(cardBody, fc.integer({ min: 1, max: 9 })).map(([body, shift]) => body + String((Number(luhnDigit(body)) + shift) % 10));

/**
 * The separators between a number's groups, by class: a number is written with one
 * class (each cut may use another member of it: "4242 4242\u00a04242").
 */
const SEPARATOR_CLASSES: Record<string, string[]> = {
  space: [' '],
  no_break_space: ['\u00a0'],
  thin_space: ['\u2009'],
  narrow_no_break_space: ['\u202f'],
  ideographic_space: ['\u3000'],
  tab: ['\t'],
  line_break: ['\n', '\r\n'],
  several_spaces: ['  ', '   ', ' \u00a0'],
  dashes: ['-', '\u2013', '\u2014', '\u2212', '\u2010', '\uff0d', ' - ', ' \u2013 '],
  dots: ['.', '\uff0e', '. '],
  slashes: ['/', ' / ', '\uff0f'],
  // Issue 42: marks that redaction used to read as the end of a number.
  underscores: ['_', '\uff3f'],
  commas: [',', ', ', '\uff0c'],
  middle_dots: ['\u00b7', '\u30fb', ' \u00b7 '],
  apostrophes: ["'", '\u2019'],
  plus_signs: ['+', ' + '],
  bars: ['|', ' | ', '\uff5c'],
};
const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u200e'];
const toFullWidth = (text: string) => text.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
/** Combining marks typed after a digit: an accent, the grapheme joiner, variation selectors (issue 42). */
const MARKS = ['\u0301', '\u034f', '\ufe0f', '\ufe0e', '\u0308'];
/** Each digit as its keycap emoji (4 + U+FE0F + U+20E3). */
const toKeycaps = (text: string) => text.replace(/[0-9]/g, (d) => `${d}\ufe0f\u20e3`);

/** Cut points between digits (none: the digits typed together), each with a separator of the class. */
function written(digits: string) {
  return fc
    .record({
      separatorClass: fc.constantFrom(...Object.keys(SEPARATOR_CLASSES)),
      cuts: fc.array(fc.tuple(fc.integer({ min: 1, max: digits.length - 1 }), fc.nat()), { maxLength: 6 }),
      fullWidth: fc.boolean(),
      keycaps: fc.boolean(),
      zeroWidth: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...ZERO_WIDTH)), { maxLength: 3 }),
      // After which digits (by index) a combining mark is typed, the last digit included.
      marks: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...MARKS)), { maxLength: 4 }),
    })
    .map(({ separatorClass, cuts, fullWidth, keycaps, zeroWidth, marks }) => {
      const separators = SEPARATOR_CLASSES[separatorClass]!;
      const at = new Map(cuts.map(([cut, pick]) => [cut, separators[pick % separators.length]!]));
      const markAfter = new Map(marks.map(([digit, mark]) => [digit % digits.length, mark]));
      const groups: string[] = [];
      let typed = '';
      for (let i = 0; i < digits.length; i++) {
        if (at.has(i)) {
          typed += at.get(i);
          groups.push('');
        }
        if (groups.length === 0) groups.push('');
        groups[groups.length - 1] += digits[i];
        const digit = fullWidth ? toFullWidth(digits[i]!) : keycaps ? toKeycaps(digits[i]!) : digits[i]!;
        typed += digit + (markAfter.get(i) ?? '');
      }
      // Zero-width characters strictly inside the number (one at either end is outside it, and kept).
      const chars = Array.from(typed);
      for (const [position, char] of zeroWidth) chars.splice(1 + (position % (chars.length - 1)), 0, char);
      return { digits, groups, typed: chars.join(''), separatorClass, fullWidth, keycaps };
    });
}

/** Words around the number: no digits, so what is masked can only come from the number. */
const words = fc.array(fc.constantFrom('my', 'card', 'is', 'please', 'refund', 'to', 'thanks!', 'Karte:', '(visa)', 'número', 'カード'), { maxLength: 4 }).map((w) => w.join(' '));
/** Letters typed right before the number, with no space. */
const glued = fc.constantFrom('', 'Visa', 'card', 'MC', 'Amex', 'Karte', 'カード');

/** A security code after the number: none, after a space, or glued on (only where the detector knows a code can be: 16+3, 15+4, 15+3). */
function securityCode(cardLength: number) {
  const gluable = cardLength === 16 || cardLength === 15;
  return fc.record({ code: fc.integer({ min: 3, max: 4 }).chain(digitsOfLength), how: fc.constantFrom('none', 'after a space', 'glued') }).map(({ code, how }) => {
    if (how === 'glued' && gluable && !(cardLength === 16 && code.length === 4)) return { code, how };
    return how === 'none' ? { code: '', how } : { code, how: 'after a space' as const };
  });
}

const cardShaped = (digits: string) => digits.length >= 13 && digits.length <= 19 && digits[0] !== '0' && luhnValid(digits);

/** Whether some span of whole groups is a card number the detector would find (the rule of docs/redaction.md), the whole number included or not. */
function someSpanIsACard(groups: string[]): boolean {
  for (let i = 0; i < groups.length; i++) {
    for (let j = i; j < groups.length; j++) {
      const joined = groups.slice(i, j + 1).join('');
      if (cardShaped(joined)) return true;
      for (const [card, code] of [[16, 3], [15, 4], [15, 3]] as const) {
        if (joined.length === card + code && groups[j]!.length > code && cardShaped(joined.slice(0, card))) return true;
      }
    }
  }
  return false;
}

const MASK = /\[card ending (\d{4})\]/;

describe('card numbers as people paste them', () => {
  it('masks every valid number in every separator class, full-width, with zero-width characters inside, glued to letters, followed by its security code', () => {
    fc.assert(
      fc.property(
        validCard.chain((card) => fc.tuple(written(card), securityCode(card.length))),
        words,
        glued,
        words,
        ([number, security], before, letters, after) => {
          // A code glued on is looked for only when no shorter span of whole groups is a card (with the
          // groupings cards are printed in, 4-4-4-4 or 4-6-5, none is; random cuts can make one).
          fc.pre(security.how !== 'glued' || !number.groups.slice(0, -1).some((_, j) => cardShaped(number.groups.slice(0, j + 1).join(''))));
          const code = number.fullWidth ? toFullWidth(security.code) : number.keycaps ? toKeycaps(security.code) : security.code;
          const rest = security.how === 'after a space' ? ` ${code}` : '';
          const typed = `${number.typed}${security.how === 'glued' ? code : ''}`;
          const prefix = `${before} ${letters}`;
          const text = `${prefix}${typed}${rest} ${after}`;

          const { text: masked, found } = redactor.redact(text);

          expect(found).toEqual({ card: 1 });
          const mask = MASK.exec(masked)!;
          expect(mask).not.toBeNull();
          // Everything before the number is kept as typed; after it, the words (and the code typed
          // after a space, unless the number and code together are themselves a valid number).
          expect(masked.slice(0, mask.index)).toBe(prefix);
          const following = masked.slice(mask.index + mask[0].length);
          expect([`${rest} ${after}`, ` ${after}`]).toContain(following);
          const swallowed = following === ` ${after}` && rest !== '';
          // The mask ends with the card's last four digits; with a code glued on or swallowed, with those of
          // whichever reading of card and code is valid (a 19-digit number, or 16 + 3, or 15 + 4).
          const run = number.digits + security.code;
          const endings =
            security.how === 'glued' || swallowed
              ? [run, run.slice(0, 16), run.slice(0, 15)].filter((digits) => cardShaped(digits)).map((digits) => digits.slice(-4))
              : [number.digits.slice(-4)];
          expect(endings).toContain(mask[1]);
        },
      ),
      { numRuns: NUM_RUNS, seed: SEED },
    );
  });

  it('keeps a Luhn-invalid number written in any of those ways byte for byte', () => {
    fc.assert(
      fc.property(invalidCard.chain(written), words, glued, words, (number, before, letters, after) => {
        // A part of the number, split where the customer split it, may itself be a valid card number (and is then masked).
        fc.pre(!someSpanIsACard(number.groups));
        const text = `${before} ${letters}${number.typed} ${after}`;
        expect(redactor.redact(text)).toEqual({ text, found: {} });
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    );
  });

  it('masks what it masked again to the same text (redacting twice changes nothing more)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(validCard.chain(written).map((n) => n.typed), invalidCard.chain(written).map((n) => n.typed), words), { maxLength: 6 }), (parts) => {
        const once = redactor.redact(parts.join(' ')).text;
        expect(redactor.redact(once)).toEqual({ text: once, found: {} });
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    );
  });

  it('keeps the ordinary-digits corpus (dates, order ids, phone numbers, amounts, postcodes, times, versions) byte for byte, alone and in a sentence', () => {
    expect(ordinaryDigits.texts.length).toBeGreaterThan(50);
    const changed = ordinaryDigits.texts.flatMap((text) =>
      [text, `Hi, ${text} thanks`].filter((t) => redactor.redact(t).text !== t || Object.keys(redactor.redact(t).found).length > 0),
    );
    expect(changed).toEqual([]);
  });

  it('masks the issue’s examples where they were typed and keeps everything around them', () => {
    const examples: Array<[string, string]> = [
      ['card 4242\u00a04242\u00a04242\u00a04242 thanks', 'card [card ending 4242] thanks'],
      ['card 4242\u20094242\u20094242\u20094242', 'card [card ending 4242]'],
      ['card 4242\t4242\t4242\t4242', 'card [card ending 4242]'],
      ['card 4242\n4242\n4242\n4242\nthanks', 'card [card ending 4242]\nthanks'],
      ['card 4242  4242  4242  4242', 'card [card ending 4242]'],
      ['card 4242 - 4242 - 4242 - 4242', 'card [card ending 4242]'],
      ['card 4242\u20134242\u20134242\u20134242', 'card [card ending 4242]'],
      ['card 4242.4242.4242.4242.', 'card [card ending 4242].'],
      ['card 4242/4242/4242/4242', 'card [card ending 4242]'],
      ['card 4242\u200b424242424242', 'card [card ending 4242]'],
      ['カード４２４２４２４２４２４２４２４２です', 'カード[card ending 4242]です'],
      ['Visa4242424242424242', 'Visa[card ending 4242]'],
      ['4242424242424242 123', '[card ending 4242] 123'],
      ['4242424242424242123', '[card ending 4242]'],
      ['Amex 3782822463100051234 exp 12/27', 'Amex [card ending 0005] exp 12/27'],
      ['order ZX-14440, card\u00a04000\u00a00566\u00a05566\u00a05556, call +1 555 123 4567', 'order ZX-14440, card\u00a0[card ending 5556], call +1 555 123 4567'],
    ];
    for (const [text, expected] of examples) expect({ text, masked: redactor.redact(text).text }).toEqual({ text, masked: expected });
  });
});
