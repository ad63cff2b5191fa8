/**
 * Decimal digits of every script (Unicode's \p{Nd}: Arabic-Indic ٤٢, Eastern
 * Arabic-Indic ۴۲, Devanagari ४२, full-width ４２, …) read as the ASCII digits
 * they stand for. A customer types a card or an order number on the keyboard
 * they have; the checks that read numbers (Luhn, order numbers) read values.
 */

/** One decimal digit of any script. */
const DECIMAL_DIGIT = /\p{Nd}/u;
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/u;
const NON_ASCII_DIGITS = /(?![0-9])\p{Nd}/gu;
/** The first non-ASCII decimal digit (U+0660, ARABIC-INDIC DIGIT ZERO): below it only 0–9 are digits. */
const FIRST_NON_ASCII_DIGIT = 0x660;

const valueCache = new Map<number, number>();

/**
 * The value (0–9) of a decimal digit of any script, or undefined for any other
 * code point. Unicode encodes each script's digits as one run of ten, zero first
 * (a stability policy), so the value is the distance from the run's start, modulo
 * ten where runs follow one another (the mathematical digits).
 */
export function decimalDigitValue(code: number): number | undefined {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code < FIRST_NON_ASCII_DIGIT) return undefined;
  const cached = valueCache.get(code);
  if (cached !== undefined) return cached;
  if (!DECIMAL_DIGIT.test(String.fromCodePoint(code))) return undefined;
  let zero = code;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
  // Only digits are remembered (760 code points at most), so the cache stays small whatever is typed.
  const value = (code - zero) % 10;
  valueCache.set(code, value);
  return value;
}

/** Whether `text` holds a decimal digit of a script other than ASCII. */
export function hasNonAsciiDigit(text: string): boolean {
  return /[^\x00-\x7f]/.test(text) && NON_ASCII_DIGIT.test(text);
}

/** `text` with every decimal digit written as its ASCII digit; every other character as it was. */
export function foldDecimalDigits(text: string): string {
  if (!hasNonAsciiDigit(text)) return text;
  return text.replace(NON_ASCII_DIGITS, (digit) => String(decimalDigitValue(digit.codePointAt(0)!) ?? digit));
}
