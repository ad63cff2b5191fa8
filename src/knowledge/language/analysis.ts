/**
 * How text in a language is analysed for search: the one place that names languages.
 * Ingest, search, the offline embedder's words and the responder ask here; none of them
 * knows a language of its own (docs/knowledge.md, "Languages").
 *
 * - Stemming: a language with a Snowball stemmer in both PGlite and PostgreSQL 15 is indexed
 *   under its text-search configuration (`german`, `spanish`, …). Estonian is left out: only
 *   PGlite has it.
 * - Any other language (Polish, Czech, Vietnamese, …) is indexed under `simple_unaccent`
 *   (migration 20261126000800): its words as written, accents folded, nothing stemmed.
 * - Chinese, Japanese and Thai are written without spaces, Korean with particles glued to
 *   its words: their text is cut before it is indexed (cutWords) and indexed under `simple`.
 *   The cut goes by script, not by the document's language, so a Chinese product name in an
 *   English article is cut as a query about it is.
 */
import { segmentsOf, WORD_SLICE } from './segments';
import type { LanguageDetector } from './detect';

/** How a language's text is indexed and searched. */
export interface TextAnalysis {
  /** The Postgres text-search configuration (a `regconfig` name) its chunks are indexed under. */
  config: string;
  /** How its text is cut into words first: by a dictionary (`words`), into character pairs (`bigrams`), or not. */
  segmentation: 'none' | 'words' | 'bigrams';
}

/** ISO 639-1 code → Snowball configuration present in PostgreSQL 15 and PGlite alike. */
const SNOWBALL: Record<string, string> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/** Languages whose text is cut by a word dictionary (Intl.Segmenter) or into bigrams, under `simple`. */
const SEGMENTED: Record<string, TextAnalysis['segmentation']> = { zh: 'words', ja: 'words', th: 'words', ko: 'bigrams' };

/** The configuration of a language without a stemmer (and of text whose language is unknown). */
export const UNSTEMMED_CONFIG = 'simple_unaccent';

/** How text in `language` (ISO 639-1; null when unknown) is analysed. */
export function textAnalysis(language: string | null | undefined): TextAnalysis {
  const code = normaliseLanguage(language);
  if (code && SEGMENTED[code]) return { config: 'simple', segmentation: SEGMENTED[code] };
  if (code && SNOWBALL[code]) return { config: SNOWBALL[code], segmentation: 'none' };
  return { config: UNSTEMMED_CONFIG, segmentation: 'none' };
}

/** `de-AT`, `DE` → `de`; anything that is not a language code → null. */
export function normaliseLanguage(language: string | null | undefined): string | null {
  const match = /^([a-z]{2,3})(?:[-_][a-z0-9]+)*$/i.exec(language?.trim() ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

// Scripts written without spaces between words, and Hangul (spaces, but particles attached).
const SPACELESS_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\u30FC]+/gu;
const HANGUL_RUN = /\p{Script=Hangul}+/gu;
const HAS_CUT_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Hangul}]/u;

let wordSegmenter: Intl.Segmenter | undefined;

/**
 * The text with its Chinese, Japanese and Thai runs cut into words (Intl.Segmenter, whose
 * dictionaries go by script whatever the locale) and its Hangul runs into overlapping
 * character pairs (`주문을` → `주문 문을`), each piece between spaces. Other text is returned as
 * it is, so an English text is indexed exactly as before. Used for chunks and queries alike.
 */
export function cutWords(text: string): string {
  if (!HAS_CUT_SCRIPT.test(text)) return text;
  wordSegmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
  const segmenter = wordSegmenter;
  return text
    .replace(SPACELESS_RUN, (run) => {
      const words = [...segmentsOf(segmenter, run, WORD_SLICE)].filter((s) => s.isWordLike).map((s) => s.segment);
      return ` ${words.join(' ')} `;
    })
    .replace(HANGUL_RUN, (run) => {
      const chars = [...run];
      if (chars.length <= 2) return run;
      const pairs: string[] = [];
      for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i]! + chars[i + 1]!);
      return pairs.join(' ');
    });
}

/**
 * What a chunk's full-text column is computed from, when it differs from `title content`
 * (its cut form); null when the text needs no cutting, so nothing extra is stored.
 */
export function searchTextOf(title: string, content: string): string | null {
  const text = `${title} ${content}`;
  const cut = cutWords(text);
  return cut === text ? null : cut;
}

