import { tokenizeWords } from './words';

/** How the search query of a turn was made. */
export type SearchQueryMethod = 'message' | 'topic' | 'model';

/** What the knowledge base is searched with for a turn, and why: recorded on the answer. */
export interface SearchQuery {
  text: string;
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
 * True when a message can be searched for without the conversation: it neither
 * refers back (a pronoun, "and …", "what about …") nor consists only of generic
 * words. Measured on both evaluation sets (npm run eval:answers): carrying history
 * into a question that stands alone hurts when the conversation moved on.
 */
export function standsAlone(message: string): boolean {
  if (CHANGING_OPENING.test(message)) return true;
  if (CONTINUING_OPENING.test(message)) return false;
  // "this year", "that day": pointing at the present, not back at the conversation.
  const words = message.toLowerCase().replace(DEICTIC_TIME, ' ').match(/[\p{L}\p{N}']+/gu) ?? [];
  if (words.some((w) => REFERRING_WORDS.has(w.replace(/'s$/u, '')))) return false;
  return tokenizeWords(message).some((w) => !GENERIC_WORDS.has(w));
}

/** Earlier customer messages to carry at most: the topic is set within the last few. */
const TOPIC_TURNS_MAX = 3;

/**
 * The offline method: a message that stands alone is searched for as it is; a
 * follow-up is searched for with the customer's earlier messages back to the one
 * that set the topic (the last that stood alone, at most TOPIC_TURNS_MAX), oldest
 * first, then the message itself. Both the full text and the vector see that text.
 */
export function topicSearchQuery(message: string, earlier: EarlierMessage[]): SearchQuery {
  if (standsAlone(message)) return { text: message, method: 'message' };
  const topic: string[] = [];
  for (const m of [...earlier].reverse()) {
    if (m.role !== 'user') continue;
    topic.push(m.content.trim());
    if (standsAlone(m.content) || topic.length >= TOPIC_TURNS_MAX) break;
  }
  if (topic.length === 0) return { text: message, method: 'message' };
  return { text: [...topic.reverse(), message.trim()].join('\n'), method: 'topic' };
}
