/**
 * Redaction before storage: what a customer types is searched for payment card
 * numbers (and, when enabled, IBANs) before it is stored, sent to the model,
 * logged or traced, and each one found is replaced by a mask that keeps its last
 * four characters (`[card ending 4242]`, `[IBAN ending 3000]`), so the customer
 * and the agents can still tell which card or account was meant.
 *
 * A number is masked only when its checksum holds (Luhn for cards, ISO 7064
 * mod 97 for IBANs): order numbers, phone numbers and digit runs that fail the
 * check are left as typed.
 *
 * Numbers are searched for in a normalised view of the text (normaliseForDetection:
 * NFKC, format characters and combining marks dropped, whitespace runs as one space),
 * so the forms copying and pasting produce are found: groups split by no-break or thin
 * spaces, tabs, line breaks, dashes, dots, slashes, underscores, commas, middle dots,
 * apostrophes, plus signs or bars, full-width digits, keycap digits (4️⃣), a zero-width
 * space or a combining mark inside, letters glued before or after; and digits of every
 * script (Arabic-Indic, Devanagari, …) are read as their values. The mask replaces
 * the span the customer typed; every other character stays as it was.
 */
import { foldDecimalDigits, hasNonAsciiDigit } from '../knowledge/language/digits';

/**
 * The detection's version: raised whenever detection finds more than before, so
 * the stored texts are searched again (src/privacy/redaction-backfill.ts).
 * 1: ASCII digits, single spaces or dashes. 2: the normalised view above.
 * 3: decimal digits of every script (\p{Nd}) folded to their values.
 * 4: combining marks and variation selectors dropped (keycap digits read as digits);
 * `_ , · ' + |` between groups.
 */
export const REDACTION_VERSION = 4;

/** The detectors REDACT can list. */
export const REDACTION_DETECTORS = ['card', 'iban'] as const;
export type RedactionDetector = (typeof REDACTION_DETECTORS)[number];

/** What redaction found in one text: how many of each kind were masked (kinds with none left out). */
export type RedactionCounts = Partial<Record<RedactionDetector, number>>;

export interface Redacted {
  text: string;
  /** Empty when nothing was masked. */
  found: RedactionCounts;
}

const CARD_DIGITS = { min: 13, max: 19 };
/** The longest IBAN (ISO 13616). */
const IBAN_MAX_CHARS = 34;

/** An IBAN's length in each country that issues them (SWIFT's IBAN registry): a string of another length is not one. */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20 EG29 ES24 FI18 ' +
    'FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 ' +
    'LU20 LV21 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 ' +
    'SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20'
  )
    .split(' ')
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

/** Luhn's check: from the right, every second digit doubled (minus 9 above 9); the sum ends in 0. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * ISO 13616's check: the country's length, and, with the first four characters
 * moved to the end and letters as 10…35, the number mod 97 is 1.
 */
export function ibanValid(iban: string): boolean {
  const text = iban.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(text) || IBAN_LENGTHS[text.slice(0, 2)] !== text.length) return false;
  let remainder = 0;
  for (const ch of text.slice(4) + text.slice(0, 4)) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    // Letters are two digits long; folding digit by digit keeps the number small.
    remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

/**
 * The text as the detectors read it, and where each of its characters came from.
 * Each character is folded on its own by Unicode NFKC (full-width digits and
 * letters become ASCII, no-break and thin spaces become spaces), every decimal
 * digit of another script becomes its ASCII digit (NFKC keeps ٤ as ٤), format
 * characters (\p{Cf}: zero-width spaces and joiners, soft hyphens, bidi marks)
 * are dropped, combining marks (\p{M}: accents such as U+0301, the grapheme joiner
 * U+034F, variation selectors, the keycap U+20E3 that makes 4 + U+FE0F + U+20E3 the
 * emoji 4️⃣) are dropped too but belong to the character before them, and every run
 * of whitespace (line breaks and tabs included) becomes one space. `from[i]`…`to[i]`
 * is the span of the original text that normalised character i came from (its
 * marks included), so a number found here is masked where the customer typed it,
 * whole, and everything around it stays byte for byte.
 */
