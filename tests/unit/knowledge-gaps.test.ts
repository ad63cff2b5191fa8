/**
 * Grouping unanswered questions into gaps, on the labelled paraphrase set (English and
 * German) at the service's thresholds, words alone (the offline default's hashing embedder
 * adds nothing to them), and the shape of a gap.
 */
import { Embeddings } from '@langchain/core/embeddings';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL } from '../../src/knowledge/embeddings';
import { groupGaps, linkAsks, QuestionVectors, wordOverlap } from '../../src/knowledge/gaps';
import type { UnansweredAsk } from '../../src/store/knowledge-admin-store';
import { GAP_PARAPHRASES, scoreGrouping } from '../fixtures/gap-paraphrases';

function ask(question: string, overrides: Partial<UnansweredAsk> = {}): UnansweredAsk {
  return { question, sessionId: question, askedAt: new Date('2026-11-01T10:00:00Z'), confidence: 0.1, escalated: true, escalationReason: 'not_in_help_center', language: 'en', ...overrides };
}

describe('grouping unanswered questions into gaps', () => {
  test('on the labelled paraphrases in English and German, no two topics are merged and most paraphrases are joined', async () => {
    const asks = GAP_PARAPHRASES.map((q, i) => ask(q.question, { language: q.language, sessionId: `s${i}` }));
    const { group } = await linkAsks(asks);
    const score = scoreGrouping(group, GAP_PARAPHRASES.map((q) => q.label));
    expect(score.merges).toBe(0);
    expect(score.purity).toBe(1);
    expect(score.recall).toBeGreaterThanOrEqual(0.5);
  });

  test('a plural, a compound and a word that begins alike count as one word; unrelated words do not', () => {
    expect(wordOverlap(['gift', 'parcel'], ['gift', 'parcels'])).toBe(1);
    expect(wordOverlap(['gutschein'], ['gibt', 'geschenkgutscheine'])).toBe(1);
    expect(wordOverlap(['abholung'], ['abholen'])).toBe(1);
    expect(wordOverlap(['geschenk'], ['geschäft'])).toBe(0);
    expect(wordOverlap([], ['geschäft'])).toBe(0);
  });

  test('a gap names its most linked asking, counts every asking, lists other wordings once, its reasons and its conversations', async () => {
    const gaps = await groupGaps([
      ask('gift cards available??', { sessionId: 'c', askedAt: new Date('2026-11-03T10:00:00Z'), escalated: false, escalationReason: null, confidence: 0.2 }),
      ask('Do you sell gift cards?', { sessionId: 'b', escalationReason: 'model' }),
      ask('do you sell gift cards?', { sessionId: 'b2' }),
      ask('Do you sell gift cards?', { sessionId: 'a', escalationReason: null }),
      ask('Do you ship to Iceland?', { sessionId: 'x' }),
    ]);
    expect(gaps).toHaveLength(2);
    expect(gaps[0]).toMatchObject({
      question: 'Do you sell gift cards?',
      count: 4,
      examples: ['gift cards available??'],
      reasons: { below_threshold: 1, model: 1, not_in_help_center: 2 },
      sessionIds: ['c', 'b', 'b2', 'a'],
      lastAskedAt: new Date('2026-11-03T10:00:00Z'),
    });
    expect(gaps[1]).toMatchObject({ question: 'Do you ship to Iceland?', count: 1, sessionIds: ['x'] });
  });

  test("the hashing embedder's vectors are not used: its similarity is word overlap again", () => {
    const vectors = new QuestionVectors({ embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL });
    expect(vectors.knows('en')).toBe(false);
  });

  /** A stand-in model whose vectors say "gift" for any question that mentions a present (no real model runs in a unit test). */
  class TopicEmbeddings extends Embeddings {
    calls = 0;
    constructor(private readonly failing = false) {
      super({});
    }
    async embedDocuments(texts: string[]): Promise<number[][]> {
      this.calls++;
      if (this.failing) throw new Error('model down');
      return texts.map((t) => (/gift|present|voucher/i.test(t) ? [1, 0] : [0, 1]));
    }
    async embedQuery(text: string): Promise<number[]> {
      return (await this.embedDocuments([text]))[0]!;
    }
  }
  const asks = () => [ask('Do you sell gift cards?'), ask('Any vouchers to offer as a present?'), ask('Do you ship to Iceland?')];

  test("with a model that knows the language, questions close in meaning join even without a shared word; vectors are kept for the next call", async () => {
    const embeddings = new TopicEmbeddings();
    const vectors = new QuestionVectors({ embeddings, model: 'stand-in' });
    expect((await groupGaps(asks(), vectors)).map((g) => g.count)).toEqual([2, 1]);
    await groupGaps(asks(), vectors);
    expect(embeddings.calls).toBe(1);
  });

  test('when the model fails, the gaps are grouped by words alone', async () => {
    const vectors = new QuestionVectors({ embeddings: new TopicEmbeddings(true), model: 'stand-in' });
    expect((await groupGaps(asks(), vectors)).map((g) => g.count)).toEqual([1, 1, 1]);
  });
});
