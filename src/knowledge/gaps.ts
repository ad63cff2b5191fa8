/**
 * Knowledge gaps: the questions the help center could not answer, grouped by what they ask,
 * so the team writes one article for "Do you sell gift cards?", "can i buy a gift card" and
 * "gift cards available??" instead of reading them one by one.
 *
 * Two questions ask the same thing when their words mostly agree (the language's own stop
 * words dropped and stems compared, a plural or a compound's head counted as the same word),
 * or, in a language the embedder knows, when their vectors are close. Groups are the linked
 * components over at most a few hundred recent questions, so the work stays bounded.
 */
import { OFFLINE_EMBEDDING_MODEL, type Embedder } from './embeddings';
import { tokenizeWords } from './words';
import { dot, unitLength } from './vector-math';
import type { UnansweredAsk } from '../store/knowledge-admin-store';

/** One gap: a question the help center lacks, with how often and why it went unanswered. */
export interface KnowledgeGap {
  /** The asking most like the others, as a customer wrote it. */
  question: string;
  count: number;
  /** Other wordings, newest first (at most EXAMPLES_PER_GAP). */
  examples: string[];
  /** How many askings went unanswered for each reason (`below_threshold`: answered, but with too little to go on). */
  reasons: Record<string, number>;
  /** The conversations it was asked in, newest first (at most SESSIONS_PER_GAP). */
  sessionIds: string[];
  lastAskedAt: Date;
}

const EXAMPLES_PER_GAP = 3;
const SESSIONS_PER_GAP = 5;
/**
 * Two words this long are one word when one holds the other ("gift card"/"gift cards",
 * "Gutschein"/"Geschenkgutscheine") or begin alike for two thirds of the shorter ("Abholung"/"abholen",
 * not "Geschenk"/"Geschäft").
 */
const SHARED_STEM_MIN_LETTERS = 5;

/** When two questions ask the same thing (measured on tests/fixtures/gap-paraphrases.ts: scripts/bench-gaps.ts). */
export interface GapThresholds {
  /** Share of the shorter question's words the other must hold too. */
  wordOverlap: number;
  /** Vectors' cosine, in a language the embedder knows. */
  similarity: number;
}

/**
 * On the labelled set, words ≥ 0.55 (weighted) with the sentence encoder at 0.7: purity 100%,
 * pairwise recall 63%, no wrong merge; at 0.5 recall is 73% but two topics sharing only
 * "possible" merge. A wrong merge hides a gap behind another; a split only shows it twice.
 */
export const GAP_THRESHOLDS: GapThresholds = { wordOverlap: 0.55, similarity: 0.7 };

/** A question's words, as the offline search compares them, in its conversation's language. */
function wordsOf(ask: UnansweredAsk): string[] {
  return [...new Set(tokenizeWords(ask.question, ask.language))];
}

function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < SHARED_STEM_MIN_LETTERS) return false;
  return long.includes(short) || sharedPrefix(short, long) >= Math.max(SHARED_STEM_MIN_LETTERS, (short.length * 2) / 3);
}

function sharedPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}

/** A word's weight: rarer across the askings grouped together, heavier ("possible", "möglich", "kaufen" recur across topics). */
export type WordWeight = (word: string) => number;

/** Inverse document frequency over the askings' word lists (smoothed, so a word in every list keeps a little weight). */
export function rarityWeights(wordLists: ReadonlyArray<readonly string[]>): WordWeight {
  const lists = wordLists.length;
  const counts = new Map<string, number>();
  for (const list of wordLists) for (const w of list) counts.set(w, (counts.get(w) ?? 0) + 1);
  const weights = new Map([...counts].map(([word, count]) => [word, Math.log(1 + lists / count)]));
  return (word) => weights.get(word) ?? Math.log(1 + lists);
}

/**
 * How much of the lighter word list the other holds, by weight (0–1); 0 for a question
 * with no words. Unweighted, it is the share of the shorter list's words.
 */
export function wordOverlap(a: readonly string[], b: readonly string[], weight: WordWeight = () => 1): number {
  if (a.length === 0 || b.length === 0) return 0;
  const total = (list: readonly string[]) => list.reduce((sum, w) => sum + weight(w), 0);
  const [light, other] = total(a) <= total(b) ? [a, b] : [b, a];
  const shared = light.filter((w) => other.some((v) => sameWord(w, v))).reduce((sum, w) => sum + weight(w), 0);
  return shared / total(light);
}

/** Questions embedded in one call: a hosted model takes them as one request; the offline encoder blocks about 14 ms each. */
const EMBED_BATCH = 16;

/**
 * Vectors of questions, kept across calls: the console asks for the same recent questions
 * again and again. New questions are embedded in batches with a turn of the event loop
 * between, so the offline sentence encoder never holds the thread for long.
 */
export class QuestionVectors {
  private readonly cache = new Map<string, number[]>();

  constructor(
    private readonly embedder: Embedder,
    private readonly maxEntries = 2000,
  ) {}

