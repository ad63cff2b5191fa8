import { decimalDigitValue, foldDecimalDigits } from '../../src/knowledge/language/digits';

describe('decimal digits of every script', () => {
  it('reads Arabic-Indic, Eastern Arabic-Indic, Devanagari, Bengali, Thai and full-width digits as their values', () => {
    expect(foldDecimalDigits('٠١٢٣٤٥٦٧٨٩ ۰۱۲۳۴۵۶۷۸۹ ०१२३४५६७८९ ০১২৩৪৫৬৭৮৯ ๐๑๒๓๔๕๖๗๘๙ ０１２３４５６７８９')).toBe(
      '0123456789 0123456789 0123456789 0123456789 0123456789 0123456789',
    );
    expect(foldDecimalDigits('𝟘𝟙𝟚 and 𝟵')).toBe('012 and 9');
  });

  it('gives the value of every \\p{Nd} code point (runs of ten, zero first) and none to anything else', () => {
    const problems: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      const isDigit = /\p{Nd}/u.test(char);
      const value = decimalDigitValue(code);
      if (isDigit !== (value !== undefined)) problems.push(code.toString(16));
      // Each script's digit zero is the one whose value is 0: the next nine follow it.
      if (value === 0 && decimalDigitValue(code + 9) !== 9) problems.push(`run ${code.toString(16)}`);
    }
    expect(problems).toEqual([]);
  });

  it('leaves other characters as they were', () => {
    expect(foldDecimalDigits('Order ZX-14440, ½ price, ² and ① stay')).toBe('Order ZX-14440, ½ price, ² and ① stay');
  });
});
