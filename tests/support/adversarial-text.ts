import fc from 'fast-check';
import { seededRandom } from './seeded-random';

/**
 * Classes of text that make per-character code slow when it is quadratic in a
 * run: long runs of each kind of whitespace (the BPE tokenizer's worst case), of
 * letters with no break, of combining marks and joiners, of punctuation. Each
 * builds a text of exactly `length` UTF-16 units (a surrogate pair is never cut),
 * from a seed, so the property tests and bench:adversarial share one definition.
 */
export const ADVERSARIAL_CLASSES = {
  /** What a customer usually writes: sentences, for comparison. */
  ordinary: (length: number) => fill(length, 'Hello, my order ZX-14440 arrived damaged and I would like a replacement or a refund please. '),
  ideographic_space: (length: number) => framed(length, '\u3000'),
  em_space: (length: number) => framed(length, '\u2003'),
  no_break_space: (length: number) => framed(length, '\u00a0'),
  ascii_space: (length: number) => framed(length, ' '),
  newline: (length: number) => framed(length, '\n'),
  mixed_whitespace: (length: number) => framed(length, ' \t\u3000\u2003\u00a0\n\u2002\u2009\u205f\u1680\r\u2028'),
  /** Every Unicode space separator (Zs), in turn. */
  space_separators: (length: number) => framed(length, SPACE_SEPARATORS),
  combining_marks: (length: number) => framed(length, '\u0301\u0308\u0327\u0361'),
  emoji_zwj: (length: number) => fill(length, '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'),
  bidi_controls: (length: number) => fill(length, 'a\u202Eb\u2066c\u200Bd\u200F'),
  cjk: (length: number) => fill(length, '注文した商品がまだ届いていません配送状況を確認していただけますか'),
  long_word: (length: number) => fill(length, 'supercalifragilisticexpialidocious'),
  repeated_punctuation: (length: number) => fill(length, '!?.,;:-/'),
  punctuation_and_breaks: (length: number) => framed(length, '/\n'),
  /** Card-number-shaped groups (Luhn-invalid), one long run for redaction to search. */
  digit_groups: (length: number) => fill(length, '4242 4242 4242 4241 '),
} as const;

export type AdversarialClass = keyof typeof ADVERSARIAL_CLASSES;
export const ADVERSARIAL_CLASS_NAMES = Object.keys(ADVERSARIAL_CLASSES) as AdversarialClass[];

/** U+0020, U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F, U+3000. */
export const SPACE_SEPARATORS = ' \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000';

/** `unit` repeated to exactly `length` UTF-16 units. */
function fill(length: number, unit: string): string {
  const units = Array.from(unit);
  let text = '';
  for (let i = 0; text.length < length; i++) {
    const next = units[i % units.length]!;
    if (text.length + next.length > length) break;
    text += next;
  }
  return text.padEnd(length, 'x');
}

/** A run of `unit` between two letters, as in "a" + 3,990 × U+3000 + "b". */
function framed(length: number, unit: string): string {
  return `a${fill(length - 2, unit)}b`;
}

/**
 * fast-check arbitrary: a text of one class at `length`, sometimes with random
 * characters of the same kinds mixed in (so the run is not one repeated piece).
 */
export function adversarialText(length: number): fc.Arbitrary<{ kind: AdversarialClass; text: string }> {
  const noise = fc.array(fc.constantFrom(...Array.from(SPACE_SEPARATORS + '\n\t\u0301\u200B\u202E中!x')), { maxLength: 64 });
  return fc.record({ kind: fc.constantFrom(...ADVERSARIAL_CLASS_NAMES), noise, at: fc.nat() }).map(({ kind, noise, at }) => {
    const base = ADVERSARIAL_CLASSES[kind](length);
    if (noise.length === 0) return { kind, text: base };
    // Replace a stretch at a random place by the noise, keeping the length (and surrogate pairs) intact.
    const chars = Array.from(base);
    const start = at % Math.max(1, chars.length - noise.length);
    chars.splice(start, noise.length, ...noise);
    return { kind, text: chars.join('').slice(0, length) };
  });
}

/** A random text at `length` whose characters are drawn from the whitespace classes: no run repeats. */
export function randomWhitespace(length: number, random: () => number = Math.random): string {
  const units = SPACE_SEPARATORS + '\n\t';
  let text = 'a';
  while (text.length < length - 1) text += units[Math.floor(random() * units.length)];
  return `${text}b`;
}

// Help-center words of scripts written without spaces between words.
const THAI_WORDS = ['คำสั่งซื้อ', 'ของฉัน', 'ยังไม่', 'มาถึง', 'กรุณา', 'ตรวจสอบ', 'สถานะ', 'การจัดส่ง', 'สินค้า', 'เสียหาย', 'ต้องการ', 'คืนเงิน', 'เปลี่ยน', 'ขนาด', 'บัญชี', 'ที่อยู่', 'ภายใน', 'วัน', 'ทำการ', 'ค่าส่ง'];
const CHINESE_WORDS = ['我的', '订单', '还没有', '到达', '请', '检查', '配送', '状态', '商品', '损坏', '我想', '退款', '更换', '尺码', '账户', '地址', '工作日', '内', '运费', '发票'];

/**
 * A help-center article in a script without spaces (Thai or Chinese) of about `bytes` UTF-8
 * bytes: sentences of random words with no space inside, a space (Thai) or a full stop
 * (Chinese) after each, a paragraph every eight sentences. Seeded, so every run ingests the same text.
 */
export function spacelessArticle(script: 'thai' | 'chinese', bytes: number, seed = 1): string {
  const random = seededRandom(seed);
  const words = script === 'thai' ? THAI_WORDS : CHINESE_WORDS;
  const end = script === 'thai' ? ' ' : '。';
  const parts: string[] = [];
  let size = 0;
  for (let sentence = 1; size < bytes; sentence++) {
    let text = '';
    for (let k = 0; k < 12; k++) text += words[Math.floor(random() * words.length)];
    text += sentence % 8 === 0 ? `${end}\n\n` : end;
    size += Buffer.byteLength(text);
    parts.push(text);
  }
  return parts.join('');
}

/** One word of `length` random lower-case letters: no space, no break, no repeated piece. */
export function unbrokenWord(length: number, seed = 1): string {
  const random = seededRandom(seed);
  let word = '';
  for (let i = 0; i < length; i++) word += String.fromCharCode(97 + Math.floor(random() * 26));
  return word;
}