  /**
   * Whether the embedder's similarity means something in `language` (unknown: only if it knows
   * every language). The hashing embedder's similarity is word overlap again: it adds nothing
   * (scripts/bench-gaps.ts) and costs a 1,536-wide product per pair.
   */
  knows(language: string | null): boolean {
    if (this.embedder.model === OFFLINE_EMBEDDING_MODEL) return false;
    const known = this.embedder.languages;
    return known === undefined || (language !== null && known.includes(language));
  }

  /** The questions' vectors at unit length, in order. Throws what the embedder throws. */
  async vectorsOf(questions: readonly string[]): Promise<number[][]> {
    const missing = [...new Set(questions.filter((q) => !this.cache.has(q)))];
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      await new Promise((resolve) => setImmediate(resolve));
      const batch = missing.slice(i, i + EMBED_BATCH);
      const vectors = await this.embedder.embeddings.embedDocuments(batch);
      batch.forEach((q, j) => {
        if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(q, unitLength(vectors[j]!));
      });
    }
    return questions.map((q) => this.cache.get(q) ?? []);
  }
}

/**
 * Which askings ask the same thing: `group[i]` is the group of asks[i] (linked components),
 * `links[i]` how many others it is linked to.
 */
export async function linkAsks(
  asks: readonly UnansweredAsk[],
  vectors?: QuestionVectors,
  thresholds: GapThresholds = GAP_THRESHOLDS,
): Promise<{ group: number[]; links: number[] }> {
  const words = asks.map(wordsOf);
  const weight = rarityWeights(words);
  const embedded: Array<number[] | null> = [];
  const judged = vectors ? asks.filter((ask) => vectors.knows(ask.language)).map((ask) => ask.question) : [];
  // Without vectors (the embedding model is down) the words still group: the insights never fail for it.
  const byQuestion = new Map<string, number[]>();
  if (judged.length > 0) {
    const found = await vectors!.vectorsOf(judged).catch(() => null);
    found?.forEach((vector, i) => vector.length > 0 && byQuestion.set(judged[i]!, vector));
  }
  for (const ask of asks) embedded.push(vectors?.knows(ask.language) ? (byQuestion.get(ask.question) ?? null) : null);

  const linked = (i: number, j: number): boolean => {
    if (normalised(asks[i]!.question) === normalised(asks[j]!.question)) return true;
    if (wordOverlap(words[i]!, words[j]!, weight) >= thresholds.wordOverlap) return true;
    const a = embedded[i];
    const b = embedded[j];
    return a !== null && a !== undefined && b !== null && b !== undefined && dot(a, b) >= thresholds.similarity;
  };

  // Linked components (union-find); the pairs are few: asks are bounded by the store's limit.
  const parent = asks.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const links = asks.map(() => 0);
  for (let i = 0; i < asks.length; i++) {
    for (let j = i + 1; j < asks.length; j++) {
      if (!linked(i, j)) continue;
      links[i]!++;
      links[j]!++;
      parent[root(i)] = root(j);
    }
  }
  return { group: asks.map((_, i) => root(i)), links };
}

/** Groups unanswered askings (newest first) into gaps, the most asked first. */
export async function groupGaps(asks: readonly UnansweredAsk[], vectors?: QuestionVectors): Promise<KnowledgeGap[]> {
  const { group, links } = await linkAsks(asks, vectors);
  const groups = new Map<number, number[]>();
  asks.forEach((_, i) => groups.set(group[i]!, [...(groups.get(group[i]!) ?? []), i]));

  const gaps = [...groups.values()].map((members): KnowledgeGap => {
    // The asking linked to most others says best what the group asks; then the wording asked most, then the shorter.
    const wordingCount = new Map<string, number>();
    for (const i of members) wordingCount.set(normalised(asks[i]!.question), (wordingCount.get(normalised(asks[i]!.question)) ?? 0) + 1);
    const asked = (i: number) => wordingCount.get(normalised(asks[i]!.question))!;
    const representative = [...members].sort(
      (a, b) => links[b]! - links[a]! || asked(b) - asked(a) || asks[a]!.question.length - asks[b]!.question.length,
    )[0]!;
    const seen = new Set([normalised(asks[representative]!.question)]);
    const examples: string[] = [];
    for (const i of members) {
      const key = normalised(asks[i]!.question);
      if (seen.has(key) || examples.length >= EXAMPLES_PER_GAP) continue;
      seen.add(key);
      examples.push(asks[i]!.question);
    }
    const reasons: Record<string, number> = {};
    for (const i of members) {
      const reason = reasonOf(asks[i]!);
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
    return {
      question: asks[representative]!.question,
      count: members.length,
      examples,
      reasons,
      sessionIds: [...new Set(members.map((i) => asks[i]!.sessionId))].slice(0, SESSIONS_PER_GAP),
      lastAskedAt: new Date(Math.max(...members.map((i) => asks[i]!.askedAt.getTime()))),
    };
  });
  return gaps.sort((a, b) => b.count - a.count || b.lastAskedAt.getTime() - a.lastAskedAt.getTime());
}

function normalised(question: string): string {
  return question.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** An older escalation without a stored reason was escalated for want of knowledge. */
function reasonOf(ask: UnansweredAsk): string {
  if (!ask.escalated) return 'below_threshold';
  return ask.escalationReason ?? 'not_in_help_center';
}