/** How the offline code (words.ts) compares a language's words: which to ignore and how to stem the rest. */
export interface WordRules {
  stopwords: ReadonlySet<string>;
  stem(word: string): string;
}

// Words too common to say anything about a question's topic, per language (lower-case).
const STOPWORDS: Record<string, string> = {
  en:
    'a an and are as at be by can could do does for from had has have how i if in is it its me my of on or our ' +
    'so that the their them there this to was we what when where which who why will with would you your',
  de:
    'der die das den dem des ein eine einen einem einer eines und oder aber ist sind war wird werden wie was wo wann warum ' +
    'ich du er sie es wir ihr mein meine meinen mir mich sich zu zum zur im in am an auf aus bei mit nach von vor für über ' +
    'um kann können muss nicht kein keine noch auch schon nur so dass wenn da hat habe haben',
  es:
    'el la los las un una unos unas y o pero es son está están fue ser de del al a en con por para sin sobre que qué cómo ' +
    'cuándo dónde por qué quién yo tú él ella nosotros mi mis me se su sus lo le les no sí ya muy más puedo puede hay',
  fr:
    'le la les un une des et ou mais est sont était être de du au aux à en dans avec par pour sans sur que qui quoi comment ' +
    'quand où pourquoi je tu il elle nous vous ils elles mon ma mes me se son sa ses ne pas plus très puis peut il y a',
  it:
    'il lo la i gli le un uno una e o ma è sono era essere di del della dei delle a al alla in con per su da che chi come ' +
    'quando dove perché io tu lui lei noi voi mio mia miei mi si suo sua non più molto posso può',
  pt:
    'o a os as um uma uns umas e ou mas é são era ser de do da dos das em no na nos nas com por para sem sobre que quem como ' +
    'quando onde porque eu tu ele ela nós vós meu minha meus me se seu sua não mais muito posso pode',
  nl:
    'de het een en of maar is zijn was worden van in op aan met voor bij naar uit over om dat die wat wie hoe waar wanneer ' +
    'waarom ik jij je hij zij wij mijn me zich niet geen ook al nog kan kunnen moet heb heeft hebben',
};
const stopwordSets = new Map<string, ReadonlySet<string>>();
const NO_WORDS: ReadonlySet<string> = new Set();

/**
 * The word rules of `language`: its stop words where listed here, and a light suffix stemmer
 * for English only (another language's words are compared as they are written). Text whose
 * language the caller does not know (undefined) is read as English, as it always was.
 */
export function wordRules(language?: string | null): WordRules {
  const code = language === undefined ? 'en' : (normaliseLanguage(language) ?? 'und');
  let stopwords = stopwordSets.get(code);
  if (!stopwords) {
    stopwords = STOPWORDS[code] ? new Set(STOPWORDS[code]!.split(' ')) : NO_WORDS;
    stopwordSets.set(code, stopwords);
  }
  return { stopwords, stem: code === 'en' ? englishStem : (word) => word };
}

/** Plural and verb endings (shipping → ship, refunds → refund, tried → tri): light, English only. */
function englishStem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return undoubled(word.slice(0, -3));
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('ed')) return undoubled(word.slice(0, -2));
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** shipp(ing) → ship, stopp(ed) → stop. */
function undoubled(stemmed: string): string {
  const n = stemmed.length;
  return n > 2 && stemmed[n - 1] === stemmed[n - 2] && !'aeiousl'.includes(stemmed[n - 1]!) ? stemmed.slice(0, -1) : stemmed;
}

/** How much of a document its language is detected from: enough to be sure, bounded in cost. */
const DETECTION_SAMPLE_CHARS = 2000;

/** The language of a text nothing can be told of when the shop names none (as the shop file documents). */
export const FALLBACK_LANGUAGE = 'en';

/**
 * A document's language: detected from its title and the start of its text. The shop's
 * `languages` (its shop file, the first the default) guide a close call and are the fallback
 * when nothing reliable can be told; without them the detector's best guess is taken, and
 * FALLBACK_LANGUAGE when it has none (a text of digits and signs).
 */
export function documentLanguage(detector: LanguageDetector, text: string, shopLanguages: readonly string[] = []): string {
  const preferred = shopLanguages.map(normaliseLanguage).filter((code): code is string => code !== null);
  const guess = detector.detect(text.slice(0, DETECTION_SAMPLE_CHARS), { preferred });
  const language = normaliseLanguage(guess.language);
  if (language && (guess.reliable || preferred.length === 0 || preferred.includes(language))) return language;
  return preferred[0] ?? language ?? FALLBACK_LANGUAGE;
}
