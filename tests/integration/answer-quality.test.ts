/**
 * The answer-quality evaluation's levels on the embedded default (no key: the
 * sentence encoder, hybrid search, the topic method for follow-ups), asserted at
 * what `npm run eval:answers` shows (BENCHMARKS.md), with the targets as floors.
 */
import path from 'node:path';
import {
  escalationScores,
  loadDialogues,
  runDialogues,
  scoreTurns,
  startEvaluatedService,
  type TurnResult,
  type TurnType,
} from '../../scripts/lib/answer-eval';
import { REPO_ROOT, HELP_CENTER_DIR } from '../support/test-service';

jest.setTimeout(240_000);

describe('answer quality on our help-center dialogues, offline', () => {
  let results: TurnResult[];
  const ofType = (type: TurnType) => results.filter((r) => r.turn.type === type);

  beforeAll(async () => {
    const service = await startEvaluatedService(HELP_CENTER_DIR, { OPENAI_API_KEY: undefined });
    try {
      results = await runDialogues(service.deps, loadDialogues(path.join(REPO_ROOT, 'eval/help-center-dialogues.jsonl')));
    } finally {
      await service.close();
    }
  });

  it('is the labelled set the evaluation describes: at least 60 turns of every type', () => {
    expect(results.length).toBeGreaterThanOrEqual(60);
    for (const type of ['first', 'follow_up', 'new_topic', 'paraphrase', 'order', 'off_topic'] as const) expect(ofType(type).length).toBeGreaterThan(0);
  });

  it('cites the article a follow-up is about in its top 3 sources (at least 90%), and does not escalate it (at most 1 in 10)', () => {
    const followUps = scoreTurns(ofType('follow_up'));
    expect(followUps.hitAt3 / followUps.labelled).toBeGreaterThanOrEqual(0.9);
    expect(followUps.escalated / followUps.turns).toBeLessThanOrEqual(0.1);
  });

  it('finds the article for paraphrases in words the article does not use (at least 75% in the top 3)', () => {
    const paraphrases = scoreTurns(ofType('paraphrase'));
    expect(paraphrases.hitAt3 / paraphrases.labelled).toBeGreaterThanOrEqual(0.75);
  });

  it('answers first questions and topic changes from their article first, without escalating them', () => {
    for (const type of ['first', 'new_topic', 'order'] as const) {
      const scores = scoreTurns(ofType(type));
      expect(scores.hitAt3).toBe(scores.labelled); // as before: every one in the top 3
      expect(scores.hitAt1 / scores.labelled).toBeGreaterThanOrEqual(0.9);
      expect(scores.escalated).toBe(0);
    }
  });

  it('still escalates every off-topic question, even one asked in the middle of a covered conversation', () => {
    const escalation = escalationScores(results);
    expect(escalation.recall).toBe(1);
    expect(ofType('off_topic').some((r) => r.index > 0)).toBe(true);
    // Escalations of covered turns stay rare: the off-topic ones are most of them.
    expect(escalation.precision).toBeGreaterThanOrEqual(0.6);
  });

  it('records on each answer how the knowledge base was searched and why each cited document came: a follow-up carries its topic', () => {
    const process = results.find((r) => r.dialogue === 'refunds-process' && r.index === 1)!;
    expect(process.retrieval).toMatchObject({
      query: 'How long does the process take?',
      method: 'topic',
      vector_query: 'What is your refund policy?\nHow long does the process take?',
      history: [{ text: 'What is your refund policy?', weight: 0.5 }],
    });
    const [best] = process.retrieval!.documents!;
    expect(best).toMatchObject({ source: expect.stringMatching(/refunds\.md$/), place: 1, vectors: { place: expect.any(Number) } });
    // Its own words ("process", "take") are generic; the earlier question's words put it first.
    expect(best!.history.score).toBeGreaterThan(0);
    expect(best!.score).toBeCloseTo(best!.full_text.score + best!.vectors.similarity, 2);
    const first = results.find((r) => r.dialogue === 'refunds-process' && r.index === 0)!;
    expect(first.retrieval).toMatchObject({ query: 'What is your refund policy?', method: 'message' });
    expect(first.retrieval!.history).toBeUndefined();
  });
});
