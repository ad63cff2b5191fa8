import { ANSWER_TEXT_SEPARATOR } from '../agent/nodes/generate-response';

/**
 * Turns the answering node's text deltas into the pieces a streaming client is
 * sent, so that they add up to the answer generate_response stores: each model
 * call's text trimmed (leading whitespace skipped, trailing whitespace held back
 * until more text follows it), and the texts of successive calls (a tool round's
 * "Let me look that up." and the answer) joined by a blank line.
 */
export class AnswerPieces {
  private call: unknown;
  private callHasText = false;
  private heldWhitespace = '';
  private sentText = '';

  /** What to send for `delta`, written by model call `call` ('' when nothing yet). */
  next(call: unknown, delta: string): string {
    if (call !== this.call) {
      this.call = call;
      this.callHasText = false;
      this.heldWhitespace = '';
    }
    const body = delta.trimEnd();
    const trailing = delta.slice(body.length);
    let piece: string;
    if (!this.callHasText) {
      const start = body.trimStart();
      if (start === '') return '';
      piece = (this.sentText === '' ? '' : ANSWER_TEXT_SEPARATOR) + start;
      this.callHasText = true;
    } else if (body === '') {
      this.heldWhitespace += trailing;
      return '';
    } else {
      piece = this.heldWhitespace + body;
    }
    this.heldWhitespace = trailing;
    this.sentText += piece;
    return piece;
  }

  /** Everything sent so far. */
  get text(): string {
    return this.sentText;
  }
}
