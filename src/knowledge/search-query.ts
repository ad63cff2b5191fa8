import { segmentsOf, WORD_SLICE } from './language/segments';
import { tokenizeWords } from './words';

/**
 * The most of a search query that is searched for. A question's topic is in its first and last
 * sentences (a topic query is the earlier turns, then the message), and the offline sentence
 * encoder's cost grows faster than the text: measured here, 0.6 s for 4,000 characters and 100 s
 * for 100,000, all of it blocking the process. So a longer query keeps its head and its tail.
 */
export const SEARCH_QUERY_MAX_CHARS = 1000;

/** `text` itself when short enough, else its first and last SEARCH_QUERY_MAX_CHARS / 2 characters. */
export function boundedSearchText(text: string, max = SEARCH_QUERY_MAX_CHARS): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  let head = text.slice(0, half);
  let tail = text.slice(text.length - half);
  // Never split a surrogate pair: a lone half is not text.
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return `${head}\n${tail}`;
}

/** How the search query of a turn was made. */
export type SearchQueryMethod = 'message' | 'topic' | 'model';

/** Earlier words of the conversation, counted at a weight below the turn's own (1). */
export interface WeightedText {
  text: string;
  weight: number;
}

/** What the knowledge base is searched with for a turn, and why: recorded on the answer. */
export interface SearchQuery {
  /** The turn's own words for the full text (weight 1): the message, or the model's rewrite. */
  text: string;
  /** What the vectors are searched with: `text`, or for a follow-up the conversation's topic with it. */
  vectorText?: string;
  /** Earlier customer messages whose words the full text also counts, newest first, each at its weight. */
  history?: WeightedText[];
  method: SearchQueryMethod;
}

/** An earlier message of the conversation, as the query methods read it. */
export interface EarlierMessage {
  role: string;
  content: string;
}

/**
 * Words that refer back to something said before: a message with one of them
 * ("Is it free?", "Which one is cheaper?") cannot be searched for on its own.
 * "there" is left out: "Are there any fees?" uses it to say that something exists.
 */
const REFERRING_WORDS = new Set(
  'it its itself they them their theirs this that these those one ones other others same such he she him her his then'.split(' '),
);

/** Openings that continue the previous question ("And after it has shipped?", "What about international cards?"). */
const CONTINUING_OPENING = /^\s*(?:and|but|also|so|or|then|even|plus|what about|how about|what if|what else|and if|in that case)\b/iu;

/** Openings that announce a new subject ("By the way, …", "One more thing: …"). */
const CHANGING_OPENING = /^\s*(?:by the way|btw|unrelated|on another note|another question|a different question|one (?:more|last|other) (?:thing|question))\b/iu;

const DEICTIC_TIME = /\b(?:this|that|these|those)\s+(?:year|years|month|months|week|weeks|day|days|morning|afternoon|evening|time|season)\b/giu;

/**
 * Words that say what is asked about a topic but not which topic: a message made of
 * these alone ("How long does the process take?", "Is there a limit?") needs the
 * conversation to be searched for. Stemmed as tokenizeWords stems them.
 */
const GENERIC_WORDS = new Set(
  tokenizeWords(
    'process thing things stuff option options way ways cost costs price prices fee fees charge charged time times long much many ' +
      'take takes taking happen happens happened work works working need needs get gets getting make go goes ' +
      'limit limits free cheap cheaper cheapest fast faster fastest quick quickly slow soon possible allowed ok okay ' +
      'any also still ever else more less exactly usually really just about again too instead first next last ' +
      'help question questions answer info information detail details option step steps rule rules policy ' +
      'yes no not there here now long try tries know tell say said want like',
  ),
);

/**
 * Other languages' follow-up signals: words that refer back (pronouns, "dort",
 * "ça") and openings that continue ("und", "et si", "y qué tal"). Lower-cased,
 * matched as whole words; a language without a list is told by length alone.
 * Articles that double as pronouns (der/die/das, le/la, lo/la, het) and the
 * polite "Sie"/"Ihre" are left out: nearly every question has one.
 */
