import fc from 'fast-check';
import { ANSWER_TEXT_SEPARATOR } from '../../src/agent/nodes/generate-response';
import { AnswerPieces } from '../../src/chat/answer-pieces';

/** Feeds deltas (call, text) and returns the pieces that would be sent. */
function stream(deltas: Array<[number, string]>): string[] {
  const pieces = new AnswerPieces();
  return deltas.map(([call, text]) => pieces.next(call, text)).filter((p) => p !== '');
}

describe('AnswerPieces', () => {
  it('skips a call’s leading whitespace and holds trailing whitespace back until more text follows', () => {
    expect(stream([[1, '  Hello'], [1, ' '], [1, ' '], [1, 'world. '], [1, '\n']])).toEqual(['Hello', '  world.']);
  });

  it('joins the texts of successive calls with a blank line, and skips calls that wrote nothing', () => {
    expect(stream([[1, 'Let me check. '], [2, '   '], [3, ' It shipped.']])).toEqual(['Let me check.', `${ANSWER_TEXT_SEPARATOR}It shipped.`]);
  });

  it('adds up to the calls’ texts, each trimmed, joined as generate_response joins them (any deltas)', () => {
    const delta = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.oneof(fc.string(), fc.constantFrom(' ', '\n', '  a ', 'b\n\n')));
    fc.assert(
      fc.property(fc.array(delta, { maxLength: 30 }), (deltas) => {
        // Calls come one after another: sort by call, keeping each call's order.
        const ordered = [...deltas].sort((a, b) => a[0] - b[0]);
        const texts = [1, 2, 3].map((call) => ordered.filter(([c]) => c === call).map(([, t]) => t).join('').trim());
        const expected = texts.filter((t) => t !== '').join(ANSWER_TEXT_SEPARATOR);
        expect(stream(ordered).join('')).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
