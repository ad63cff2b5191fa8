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
import type { Embedder } from './embeddings';
import { tokenizeWords } from './words';
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
/** Share of the shorter question's words the other must hold too. */
const WORD_OVERLAP_MIN = 0.5;
/** A word this long counts as the same word when it begins or ends another ("gift card"/"gift cards", "Gutschein"/"Geschenkgutschein"). */
const SHARED_STEM_MIN_LETTERS = 5;

/** Vectors' cosine at which two questions in a language the embedder knows ask the same thing. */
export const GAP_SIMILARITY_MIN = 0.7;

/** A question's words, as the offline search compares them, in its conversation's language. */
function wordsOf(ask: UnansweredAsk): string[] {
  return [...new Set(tokenizeWords(ask.question, ask.language))];
}

function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= SHARED_STEM_MIN_LETTERS && (long.startsWith(short) || long.endsWith(short));
}

/** How much of the shorter word list the other holds (0–1); 0 for a question with no words. */
export function wordOverlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  const shared = short.filter((w) => long.some((v) => sameWord(w, v))).length;
  return shared / short.length;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Vectors of questions, kept across calls: the console asks for the same recent questions
 * again and again. The offline sentence encoder costs about 14 ms a question on the main
 * thread, so questions are embedded one at a time with a turn of the event loop between.
 */
export class QuestionVectors {
  private readonly cache = new Map<string, number[]>();

  constructor(
    private readonly embedder: Embedder,
    private readonly maxEntries = 2000,
  ) {}

  /** Whether the embedder's similarity means something in `language` (unknown: only if it knows every language). */
  knows(language: string | null): boolean {
    const known = this.embedder.languages;
    return known === undefined || (language !== null && known.includes(language));
  }

  async vectorOf(question: string): Promise<number[]> {
    const cached = this.cache.get(question);
    if (cached) return cached;
    await new Promise((resolve) => setImmediate(resolve));
    const vector = await this.embedder.embeddings.embedQuery(question);
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(question, vector);
    return vector;
  }
}

/** Groups unanswered askings (newest first) into gaps, the most asked first. */
export async function groupGaps(asks: readonly UnansweredAsk[], vectors?: QuestionVectors): Promise<KnowledgeGap[]> {
  const words = asks.map(wordsOf);
  const embedded: Array<number[] | null> = [];
  for (const ask of asks) embedded.push(vectors?.knows(ask.language) ? await vectors.vectorOf(ask.question) : null);

  const linked = (i: number, j: number): boolean => {
    if (normalised(asks[i]!.question) === normalised(asks[j]!.question)) return true;
    if (wordOverlap(words[i]!, words[j]!) >= WORD_OVERLAP_MIN) return true;
    const a = embedded[i];
    const b = embedded[j];
    return a !== null && a !== undefined && b !== null && b !== undefined && cosine(a, b) >= GAP_SIMILARITY_MIN;
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
  const groups = new Map<number, number[]>();
  asks.forEach((_, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), i]));

  const gaps = [...groups.values()].map((members): KnowledgeGap => {
    // The asking linked to most others says best what the group asks; the shorter on a tie.
    const representative = [...members].sort((a, b) => links[b]! - links[a]! || asks[a]!.question.length - asks[b]!.question.length)[0]!;
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