const FOLLOW_UP_SIGNALS: Readonly<Record<string, { referring: ReadonlySet<string>; continuing: RegExp }>> = {
  de: {
    referring: new Set('es ihn ihm dies diese dieser dieses dort dafür dazu davon darauf derselbe dasselbe dieselbe'.split(' ')),
    continuing: /^\s*(?:und|aber|auch|oder|dann|also|und wenn|was ist mit|wie ist es mit|wie sieht es mit|und was)\b/iu,
  },
  fr: {
    referring: new Set('il elle ils elles lui leur ça cela cet cette ces celui celle ceux celles'.split(' ')),
    continuing: /^\s*(?:et|mais|aussi|ou|alors|donc|et si|et pour|qu'en est-il|et quant)\b/iu,
  },
  es: {
    referring: new Set('él ella ellos ellas lo le les eso esto esa ese esas esos aquello mismo misma allí ahí'.split(' ')),
    continuing: /^\s*(?:y|pero|también|entonces|y si|y qué|qué tal|y en cuanto)\b/iu,
  },
  it: {
    referring: new Set('esso essa essi esse ne questo questa questi queste quello quella quelli quelle stesso stessa lì'.split(' ')),
    continuing: /^\s*(?:e|ma|anche|o|allora|quindi|e se|e per|che ne dici)\b/iu,
  },
  nl: {
    referring: new Set('hij zij ze hem haar hun dit deze daar daarvoor daarmee ervan erop dezelfde hetzelfde'.split(' ')),
    continuing: /^\s*(?:en|maar|ook|of|dan|dus|en als|hoe zit het met|wat als)\b/iu,
  },
  pt: {
    referring: new Set('ele ela eles elas lhe lhes isso isto esse essa esses essas aquilo mesmo mesma lá aí'.split(' ')),
    continuing: /^\s*(?:e|mas|também|ou|então|e se|e quanto|que tal)\b/iu,
  },
};
/** In a language without its own lists: a message this short (in words) cannot stand alone ("Und die Kosten?"). */
const SHORT_FOLLOW_UP_WORDS = 3;
const WORD_SEGMENTS = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * True when a message can be searched for without the conversation: it neither
 * refers back (a pronoun, "and …", "what about …") nor consists only of generic
 * words. Measured on both evaluation sets (npm run eval:answers): carrying history
 * into a question that stands alone hurts when the conversation moved on.
 * `language` (ISO 639-1, default English) picks the word lists: German, French,
 * Spanish, Italian, Dutch and Portuguese have their own; any other language is
 * told by length (at most SHORT_FOLLOW_UP_WORDS words: a follow-up).
 */
export function standsAlone(message: string, language = 'en'): boolean {
  if (language !== 'en') return standsAloneIn(message, language);
  if (CHANGING_OPENING.test(message)) return true;
  if (CONTINUING_OPENING.test(message)) return false;
  // "this year", "that day": pointing at the present, not back at the conversation.
  const words = message.toLowerCase().replace(DEICTIC_TIME, ' ').match(/[\p{L}\p{N}']+/gu) ?? [];
  if (words.some((w) => REFERRING_WORDS.has(w.replace(/'s$/u, '')))) return false;
  return tokenizeWords(message).some((w) => !GENERIC_WORDS.has(w));
}

function standsAloneIn(message: string, language: string): boolean {
  const wordsOf = (text: string) => [...segmentsOf(WORD_SEGMENTS, text.toLowerCase(), WORD_SLICE)].filter((s) => s.isWordLike).map((s) => s.segment);
  const signals = FOLLOW_UP_SIGNALS[language];
  if (signals) {
    if (signals.continuing.test(message)) return false;
    // "gibt es", "es gibt": that something exists, as English "there is", not a reference back.
    if (wordsOf(message.replace(/\b(?:gibt es|es gibt)\b/giu, ' ')).some((w) => signals.referring.has(w))) return false;
  }
  return wordsOf(message).length > SHORT_FOLLOW_UP_WORDS;
}

/** Earlier customer messages to carry at most: the topic is set within the last few. */
const TOPIC_TURNS_MAX = 3;

/**
 * How much earlier customer messages count in the full-text query (RETRIEVAL_HISTORY_WEIGHT,
 * RETRIEVAL_FOLLOW_UP_HISTORY_WEIGHT): the last one at `weight` (`followUpWeight` when the
 * message cannot stand alone), each one before it at half the weight of the next.
 */
export interface HistoryWeights {
  weight: number;
  followUpWeight: number;
}

/**
 * The offline method. The message's own words are searched for at full weight, and
 * the customer's last TOPIC_TURNS_MAX earlier messages add theirs at a reduced weight
 * (historical query expansion): a follow-up that repeats none of its topic's words
 * still finds the topic's article, while a message that moved on is still ranked
 * mostly by its own words. Whether the message stands alone only moves the weight
 * (a wrong guess costs little) and, for a follow-up, what the vectors see: the
 * earlier messages back to the one that set the topic, oldest first, then the
 * message (the vectors have no weights, and "Is it free?" alone means nothing).
 */
export function topicSearchQuery(message: string, earlier: EarlierMessage[], weights: HistoryWeights, language?: string): SearchQuery {
  const customer = earlier.filter((m) => m.role === 'user' && m.content.trim() !== '');
  const alone = standsAlone(message, language);
  const base = alone ? weights.weight : weights.followUpWeight;
  const history = customer
    .slice(-TOPIC_TURNS_MAX)
    .reverse()
    .map((m, back) => ({ text: m.content.trim(), weight: base / 2 ** back }))
    .filter((h) => h.weight > 0);
  if (alone || customer.length === 0) return { text: message, method: 'message', ...(history.length > 0 && { history }) };
  const topic: string[] = [];
  for (const m of [...customer].reverse()) {
    topic.push(m.content.trim());
    if (standsAlone(m.content, language) || topic.length >= TOPIC_TURNS_MAX) break;
  }
  return { text: message, vectorText: [...topic.reverse(), message.trim()].join('\n'), history, method: 'topic' };
}
