/**
 * The conversation-acts set (eval/acts/<language>.jsonl), run through the acts classifier
 * line by line: in every language, small talk is recognized as small talk, a request for
 * a person as one, and a question that only looks like either stays a question, each at
 * least 95% of the time. `npm run eval:answers -- --acts` measures the same lines
 * through the real service.
 */
import path from 'node:path';
import { recognizeConversationAct } from '../../src/chat/conversation-acts';
import { ACTS_TARGET, EXPECTED_ACTS, loadActsSet, type ExpectedAct } from '../../scripts/lib/acts-set';

const languages = loadActsSet(path.resolve(__dirname, '../../eval/acts'));

/** What the classifier makes of a whole message, in the set's terms. */
function kindOf(message: string): ExpectedAct {
  const act = recognizeConversationAct(message)?.act;
  if (!act) return 'question';
  return act === 'ask_for_person' ? 'ask_person' : 'small_talk';
}

/** The least each language holds of each kind, so every share rests on enough lines. */
const MINIMUM_LINES: Record<ExpectedAct, number> = { small_talk: 20, ask_person: 20, question: 15 };

describe('the conversation-acts set', () => {
  it('covers at least ten languages, each with enough lines of every kind', () => {
    expect(languages.map((l) => l.language)).toEqual(expect.arrayContaining(['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'tr', 'ja', 'zh']));
    const short = languages.flatMap(({ language, lines }) =>
      EXPECTED_ACTS.filter((kind) => lines.filter((line) => line.expect === kind).length < MINIMUM_LINES[kind]).map((kind) => `${language} ${kind}`),
    );
    expect(short).toEqual([]);
  });

  const cases = languages.flatMap(({ language, lines }) => EXPECTED_ACTS.map((kind) => ({ language, kind, lines: lines.filter((l) => l.expect === kind) })));
  it.each(cases)('$language: at least 95% of its $kind lines are read as $kind', ({ kind, lines }) => {
    const missed = lines.filter((line) => kindOf(line.text) !== kind).map((line) => `${line.text} → ${kindOf(line.text)}`);
    // Within the target the misses are allowed; beyond it the failure lists every one.
    const allowed = Math.floor(lines.length * (1 - ACTS_TARGET));
    expect(missed.length <= allowed ? [] : missed).toEqual([]);
  });

  // The reply to small talk and the hand-over are in the language an act names when the conversation tells none.
  it.each(languages)('$language: the acts recognized name $language or no language, at least 95% of them', ({ language, lines }) => {
    const named = lines.flatMap((line) => {
      const act = line.expect === 'question' ? null : recognizeConversationAct(line.text);
      return act ? [{ text: line.text, language: act.language }] : [];
    });
    const wrong = named.filter((act) => act.language !== null && act.language !== language).map((act) => `${act.text} → ${act.language}`);
    expect(wrong.length <= Math.floor(named.length * (1 - ACTS_TARGET)) ? [] : wrong).toEqual([]);
  });
});
