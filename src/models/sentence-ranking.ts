/**
 * The offline responder's reading: which sentences of the retrieved passages answer
 * the question. Language-neutral by construction: sentences and words come from
 * Intl.Segmenter (ICU's rules, with its dictionaries for Chinese, Japanese and Thai),
 * a word's weight from how rare it is among the passages' sentences, and no stemmer of
 * any language is used. The per-language data are answer-kinds.ts's cues ("how much",
 * "wie viel"), which only reorder the sentences (whether any clears the bar is still the
 * question's words), and umlauts typed the long way.
 */
import { segmentsOf, WORD_SLICE } from '../knowledge/language/segments';
import { foldDecimalDigits } from '../knowledge/language/digits';
import { boundedSearchText } from '../knowledge/search-query';
import { askedKinds, statesKind, type AnswerKind } from './answer-kinds';

/** A passage as the responder reads it: its title and source, and its text. */
export interface RankedPassage {
  title: string;
  source: string;
  content: string;
}

/** One sentence of a passage, with its score. */
export interface ScoredSentence {
  text: string;
  title: string;
  source: string;
  /** The weight of the question's words it holds, over the weight of all of them (0–1). */
  coverage: number;
  /**
   * What the quotes are ordered by: the coverage (plus ANSWER_KIND_BONUS when it states the kind of answer
   * asked for), lowered for a passage the retriever ranked lower, plus 1 when the sentence names the topic
   * or is of the best document.
   */
  score: number;
}

export interface SentenceRanking {
  /** The sentences worth quoting, best first (at most MAX_QUOTES). */
  quotes: ScoredSentence[];
  /** No sentence clears MIN_SCORE: the passages do not answer the question. */
  nothingClears: boolean;
  /** The highest coverage any sentence of the passages has (0–1; 0 without passages): what the judge reads as the best support. */
  bestCoverage: number;
  /** The best MEANING_CANDIDATES sentences by words, best first: those whose closeness in meaning to the question can reorder the quotes. */
  candidates: string[];
}

/** At most this many sentences are quoted. */
export const MAX_QUOTES = 3;
/**
 * The least share of the question's word weight (coverage) some sentence must hold. A question
 * whose telling words are nowhere in the passages ("Do you ship to Australia?" over a
 * page about returns) holds only its common words, and is not answered.
 */
export const MIN_SCORE = 0.12;
/** A sentence is quoted after the best only when it scores at least this share of the best's score. */
const QUOTE_SHARE_OF_BEST = 0.6;
/** Distinct question words read at most (a pasted essay is not a question; the cost stays linear in the passages). */
const MAX_QUESTION_WORDS = 64;
/** Words of the customer's previous message, not in this one, count this much (a follow-up's topic). */
const EARLIER_MESSAGE_WEIGHT = 0.5;
/**
 * A sentence of a passage of the document the retriever ranked r-th (from 0) is ordered by its score
 * times 1 / (1 + PASSAGE_RANK_DECAY × r). The passages alone cannot tell a common word
 * from a rare one ("does" may be in one sentence of four passages); the retriever ranked
 * them with the whole knowledge base's statistics, so its order breaks near ties.
 */
const PASSAGE_RANK_DECAY = 0.15;
/**
 * Added to the score of a sentence that states the kind of answer the question asks for (answer-kinds.ts:
 * "how much" and a price, "how long" and a duration); half of it when only the customer's previous
 * message asked ("and to Austria?" after "How much is shipping?"). A sentence that shares the
 * question's words but states no price does not answer "what does it cost".
 */
const ANSWER_KIND_BONUS = 0.3;
/**
 * Added to a sentence's score per unit of its closeness in meaning to the question (cosine, where the offline
 * encoder knows the language): "how long is the guarantee" is answered by the sentence on the warranty, which
 * shares none of its words, before one that shares "repair" and states a duration.
 */
const MEANING_WEIGHT = 0.5;
/** How many of the best sentences by words are read for meaning (the encoder's cost is per sentence). */
export const MEANING_CANDIDATES = 8;
/** Question words in a sentence's section heading, and not in the sentence, count this much. */
const HEADING_WEIGHT = 0.5;
/** Two words of a language without a stemmer here match when they share a prefix this long at least… */
const MIN_SHARED_PREFIX = 4;
/** …and it is at least this share of the longer word ("refund" ~ "refunds", not "ship" ~ "shipping"). */
const SHARED_PREFIX_SHARE = 0.75;

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
/** Characters of text segmented into sentences at a time (segmentsOf), and the longest sentence. */
const SENTENCE_SLICE = 2000;
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * Letters customers type the long way when their keyboard lacks them ("zurueck" for "zurück",
 * "groesse" for "größe"): both sides are read the long way, so the customer's spelling meets
 * the help center's. Folding both sides alike leaves every other match as it was.
 */
