import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool, type StructuredTool } from '@langchain/core/tools';
import { z } from 'zod';

export const HAND_OFF_TO_PERSON = 'hand_off_to_person';

/** The most the model may write in a hand-off's summary and reason; a person reads it at a glance. */
export const HAND_OFF_SUMMARY_MAX_CHARS = 1000;
const HAND_OFF_REASON_MAX_CHARS = 200;

/** The model's hand-off, as its tool result carries it (the ToolMessage's artifact). */
export interface HandOff {
  kind: 'hand_off';
  /** What the customer needs and what was tried, for the person who takes over. */
  summary: string;
  /** The model's own words on why, when it gave them. */
  reason: string | null;
}

export function isHandOff(value: unknown): value is HandOff {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'hand_off';
}

const handOffSchema = z.object({
  summary: z
    .string()
    .trim()
    .min(1)
    .max(HAND_OFF_SUMMARY_MAX_CHARS)
    .describe('For the person who takes over: what the customer needs, and what was tried or found so far. Plain sentences, no greeting.'),
  reason: z.string().trim().max(HAND_OFF_REASON_MAX_CHARS).optional().describe('Why a person should take over, in a few words.'),
});

/**
 * hand_off_to_person: the model hands the conversation to a person. Built in, offered
 * to every agent with a model unless the shop file's agent says `hand_off: false`.
 * The call itself changes nothing: the turn ends after it, and the judge
 * (src/chat/escalation.ts) escalates the answer with reason `model` and stores the
 * summary, redacted, for the person who takes over.
 */
export function createHandOffTool(): StructuredTool {
  return tool(
    async ({ summary, reason }): Promise<[string, HandOff]> => [
      'The conversation is handed to a person from the support team, who will read your summary.',
      { kind: 'hand_off', summary, reason: reason?.trim() || null },
    ],
    {
      name: HAND_OFF_TO_PERSON,
      description:
        'Hand this conversation to a person from the support team. Call it when the knowledge passages and your tools do not answer the ' +
        "customer's question, when the customer asks for a person, or when the shop's instructions say a person must handle it. " +
        'Never guess instead of calling it. Say one short sentence to the customer beside the call.',
      schema: handOffSchema,
      // The hand-off travels as the artifact; the text is what the model would read.
      responseFormat: 'content_and_artifact',
    },
  ) as unknown as StructuredTool;
}

/** The model's hand-off among a turn's tool results (the last, if it called the tool twice); null without one. */
export function handOffOf(turn: readonly BaseMessage[]): HandOff | null {
  const calls = turn.flatMap((m) => (ToolMessage.isInstance(m) && isHandOff(m.artifact) ? [m.artifact] : []));
  return calls.at(-1) ?? null;
}
