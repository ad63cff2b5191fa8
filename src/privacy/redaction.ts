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
 */

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

/**
 * A run of digits, each pair separated by at most one space or dash, not glued to
 * a letter or digit on either side ("ZX-14440" or "A123…" are identifiers, not cards).
 * A run that starts with + is an international phone number and is kept.
 */
const DIGIT_RUN = /(?<![\p{L}\p{N}_])\+?\d(?:[ -]?\d)*(?![\p{L}\p{N}_])/gu;

/** Two letters, two check digits, then letters and digits, in groups separated by single spaces. */
const IBAN_RUN = /(?<![\p{L}\p{N}_])[A-Za-z]{2}\d{2}[A-Za-z0-9]*(?: [A-Za-z0-9]+)*/gu;

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
 * Within one run split into groups where the customer put spaces (or dashes), the
 * longest span of whole groups that is a valid number, leftmost first: so a card
 * number followed by its expiry or security code ("4242 4242 4242 4242 12 25")
 * is still found, and what follows it is kept.
 */
function maskGroups(
  run: string,
  separator: RegExp,
  valid: (joined: string) => boolean,
  length: { min: number; max: number },
  mask: (joined: string) => string,
): { text: string; count: number } {
  const parts = run.split(separator);
  const seps = run.match(new RegExp(separator.source, 'g')) ?? [];
  const out: string[] = [];
  let count = 0;
  let i = 0;
  while (i < parts.length) {
    // Spans grow from group i while they can still be a number (at most length.max
    // characters), so a long run costs linear time, never quadratic.
    let matched = -1;
    let joined = '';
    let candidate = '';
    for (let j = i; j < parts.length; j++) {
      candidate += parts[j];
      if (candidate.length > length.max) break;
      if (candidate.length >= length.min && valid(candidate)) {
        matched = j;
        joined = candidate;
      }
    }
    if (matched === -1) {
      out.push(parts[i]!, seps[i] ?? '');
      i += 1;
    } else {
      out.push(mask(joined), seps[matched] ?? '');
      count += 1;
      i = matched + 1;
    }
  }
  return { text: out.join(''), count };
}

/**
 * A payment card number: 13–19 digits, not starting with 0 (ISO/IEC 7812's industry
 * digit 0 is not a card network; zero-padded identifiers are not cards), Luhn-valid.
 */
function cardNumber(digits: string): boolean {
  return digits[0] !== '0' && luhnValid(digits);
}

const DETECTORS: Record<RedactionDetector, (text: string) => { text: string; count: number }> = {
  card: (text) => {
    let count = 0;
    const masked = text.replace(DIGIT_RUN, (run) => {
      if (run.startsWith('+')) return run;
      const result = maskGroups(run, /[ -]/, cardNumber, CARD_DIGITS, (digits) => `[card ending ${digits.slice(-4)}]`);
      count += result.count;
      return result.text;
    });
    return { text: masked, count };
  },
  iban: (text) => {
    let count = 0;
    const masked = text.replace(IBAN_RUN, (run) => {
      // The country code starts the first group, and written in groups every group but the last has four
      // characters: so only spans from the first group, of groups of four, can be an IBAN.
      const parts = run.split(' ');
      let matched = -1;
      let candidate = '';
      for (let j = 0; j < parts.length; j++) {
        candidate += parts[j];
        if (candidate.length > IBAN_MAX_CHARS) break;
        if (ibanValid(candidate)) matched = j;
        if (parts[j]!.length !== 4) break;
      }
      if (matched >= 0) {
        count += 1;
        const iban = parts.slice(0, matched + 1).join('');
        const rest = parts.slice(matched + 1).join(' ');
        return `[IBAN ending ${iban.slice(-4).toUpperCase()}]${rest ? ` ${rest}` : ''}`;
      }
      return run;
    });
    return { text: masked, count };
  },
};

/**
 * A text's redactor for the configured detectors (REDACT). With none, texts pass
 * unchanged. Masks contain no digit run or IBAN a later detector could match.
 */
export class Redactor {
  constructor(readonly detectors: readonly RedactionDetector[]) {}

  get enabled(): boolean {
    return this.detectors.length > 0;
  }

  redact(text: string): Redacted {
    const found: RedactionCounts = {};
    let current = text;
    // IBANs first: a German IBAN's digits could otherwise be taken for a card number.
    for (const detector of [...this.detectors].sort((a, b) => (a === 'iban' ? -1 : b === 'iban' ? 1 : 0))) {
      const { text: masked, count } = DETECTORS[detector](current);
      current = masked;
      if (count > 0) found[detector] = count;
    }
    return { text: current, found };
  }
}

/** Redacts nothing (REDACT empty). */
export const NO_REDACTION = new Redactor([]);