const TYPED_THE_LONG_WAY: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };

/** A number with its unit written on it ("500g", "20kg", "3pm"): customers write it so, help centers "500 g". */
const NUMBER_WITH_UNIT = /^(\d+)(\p{L}+)$/u;

/** The words of a text: word-like segments, NFKC and lower case, digits of every script as ASCII, umlauts and ß the long way, a number apart from its unit. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const { segment, isWordLike } of segmentsOf(wordSegmenter, foldDecimalDigits(text.normalize('NFKC').toLowerCase()), WORD_SLICE)) {
    if (!isWordLike) continue;
    const word = segment.replace(/[äöüß]/gu, (letter) => TYPED_THE_LONG_WAY[letter]!);
    const withUnit = NUMBER_WITH_UNIT.exec(word);
    if (withUnit) words.push(withUnit[1]!, withUnit[2]!);
    else words.push(word);
  }
  return words;
}

/**
 * The sentences of a text, trimmed. A piece that starts with a lower-case letter goes on the
 * sentence before it: ICU ends a sentence after any "?" or "!", also inside a quoted label
 * ('Select "Forgot password?" on the sign-in page'), and no sentence starts in lower case.
 */
export function sentencesOf(text: string): string[] {
  const sentences: string[] = [];
  for (const { segment } of segmentsOf(sentenceSegmenter, text, SENTENCE_SLICE)) {
    const sentence = segment.trim();
    if (sentence === '') continue;
    const before = sentences.length - 1;
    // Bounded like a slice, so a hostile text of lower-case pieces does not make one endless sentence.
    if (before >= 0 && /^\p{Ll}/u.test(sentence) && sentences[before]!.length + sentence.length < SENTENCE_SLICE) sentences[before] += ` ${sentence}`;
    else sentences.push(sentence);
  }
  return sentences;
}

/** An item's text without what ends it (a full stop, a semicolon), read from the end without a regular expression: linear however long. */
function withoutItemEnd(text: string): string {
  let end = text.length;
  while (end > 0 && ITEM_END_CHARS.has(text[end - 1]!)) end--;
  return text.slice(0, end).trimEnd();
}

/** Whether two words are one: equal, or one a short inflection of the other (a long shared prefix). */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const longer = Math.max(a.length, b.length);
  if (Math.min(a.length, b.length) < MIN_SHARED_PREFIX) return false;
  let shared = 0;
  while (shared < a.length && shared < b.length && a[shared] === b[shared]) shared++;
  return shared >= MIN_SHARED_PREFIX && shared >= SHARED_PREFIX_SHARE * longer;
}

function holds(words: ReadonlySet<string>, word: string): boolean {
  if (words.has(word)) return true;
  if (word.length < MIN_SHARED_PREFIX) return false;
  for (const w of words) if (sameWord(w, word)) return true;
  return false;
}

interface Unit {
  /** The sentence, as it is scored. */
  text: string;
  /** What is quoted: the sentence, or a list's introduction with its items. */
  quote: string;
  words: Set<string>;
  heading: Set<string>;
  passage: RankedPassage;
  /** The place of the passage's document in the retriever's order, from 0. */
  rank: number;
}

/** A list's introduction is quoted with its items' first sentences, joined by "; ", up to this many characters. */
const LISTED_QUOTE_MAX_CHARS = 320;
/** A sentence that asks ("Changed your mind?"): in a help center, the heading of the answer after it. */
const ASKS = /[?？؟]$/u;
/** A sentence that announces what follows it ("You have two options:"). */
const ANNOUNCES = /[:：]$/u;
/** What ends an item (its full stop), dropped when items are joined into one quote. */
const ITEM_END_CHARS = new Set([' ', '.', '。', ';', '；']);
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;

/**
 * A passage's sentences, each with the words of the section heading it is under.
 * Headings are context, not answers; list items and table rows are sentences of their
 * own (they seldom end with a full stop; a table's header row is the heading of its rows);
 * bold markers and list markers go. A help center's own question ("Changed your mind?
 * You can return anything within 30 days") is context too: it heads the sentences after it
 * in its paragraph, and is not quoted. A sentence that announces a list or a table ("We
 * accept the following payment methods:") is quoted with its items, which hold what it
 * announces; it is still scored by its own words, so whether anything clears is unchanged.
 */
