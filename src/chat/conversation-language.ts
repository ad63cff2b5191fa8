import { segmentsOf, WORD_SLICE } from '../knowledge/language/segments';
import { letterWeight, type LanguageDetector } from '../knowledge/language/detect';

/** Where a turn's language came from, strongest first (see resolveTurnLanguage). */
export type LanguageSource = 'request' | 'detected' | 'conversation' | 'widget' | 'shop' | 'fallback';

/** The language a turn is answered in, and whether the conversation keeps it. */
export interface TurnLanguage {
  /** ISO 639-1 code. */
  language: string;
  source: LanguageSource;
  /** True when it is told with confidence and differs from what the conversation keeps: store it (setSessionLanguage). */
  keep: boolean;
}

export interface TurnLanguageInput {
  /** The customer's message (after redaction). */
  message: string;
  /** The request's `language`: an override, kept on the conversation. */
  requested?: string | null;
  /** What the conversation already keeps (SessionRecord.language). */
  kept?: string | null;
  /** The widget's language: the page's `lang`, then the browser's (the request's Accept-Language). */
  widget?: string | null;
  /** The shop file's `languages`, the first the default. */
  shopLanguages?: readonly string[];
  detector: LanguageDetector;
}

/** The language the service falls back to when nothing else tells. */
export const FALLBACK_LANGUAGE = 'en';
/**
 * What a message needs to change a language the conversation already keeps: a
 * reliable guess over at least this many words and this much text (letterWeight).
 * "ok", "danke", "Und der Versand?" or "Where is it?" never flip a conversation.
 */
const WORDS_TO_SWITCH = 4;
const LETTERS_TO_SWITCH = 20;

/**
 * The turn's language, in order: the request's `language` (an override); the
 * message's own language when detection is confident (and, against a language the
 * conversation keeps, the message long enough to be sure); the conversation's kept
 * language; the widget's; the shop's default; English. Detection prefers the
 * conversation's and the shop's languages on a near tie.
 */
export function resolveTurnLanguage(input: TurnLanguageInput): TurnLanguage {
  const kept = input.kept ?? null;
  const decided = (language: string, source: LanguageSource, confident: boolean): TurnLanguage => ({
    language,
    source,
    keep: confident && language !== kept,
  });
  if (input.requested) return decided(input.requested, 'request', true);

  const preferred = [...new Set([...(kept ? [kept] : []), ...(input.shopLanguages ?? [])])];
  const guess = input.detector.detect(input.message, { preferred });
  if (guess.language && guess.reliable && (kept === null || guess.language === kept || longEnoughToSwitch(input.message))) {
    return decided(guess.language, 'detected', true);
  }
  if (kept) return decided(kept, 'conversation', false);
  if (input.widget) return decided(input.widget, 'widget', false);
  const shopDefault = input.shopLanguages?.[0];
  if (shopDefault) return decided(shopDefault, 'shop', false);
  return decided(FALLBACK_LANGUAGE, 'fallback', false);
}

function longEnoughToSwitch(message: string): boolean {
  return wordCount(message) >= WORDS_TO_SWITCH && letterWeight(message) >= LETTERS_TO_SWITCH;
}

const WORDS = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Words as ICU tells them, Chinese, Japanese and Thai included (they have no spaces). */
export function wordCount(text: string): number {
  let count = 0;
  for (const segment of segmentsOf(WORDS, text, WORD_SLICE)) if (segment.isWordLike) count += 1;
  return count;
}

/**
 * The first usable language of an Accept-Language header ("de-DE,de;q=0.9,en;q=0.8"
 * gives "de"), in the order of its weights; null when none is a two-letter code.
 */
export function languageFromAcceptLanguage(header: string | undefined): string | null {
  if (!header || header.length > 500) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim().toLowerCase(), weight: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.weight > 0 && /^[a-z]{2}(-[a-z0-9]{1,8})*$/.test(entry.tag))
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return ranked[0]?.tag.slice(0, 2) ?? null;
}
