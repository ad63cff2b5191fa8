/**
 * A draft article from a conversation a person finished: the customer's escalated question
 * as its title, the person's replies (their wording) as its body. The team edits it and
 * publishes it (PUT /api/v1/knowledge/sources/{source}), and the next customer asking the
 * same thing is answered from it.
 *
 * An article is read by every customer, so nothing personal may stay in it: card numbers
 * and IBANs (the stored-text redaction), e-mail addresses, phone numbers, order-number-shaped
 * tokens, and the names of the customer and of the person, as far as the conversation tells
 * them (the user label, "my name is …", the person's "Hi Anna,", the person's agent name).
 */
import { authorOf } from '../chat/handoff';
import { AppError } from '../errors';
import { REDACTION_DETECTORS, Redactor } from '../privacy/redaction';
import type { SessionRecord, StoredMessage } from '../store/types';

export interface ArticleDraft {
  title: string;
  body: string;
  /** Where to publish it: `learned/<slug of the title>.md`. */
  source: string;
}

/** Escalations that mean the help center lacked the answer (a request for a person or a failed tool does not). */
const KNOWLEDGE_REASONS = new Set(['not_in_help_center', 'model']);
const TITLE_MAX_CHARS = 160;
const SLUG_MAX_CHARS = 60;

/** Every detector, whatever REDACT says: a published article reaches every customer. */
const storedTextRedaction = new Redactor(REDACTION_DETECTORS);

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** Seven or more digits with the separators phone numbers are written with: +49 30 1234567, (555) 123-4567. */
const PHONE = /(?:\+|\b)\d[\d\s().\/-]{5,}\d\b/g;
/** A word with its joined parts ("ORD-88231", "#10234"), judged by orderNumberShaped. */
const JOINED_WORD = /#?[\p{L}\p{N}]+(?:[-\/][\p{L}\p{N}]+)*/gu;