export interface NormalisedText {
  text: string;
  /** null when the text is its own normalised view (printable ASCII, no run of spaces). */
  from: Int32Array | null;
  to: Int32Array | null;
}

/** Anything but printable ASCII, or two spaces in a row: without either, a text is its own normalised view. */
const NEEDS_FOLDING = /[^\x20-\x7e]| {2}/;

/**
 * What a character becomes in the normalised view: its NFKC form with whitespace as
 * spaces, '' for a format character, or MARK for a combining mark (dropped, and part
 * of the character before it). ASCII is listed; other characters are folded once and
 * remembered (a bounded cache: texts repeat their characters, and NFKC and the
 * Unicode property checks cost far more than a lookup).
 */
const ASCII_FOLDED = Array.from({ length: 128 }, (_, code) => (/^\s$/.test(String.fromCharCode(code)) ? ' ' : String.fromCharCode(code)));
const MARK = null;
const folded = new Map<number, string | typeof MARK>();
const FOLDED_CACHE_MAX = 8192;

function foldChar(code: number, char: string): string | typeof MARK {
  if (code < 0x80) return ASCII_FOLDED[code]!;
  let result = folded.get(code);
  if (result === undefined) {
    result = /^\p{M}$/u.test(char) ? MARK : /^\p{Cf}$/u.test(char) ? '' : foldDecimalDigits(char.normalize('NFKC').replace(/\s/gu, ' '));
    if (folded.size >= FOLDED_CACHE_MAX) folded.clear();
    folded.set(code, result);
  }
  return result;
}

/**
 * ASCII digits, and every character NFKC folds into a text holding one: superscripts
 * and fractions, circled and parenthesised numbers, squared units (㎟), full-width,
 * mathematical and segmented digits. Every detector looks for digits, so a text
 * without any of these is left alone without being folded. tests/unit/redaction.test.ts
 * checks this list against normalize() over every code point.
 */
const DIGIT_SOURCE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x30, 0x39], [0xb2, 0xb3], [0xb9, 0xb9], [0xbc, 0xbe], [0x2070, 0x2070], [0x2074, 0x2079], [0x2080, 0x2089],
  [0x2150, 0x215f], [0x2189, 0x2189], [0x2460, 0x249b], [0x24ea, 0x24ea], [0x3251, 0x325f], [0x32b1, 0x32cb],
  [0x3358, 0x3370], [0x3378, 0x3379], [0x339f, 0x33a6], [0x33a8, 0x33a8], [0x33af, 0x33af], [0x33e0, 0x33fe],
  [0xff10, 0xff19], [0x1ccf0, 0x1ccf9], [0x1d7ce, 0x1d7ff], [0x1f100, 0x1f10a], [0x1fbf0, 0x1fbf9],
];
/**
 * DIGIT_SOURCE_RANGES as a lookup table of the code points up to U+1FFFF (the last
 * range ends there): a regular expression of these ranges scans ten times slower.
 */
const DIGIT_SOURCE_TABLE = new Uint8Array(0x20000);
for (const [low, high] of DIGIT_SOURCE_RANGES) DIGIT_SOURCE_TABLE.fill(1, low, high + 1);

/** Whether a code point is in DIGIT_SOURCE_RANGES. */
export function isDigitSource(code: number): boolean {
  return DIGIT_SOURCE_TABLE[code] === 1;
}

