/**
 * The words of a text as the offline search code compares them: the hashing
 * embedder's features, the follow-up detector's topic words and the extractive
 * responder's question words. Its own module so that code reading words need not
 * load an embedder (nor the settings an embedder is made from).
 *
 * Chinese, Japanese and Thai are cut into words and Korean into character pairs first
 * (cutWords), whatever the language, so those texts have words to compare at all. Stop
 * words and stemming are the language's (wordRules): the English suffix stemmer touches
 * English only.
 */
import { cutWords, wordRules } from './language/analysis';

/**
 * Lower-cased words without the language's stop words, stemmed as the language is
 * (English: a light plural/verb-ending stem). `language` is an ISO 639-1 code; left out,
 * the text is read as English, as it always was.
 */
export function tokenizeWords(text: string, language?: string | null): string[] {
  const rules = wordRules(language);
  // Marks (\p{M}) belong to their word: Thai vowels and Devanagari signs are marks.
  return (cutWords(text).toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? [])
    .filter((w) => !rules.stopwords.has(w))
    .map((w) => rules.stem(w));
}