/** Greetings a person opens a reply with; the word after one is the customer's name when capitalised. */
const SALUTATION = /^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|hallo|hej|liebe[rs]?|sehr geehrte[rs]?|guten (?:tag|morgen|abend)|moin|servus|bonjour|hola)\b[ \t]*([\p{Lu}][\p{L}'-]+)?[ \t]*[,!.]?[ \t]*/iu;
/** How customers name themselves. */
const SELF_NAMING = /\b(?:my name is|i am|i'm|this is|mein name ist|ich heiße|ich heisse|je m'appelle|me llamo)\s+([\p{Lu}][\p{L}'-]+(?:\s+[\p{Lu}][\p{L}'-]+)?)/gu;
/** Lines that are only thanks, a sign-off or a signature. */
const CLOSING_LINE = /^\s*(?:(?:many |best |kind )?(?:thanks|thank you|regards|cheers|best|all the best)|viele grüße|beste grüße|liebe grüße|mit freundlichen grüßen|danke|gruß|grüße)\b.*$/iu;
const CLOSING_SENTENCE = /^(?:(?:let me know|feel free to|is there anything else|hope (?:this|that) helps|thanks for (?:waiting|your patience)|sorry for the wait)\b.*|[\p{Lu}][\p{L}'-]+)$/iu;

/**
 * Drafts an article from a conversation (every message, oldest first). 422 when no question of
 * it was escalated for want of knowledge, or when no person replied after it.
 */
export function draftArticle(session: SessionRecord, messages: readonly StoredMessage[]): ArticleDraft {
  const questions = escalatedQuestions(messages);
  if (questions.length === 0) {
    throw new AppError(422, 'no_escalated_question', 'No question in this conversation was escalated for want of an answer in the help center: there is nothing to draft.');
  }
  const firstAsked = questions[0]!.seq;
  const replies = messages.filter((m) => m.seq > firstAsked && authorOf(m).type === 'human');
  if (replies.length === 0) {
    throw new AppError(422, 'no_person_reply', 'No person has replied in this conversation yet: the draft is written from their answer.');
  }
  const names = namesIn(session, messages);
  const clean = (text: string) => maskNames(redactPersonalData(text), names);
  const title = clean(sentenceCase(questionOnly(questions[0]!.content))).slice(0, TITLE_MAX_CHARS).trim();
  const body = replies.map((r) => clean(withoutSalutationAndClosing(r.content))).filter((text) => text.length > 0).join('\n\n');
  return { title, body, source: `learned/${slug(title)}.md` };
}

/** The customer's messages whose answer was escalated because the help center lacked it, oldest first. */
function escalatedQuestions(messages: readonly StoredMessage[]): StoredMessage[] {
  const questions: StoredMessage[] = [];
  let lastQuestion: StoredMessage | null = null;
  for (const m of messages) {
    if (m.role === 'user') lastQuestion = m;
    const forWantOfKnowledge = m.escalated === true && (m.escalationReason === null || KNOWLEDGE_REASONS.has(m.escalationReason));
    if (m.role === 'assistant' && authorOf(m).type !== 'human' && forWantOfKnowledge && lastQuestion && !questions.includes(lastQuestion)) {
      questions.push(lastQuestion);
    }
  }
  return questions;
}

/** Masks what identifies a person or an order; names are masked afterwards (maskNames). */
export function redactPersonalData(text: string): string {
  return storedTextRedaction
    .redact(text)
    .text.replace(EMAIL, '[e-mail]')
    .replace(PHONE, (match) => ((match.match(/\d/g)?.length ?? 0) >= 7 ? '[phone]' : match))
    .replace(JOINED_WORD, (word) => (orderNumberShaped(word) ? '[order number]' : word));
}

/** "#10234", letters with four or more digits (ORD-88231, A1234567), or five digits and more; not "2026", "30-day" or "500g". */
function orderNumberShaped(word: string): boolean {
  const digits = word.match(/\p{N}/gu)?.length ?? 0;
  if (word.startsWith('#')) return digits > 0;
  return digits >= 5 || (digits >= 4 && /\p{L}/u.test(word));
}

/** The names the conversation tells: the person's, the customer's label, how the customer signs and how the person greets them. */
function namesIn(session: SessionRecord, messages: readonly StoredMessage[]): string[] {
  const names = new Set<string>();
  const add = (name: string | null | undefined) => {
    for (const part of (name ?? '').split(/[\s._@,+-]+/u)) if (/^\p{L}{2,}$/u.test(part)) names.add(part);
  };
  add(session.agentName);
  // A label that is an e-mail address names its owner before the @.
  add(session.userId?.split('@')[0]);
  for (const m of messages) {
    const author = authorOf(m);
    if (author.type === 'human') {
      add(author.name);
      add(SALUTATION.exec(m.content)?.[1]);
    }
    if (m.role === 'user') for (const match of m.content.matchAll(SELF_NAMING)) add(match[1]);
  }
  return [...names];
}

function maskNames(text: string, names: readonly string[]): string {
  let masked = text;
  for (const name of names) {
    masked = masked.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?![\\p{L}\\p{N}])`, 'giu'), '[name]');
  }
  return masked;
}

/** The reply without its greeting line, its thanks and sign-off, and a signature name: what the answer says. */
function withoutSalutationAndClosing(reply: string): string {
  const lines = reply.replace(SALUTATION, '').split('\n');
  while (lines.length > 0 && (lines.at(-1)!.trim() === '' || CLOSING_LINE.test(lines.at(-1)!) || CLOSING_SENTENCE.test(lines.at(-1)!.trim()))) lines.pop();
  return lines.join('\n').trim();
}

/** The question without a greeting or a sentence in which the customer names themself ("Hi, I'm Anna. Do you…?"). */
function questionOnly(text: string): string {
  const sentences = text.replace(/\s+/g, ' ').replace(SALUTATION, '').split(/(?<=[.!?])\s+/);
  const kept = sentences.filter((sentence) => !new RegExp(SELF_NAMING.source, 'u').test(sentence));
  return (kept.length > 0 ? kept : sentences).join(' ').trim();
}

function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function slug(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/\[[^\]]*\]/g, ' ')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];
  const joined = words.join('-').slice(0, SLUG_MAX_CHARS).replace(/-+$/, '');
  return joined.replace(/\p{M}/gu, '') || 'article';
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