/** Whether `text` has a digit, once folded. */
function mayHoldDigits(text: string): boolean {
  if (/[0-9]/.test(text)) return true;
  if (!/[^\x00-\x7f]/.test(text)) return false;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (DIGIT_SOURCE_TABLE[unit] === 1) return true;
    if (unit >= 0xd800 && unit <= 0xdbff && DIGIT_SOURCE_TABLE[text.codePointAt(i)!] === 1) return true;
  }
  // Digits of other scripts (Arabic-Indic, Devanagari, …), which NFKC leaves as they are.
  return hasNonAsciiDigit(text);
}

/** Folds `text` for detection (see NormalisedText); linear in its length. */
export function normaliseForDetection(text: string): NormalisedText {
  if (!NEEDS_FOLDING.test(text)) return { text, from: null, to: null };
  const units: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  let inSpace = false;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    const result = foldChar(code, width === 1 ? text[i]! : text.slice(i, i + 2));
    if (result === MARK) {
      // A mark is part of the character it follows: a number ending in one (a keycap digit) is masked with it.
      if (to.length > 0) to[to.length - 1] = i + width;
      i += width;
      continue;
    }
    for (let k = 0; k < result.length; k++) {
      const unit = result[k]!;
      if (unit === ' ' && inSpace) {
        // A run of whitespace is one space, which stands for the whole run.
        to[to.length - 1] = i + width;
        continue;
      }
      inSpace = unit === ' ';
      units.push(unit);
      from.push(i);
      to.push(i + width);
    }
    i += width;
  }
  return { text: units.join(''), from: Int32Array.from(from), to: Int32Array.from(to) };
}

/** A span of the normalised text to replace by `mask`. */
interface Finding {
  start: number;
  end: number;
  mask: string;
}

