import type { BaseMessage } from '@langchain/core/messages';
import type { RetrievedDocument } from '../store/types';
import { failedTools, type EscalationReason } from './escalation';

/** What the summary is written from. */
export interface HandoverFacts {
  reason: EscalationReason;
  /** The customer's message this turn (as stored: redacted). */
  question: string;
  /** The customer's message before it in the conversation, if any: a follow-up's topic. */
  earlierQuestion: string | null;
  /** The help center's documents this turn's search found, best first. */
  documents: readonly RetrievedDocument[];
  /** Retrieval's confidence (0–1). */
  confidence: number;
  /** This turn's tool calls and results. */
  messages: readonly BaseMessage[];
}

/** The customer's words are quoted up to this many characters each. */
const QUOTED_CHARS = 200;
/** The closest articles named, at most. */
const ARTICLES_NAMED = 3;

/**
 * What the person who takes over reads first when the bot handed the conversation over by its own
 * judgement (the model writes its own with hand_off_to_person): what the customer asked, with the
 * message before it when there was one, and what was tried — the help center's closest articles and
 * how confident the search was, or the system that failed. Without it the waiting list shows the
 * conversation's first message and the bot's hand-over sentence. In the console's language (English);
 * the customer's own words are quoted. Null for the model's reason: its summary is its own.
 */
export function handoverSummary(facts: HandoverFacts): string | null {
  const asked = `“${clip(facts.question)}”${facts.earlierQuestion ? ` (after “${clip(facts.earlierQuestion)}”)` : ''}`;
  switch (facts.reason) {
    case 'customer_asked':
      return `The customer asked for a person: ${asked}.`;
    case 'not_in_help_center': {
      const titles = [...new Set(facts.documents.map((d) => d.title))].slice(0, ARTICLES_NAMED);
      const tried =
        titles.length === 0
          ? 'The help center search found no article.'
          : `The help center's closest articles, ${titles.map((t) => `“${t}”`).join(', ')}, did not answer it (search confidence ${facts.confidence.toFixed(2)}).`;
      return `The customer asked ${asked}. ${tried}`;
    }
    case 'tool_failed':
      return `The customer asked ${asked}. The shop's system failed on ${failedTools(facts.messages).filter((name) => name !== '').join(', ') || 'a lookup'}, so it could not be looked up.`;
    case 'knowledge_unavailable':
      return `The customer asked ${asked}. The help center could not be searched (the knowledge base was unavailable).`;
    case 'model':
      return null;
  }
}

function clip(text: string): string {
  // A bounded piece first: a message may be long, the quote is not.
  const oneLine = text.slice(0, 2 * QUOTED_CHARS).replace(/\s+/gu, ' ').trim();
  return oneLine.length <= QUOTED_CHARS ? oneLine : `${[...oneLine].slice(0, QUOTED_CHARS).join('').trimEnd()}…`;
}