function unitsOf(passage: RankedPassage, rank: number): Unit[] {
  const units: Unit[] = [];
  let heading = new Set<string>();
  // The sentence that announced the list or table being read, if any.
  let announcer: Unit | null = null;
  const unit = (text: string, context: Set<string>, words = new Set(wordsOf(text))): Unit => {
    const made = { text, quote: text, words, heading: context, passage, rank };
    units.push(made);
    return made;
  };
  /** Adds a paragraph's (or an item's) sentences; returns the first and the last. */
  const add = (lines: string[]): { first: Unit | null; last: Unit | null } => {
    let context = heading;
    let first: Unit | null = null;
    let last: Unit | null = null;
    for (const sentence of sentencesOf(lines.join(' ').replaceAll('**', '').trim())) {
      const words = new Set(wordsOf(sentence));
      if (ASKS.test(sentence)) context = new Set([...context, ...words]);
      else {
        last = unit(sentence, context, words);
        first ??= last;
      }
    }
    return { first, last };
  };
  const addParagraph = (lines: string[]) => {
    if (lines.length === 0) return;
    const { last } = add(lines);
    announcer = last && ANNOUNCES.test(last.text) ? last : null;
  };
  // An item joins the quote of the sentence that announced it while the quote stays short; "…" says more follow.
  const joinAnnouncer = (item: Unit | null) => {
    if (!announcer || !item || announcer.quote.endsWith('…')) return;
    const first = announcer.quote === announcer.text;
    const text = withoutItemEnd(item.text);
    const fits = first || announcer.quote.length + 2 + text.length <= LISTED_QUOTE_MAX_CHARS;
    announcer.quote = `${announcer.quote}${first ? ' ' : '; '}${fits ? text : '…'}`;
  };
  for (const block of passage.content.split(/\n\s*\n/)) {
    let paragraph: string[] = [];
    let tableHeader: Set<string> | null = null;
    for (const line of block.split('\n')) {
      if (!/^\s*\|/.test(line)) tableHeader = null;
      if (/^\s*#/.test(line)) {
        addParagraph(paragraph);
        paragraph = [];
        announcer = null;
        heading = new Set(wordsOf(line.replace(/^\s*#+/, '')));
      } else if (/^\s*\|/.test(line)) {
        // A table row is a fact of its own; its header row names the columns, as a heading would.
        addParagraph(paragraph);
        paragraph = [];
        const cells = line.split('|').map((c) => c.trim()).filter((c) => c !== '');
        if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
        if (tableHeader === null) tableHeader = new Set([...heading, ...wordsOf(cells.join(' '))]);
        else joinAnnouncer(unit(cells.join(', ').replaceAll('**', ''), tableHeader));
      } else if (LIST_ITEM.test(line)) {
        addParagraph(paragraph);
        paragraph = [];
        joinAnnouncer(add([line.replace(LIST_ITEM, '')]).first);
      } else {
        paragraph.push(line.trim());
      }
    }
    addParagraph(paragraph);
  }
  return units;
}

/**
 * Characters read from each end of a long question, as the search reads it
 * (boundedSearchText): a question is asked in its first and last words, and the cost stays
 * bounded (NFKC normalisation of 100,000 combining marks alone took seconds).
 */
const QUESTION_END_CHARS = 1000;
const questionEnds = (text: string) => boundedSearchText(text, 2 * QUESTION_END_CHARS);

/**
 * Ranks the passages' sentences by the question's words they hold, each word
 * weighted by its rarity among the sentences (inverse sentence frequency, as BM25's
 * idf), so "Australia" counts far more than "to". A question word in the best
 * passage's title names what the passages are about: the retrieved passages all share it,
 * which makes it common among them, yet it is the word that tells, so it keeps the
 * full weight, and a sentence that names it, or stands in the best passage's document,
 * comes before any that does not: a sentence about something else does not answer. A
 * sentence that states the kind of answer asked for (answer-kinds.ts) comes first among
 * its peers. The customer's previous message adds its words at half weight (a
 * follow-up's topic), and a sentence's section heading lends its words at half
 * weight. `closeness` (a sentence's cosine to the question, from the offline encoder, for some of
 * `candidates`) adds MEANING_WEIGHT of it: words alone miss a paraphrase. It reorders only: what
 * clears the bar, and the coverage the judge reads, are the words'. Ties go to the better-ranked
 * passage, then the earlier sentence.
 */
export function rankSentences(question: string, passages: RankedPassage[], earlierMessage = '', closeness?: ReadonlyMap<string, number>): SentenceRanking {
  // A passage's rank is its document's place: the retriever may give the best document two passages.
  const documentPlaces = [...new Set(passages.map((p) => p.source))];
  const units = passages.flatMap((p) => unitsOf(p, documentPlaces.indexOf(p.source)));
  const asked = new Map<string, number>();
  for (const word of wordsOf(questionEnds(question))) if (asked.size < MAX_QUESTION_WORDS) asked.set(word, 1);
  for (const word of wordsOf(questionEnds(earlierMessage))) if (!asked.has(word) && asked.size < MAX_QUESTION_WORDS) asked.set(word, EARLIER_MESSAGE_WEIGHT);
  if (units.length === 0 || asked.size === 0) return { quotes: [], nothingClears: true, bestCoverage: 0, candidates: [] };

  // The kinds are read from the same ends of the question as its words: NFKC over a pasted run of
  // 100,000 combining marks alone took seconds.
  const kinds = askedKinds(questionEnds(question));
  const earlierKinds = kinds.size > 0 ? new Set<AnswerKind>() : askedKinds(questionEnds(earlierMessage));
  // The best passage's title names the topic (the retriever put it first).
  const titles = new Set(wordsOf(passages[0]?.title ?? ''));
  const n = units.length;
  const rarest = Math.log(1 + (n + 0.5) / 0.5);
  const weights = new Map<string, number>();
  const topic = new Set<string>();
  for (const [word, share] of asked) {
    const df = units.filter((u) => holds(u.words, word)).length;
    if (holds(titles, word) && df > 0 && share === 1) topic.add(word);
    const idf = topic.has(word) ? rarest : Math.log(1 + (n - df + 0.5) / (df + 0.5));
    weights.set(word, share * idf);
  }
  const total = [...weights.values()].reduce((a, b) => a + b, 0);

  const seen = new Set<string>();
  const scored: ScoredSentence[] = [];
  for (const unit of units) {
    // Overlapping chunks repeat sentences: each is scored once, where it first appears.
    const key = unit.text.normalize('NFKC').toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    let weight = 0;
    // Every sentence of the best document is about its title's topic, named in it or not.
    let namesTopic = unit.rank === 0;
    for (const [word, w] of weights) {
      if (holds(unit.words, word)) {
        weight += w;
        namesTopic ||= topic.has(word);
      } else if (holds(unit.heading, word)) weight += HEADING_WEIGHT * w;
    }
    const coverage = total > 0 ? weight / total : 0;
    // A sentence that names the topic goes before any that does not (a score above 1 only then).
    const kind = [...kinds].some((k) => statesKind(unit.text, k)) ? ANSWER_KIND_BONUS : [...earlierKinds].some((k) => statesKind(unit.text, k)) ? ANSWER_KIND_BONUS / 2 : 0;
    const meaning = MEANING_WEIGHT * (closeness?.get(unit.quote) ?? 0);
    const score = (coverage + kind + meaning) / (1 + PASSAGE_RANK_DECAY * unit.rank) + (namesTopic ? 1 : 0);
    scored.push({ text: unit.quote, title: unit.passage.title, source: unit.passage.source, coverage, score });
  }
  // A stable sort keeps passage order, then sentence order, on equal scores.
  scored.sort((a, b) => b.score - a.score);
  const best = scored[0];
  const bestCoverage = Math.max(0, ...scored.map((s) => s.coverage));
  if (!best || bestCoverage < MIN_SCORE) return { quotes: [], nothingClears: true, bestCoverage, candidates: [] };
  const sameKind = (s: ScoredSentence) => s.score >= 1 === best.score >= 1;
  const quotes: ScoredSentence[] = [];
  for (const s of scored) {
    if (quotes.length === MAX_QUOTES || !sameKind(s) || s.score < QUOTE_SHARE_OF_BEST * best.score) continue;
    // An item already quoted with the sentence that announced it is not quoted again.
    if (!quotes.some((q) => q.text.includes(withoutItemEnd(s.text)))) quotes.push(s);
  }
  return { quotes, nothingClears: false, bestCoverage, candidates: scored.slice(0, MEANING_CANDIDATES).map((s) => s.text) };
}