/** Replaces each finding's original span (findings in order, not overlapping); the rest of `original` is kept as it was. */
function applyFindings(original: string, view: NormalisedText, findings: Finding[]): string {
  if (findings.length === 0) return original;
  const out: string[] = [];
  let at = 0;
  for (const f of findings) {
    const start = view.from ? view.from[f.start]! : f.start;
    const end = view.to ? view.to[f.end - 1]! : f.end;
    out.push(original.slice(at, start), f.mask);
    at = end;
  }
  out.push(original.slice(at));
  return out.join('');
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * What may stand between two groups of a card number's digits, by kind: spaces and
 * dashes (mixed, as people type them: "4242 4242-4242 4242"), or one of the
 * punctuation marks of GROUP_PUNCTUATION (dots, slashes, underscores, commas, middle
 * dots, apostrophes, plus signs, bars). A card number is written with one kind
 * throughout, so a span never mixes them ("25.11.2026 1234", "12/25 4242" or
 * "€1,234.56" are not one number).
 */
type SeparatorKind = 'space_or_dash' | 'dot' | 'slash' | 'underscore' | 'comma' | 'middle_dot' | 'apostrophe' | 'plus' | 'bar';

/** Punctuation that separates groups, as the normalised view has it (NFKC already made ＿ _, ｜ |, ･ ・ and the Greek ano teleia ·). */
const GROUP_PUNCTUATION: Readonly<Record<string, SeparatorKind>> = {
  '.': 'dot',
  '/': 'slash',
  _: 'underscore',
  ',': 'comma',
  '\u00b7': 'middle_dot',
  '\u2027': 'middle_dot',
  '\u2219': 'middle_dot',
  '\u22c5': 'middle_dot',
  '\u30fb': 'middle_dot',
  "'": 'apostrophe',
  '\u2018': 'apostrophe',
  '\u2019': 'apostrophe',
  '\u02bc': 'apostrophe',
  '+': 'plus',
  '|': 'bar',
  '\u00a6': 'bar',
};

function punctuationKind(c: string | undefined): SeparatorKind | null {
  if (c === undefined) return null;
  if (c === '-' || c === '\u2212' || (c > '~' && /^\p{Pd}$/u.test(c))) return 'space_or_dash';
  return GROUP_PUNCTUATION[c] ?? null;
}

/**
 * The separator that starts at `at` (after a group of digits), when a digit follows it:
 * one space (any run of whitespace, once normalised), or a dash or a punctuation mark
 * of GROUP_PUNCTUATION with at most a space on either side ("4242 - 4242",
 * "4242.4242", "4242 | 4242").
 */
function separatorAt(text: string, at: number): { kind: SeparatorKind; next: number } | null {
  let i = at;
  if (text[i] === ' ') i++;
  const kind = punctuationKind(text[i]);
  if (kind) {
    i++;
    if (text[i] === ' ') i++;
    return isDigit(text[i]) ? { kind, next: i } : null;
  }
  return i > at && isDigit(text[i]) ? { kind: 'space_or_dash', next: i } : null;
}

/** A group of digits in the normalised text, and the separator before it (null for a run's first). */
interface DigitGroup {
  start: number;
  end: number;
  digits: string;
  before: SeparatorKind | null;
}

/**
 * A payment card number: 13–19 digits, not starting with 0 (ISO/IEC 7812's industry
 * digit 0 is not a card network; zero-padded identifiers are not cards), Luhn-valid.
 */
function cardNumber(digits: string): boolean {
  return digits.length >= CARD_DIGITS.min && digits.length <= CARD_DIGITS.max && digits[0] !== '0' && luhnValid(digits);
}

/**
 * Security codes typed straight after the number, with nothing between: a 3-digit
 * code after 16 digits (Visa, Mastercard, …), 3 or 4 after 15 (American Express's
 * 4-digit CID). Only these: every other split of a long digit run would be a guess
 * that masks ordinary numbers; and the run stays within 19 digits.
 */
const GLUED_CODES: ReadonlyArray<{ card: number; code: number }> = [
  { card: 16, code: 3 },
  { card: 15, code: 4 },
  { card: 15, code: 3 },
];

/**
 * The card number in a span of whole groups, if it holds one: the span itself, or
 * (`codeMayBeGlued`) the span less a security code glued to its last group
 * (GLUED_CODES); null otherwise.
 */
function cardInSpan(joined: string, lastGroup: string, codeMayBeGlued: boolean): string | null {
  if (cardNumber(joined)) return joined;
  if (!codeMayBeGlued) return null;
  for (const { card, code } of GLUED_CODES) {
    if (joined.length === card + code && lastGroup.length > code && cardNumber(joined.slice(0, card))) return joined.slice(0, card);
  }
  return null;
}

/**
 * The card numbers in one run of digit groups: from each group, the longest span of
 * whole groups, all joined by one kind of separator, that holds a card number,
 * leftmost first; so a number followed by its expiry or security code
 * ("4242 4242 4242 4242 12/25 123") is found and what follows it is kept, and one
 * with its code glued on ("4242424242424242123") is masked with the code. Spans grow
 * only while they are at most 19 digits long, so a long run costs linear time.
 * `phone`: the run follows a "+", so its first group is a country code and no card
 * starts there ("+49 1512 3456 7890 12" is kept).
 */
function cardsInRun(groups: DigitGroup[], phone: boolean, found: Finding[]): void {
  let i = phone ? 1 : 0;
  while (i < groups.length) {
    let matched = -1;
    let card = '';
    let joined = '';
    for (let j = i; j < groups.length; j++) {
      if (j > i + 1 && groups[j]!.before !== groups[i + 1]!.before) break;
      joined += groups[j]!.digits;
      if (joined.length > CARD_DIGITS.max) break;
      // A code glued on is looked for only when no shorter span is a card: in "378282246310005 1234"
      // the card ends where the customer put a space, and "1234" is not split.
      const inSpan = cardInSpan(joined, groups[j]!.digits, matched === -1);
      if (inSpan) {
        matched = j;
        card = inSpan;
      }
    }
    if (matched === -1) {
      i += 1;
    } else {
      found.push({ start: groups[i]!.start, end: groups[matched]!.end, mask: `[card ending ${card.slice(-4)}]` });
      i = matched + 1;
    }
  }
}

/** Two letters, two check digits, then letters and digits, in groups separated by single spaces. */
const IBAN_RUN = /(?<![\p{L}\p{N}_])[A-Za-z]{2}\d{2}[A-Za-z0-9]*(?: [A-Za-z0-9]+)*/gu;

const DETECTORS: Record<RedactionDetector, (text: string) => Finding[]> = {
  card: (text) => {
    const found: Finding[] = [];
    let i = 0;
    while (i < text.length) {
      if (!isDigit(text[i])) {
        i++;
        continue;
      }
      // A run: groups of digits, each after a separator. Letters glued before or after do not matter ("Visa4242…").
      const phone = text[i - 1] === '+' || (text[i - 1] === ' ' && text[i - 2] === '+');
      const groups: DigitGroup[] = [];
      let before: SeparatorKind | null = null;
      for (;;) {
        const start = i;
        while (isDigit(text[i])) i++;
        groups.push({ start, end: i, digits: text.slice(start, i), before });
        const separator = separatorAt(text, i);
        if (!separator) break;
        before = separator.kind;
        i = separator.next;
      }
      cardsInRun(groups, phone, found);
    }
    return found;
  },
  iban: (text) => {
    const found: Finding[] = [];
    for (const run of text.matchAll(IBAN_RUN)) {
      // The country code starts the first group, and written in groups every group but the last has four
      // characters: so only spans from the first group, of groups of four, can be an IBAN.
      const parts = run[0].split(' ');
      let matched = -1;
      let candidate = '';
      for (let j = 0; j < parts.length; j++) {
        candidate += parts[j];
        if (candidate.length > IBAN_MAX_CHARS) break;
        if (ibanValid(candidate)) matched = j;
        if (parts[j]!.length !== 4) break;
      }
      if (matched >= 0) {
        const iban = parts.slice(0, matched + 1).join('');
        // The IBAN's length in the normalised text: its characters and one space between groups.
        found.push({ start: run.index, end: run.index + iban.length + matched, mask: `[IBAN ending ${iban.slice(-4).toUpperCase()}]` });
      }
    }
    return found;
  },
};

/** What is masked, hidden from the next detector: each finding's span as '#', so the offsets stay those of the view. */
function hideFindings(text: string, findings: Finding[]): string {
  const out: string[] = [];
  let at = 0;
  for (const f of findings) {
    out.push(text.slice(at, f.start), '#'.repeat(f.end - f.start));
    at = f.end;
  }
  out.push(text.slice(at));
  return out.join('');
}

/**
 * A text's redactor for the configured detectors (REDACT). With none, texts pass
 * unchanged. All detectors read one normalised view of the text; each masks what it
 * finds in the text as typed.
 */
export class Redactor {
  constructor(readonly detectors: readonly RedactionDetector[]) {}

  get enabled(): boolean {
    return this.detectors.length > 0;
  }

  redact(text: string): Redacted {
    // Every detector looks for digits: a text without any (once folded) has nothing to mask.
    if (!this.enabled || !mayHoldDigits(text)) return { text, found: {} };
    const view = normaliseForDetection(text);
    const found: RedactionCounts = {};
    const findings: Finding[] = [];
    let searched = view.text;
    // IBANs first: a German IBAN's digits could otherwise be taken for a card number.
    for (const detector of [...this.detectors].sort((a, b) => (a === 'iban' ? -1 : b === 'iban' ? 1 : 0))) {
      const more = DETECTORS[detector](searched);
      if (more.length === 0) continue;
      found[detector] = more.length;
      findings.push(...more);
      searched = hideFindings(searched, more);
    }
    findings.sort((a, b) => a.start - b.start);
    return { text: applyFindings(text, view, findings), found };
  }
}

/** Redacts nothing (REDACT empty). */
export const NO_REDACTION = new Redactor([]);
