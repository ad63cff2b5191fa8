/**
 * Which language a text is written in, by the `eld` n-gram detector (60 languages,
 * ISO 639-1 codes; the medium database: about 1 s to load and 100 MB once, then tens
 * of microseconds a text). Loaded once per process, on first use or at start.
 *
 * A guess is `reliable` only when eld says so and the text is long enough to tell:
 * "ok", "danke" or an order number alone says nothing about a conversation's language.
 */

/** A detector's answer. `language` is an ISO 639-1 code, or null when nothing could be told. */
export interface LanguageGuess {
  language: string | null;
  reliable: boolean;
}

export interface DetectOptions {
  /**
   * The languages the shop names (its shop file's `languages`). A named language whose
   * score is close to the best one's wins over an unnamed one: Norwegian is a common
   * wrong guess for a short German sentence.
   */
  preferred?: readonly string[];
}

export interface LanguageDetector {
  detect(text: string, options?: DetectOptions): LanguageGuess;
}

/** Below this many letters (a CJK character counts as two) no guess is reliable. */
export const MIN_RELIABLE_LETTERS = 10;
/** How far below the best score a preferred language may be and still win. */
const PREFERRED_MARGIN = 0.1;

interface EldInstance {
  load(size: string): Promise<boolean>;
  detect(text: string): { language: string; getScores(): Record<string, number>; isReliable(): boolean };
}

let loading: Promise<LanguageDetector> | undefined;

/** The process's detector, loaded on the first call (later calls share it). */
export function loadLanguageDetector(): Promise<LanguageDetector> {
  loading ??= (async () => {
    const { eld } = (await import('eld')) as unknown as { eld: { newInstance(): EldInstance } };
    const instance = eld.newInstance();
    if (!(await instance.load('medium'))) throw new Error('the language detector could not load its database (eld, medium)');
    return new EldDetector(instance);
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

class EldDetector implements LanguageDetector {
  constructor(private readonly eld: EldInstance) {}

  detect(text: string, options: DetectOptions = {}): LanguageGuess {
    const result = this.eld.detect(text);
    let language = result.language || null;
    if (language === null) return { language: null, reliable: false };
    const preferred = options.preferred ?? [];
    if (preferred.length > 0 && !preferred.includes(language)) {
      const scores = result.getScores();
      const best = scores[language] ?? 0;
      const challenger = preferred
        .filter((code) => (scores[code] ?? 0) >= best - PREFERRED_MARGIN)
        .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0))[0];
      if (challenger) language = challenger;
    }
    return { language, reliable: result.isReliable() && letterWeight(text) >= MIN_RELIABLE_LETTERS };
  }
}

/** Letters in a text, a Han, kana, Hangul or Thai character counting as two (one carries about a word's worth). */
export function letterWeight(text: string): number {
  let weight = 0;
  for (const ch of text) {
    if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u.test(ch)) weight += 2;
    else if (/\p{L}/u.test(ch)) weight += 1;
  }
  return weight;
}
