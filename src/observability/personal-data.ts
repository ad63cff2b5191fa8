/**
 * What may leave the service for Langfuse. Conversation text (questions, answers,
 * the history, cross-session memory), tool arguments and results (orders,
 * profiles, the e-mail address or postcode of an order proof, lookup_order's or an
 * action's guest_proof) and the customer id
 * are personal data: unless LANGFUSE_CAPTURE_PERSONAL_DATA is on, traces carry
 * only their shape (roles, lengths, tool names), token usage, timings, scores,
 * sources and settings.
 */
interface CaptureSetting {
  readonly capturePersonalData: boolean;
}

/** The text itself when personal data may be captured, otherwise a note of its length. */
export function traceText(tracing: CaptureSetting | undefined, text: string): string {
  return tracing?.capturePersonalData ? text : withheld(text);
}

/** A tool call's arguments or result (any value) as a trace may show it. */
export function traceValue(tracing: CaptureSetting | undefined, value: unknown): unknown {
  if (tracing?.capturePersonalData) return value;
  return withheld(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
}

/** A model call's messages: roles and lengths only, unless personal data may be captured. */
export function traceMessages(tracing: CaptureSetting | undefined, messages: Array<{ role: string; content: string }>): unknown[] {
  if (tracing?.capturePersonalData) return messages;
  return messages.map((m) => ({ role: m.role, content: withheld(m.content) }));
}

function withheld(text: string): string {
  return `[withheld: ${text.length} characters; LANGFUSE_CAPTURE_PERSONAL_DATA=true sends them]`;
}
