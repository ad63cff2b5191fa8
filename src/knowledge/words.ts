/**
 * The words of a text as the offline search code compares them: the hashing
 * embedder's features, the follow-up detector's topic words and the extractive
 * responder's question words. Its own module so that code reading words need not
 * load an embedder (nor the settings an embedder is made from).
 */

// Words too common to say anything about a question's topic.
const STOPWORDS = new Set(
  ('a an and are as at be by can could do does for from had has have how i if in is it its me my of on or our ' +
    'so that the their them there this to was we what when where which who why will with would you your').split(' '),
);

/** Lower-cased words without stopwords, with a light plural/verb-ending stem. */
export function tokenizeWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => !STOPWORDS.has(w))
    .map(stem);
}

function stem(word: string): string {
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
