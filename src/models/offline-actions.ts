import type { BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { conversationIdentity, type CustomerSentences } from '../agent/tools/conversation-customer';
import { normalizeOrderId, orderNumberPattern, type OrderNumberFormat } from '../agent/tools/lookup-order';
import type { AnswerFields, AnswerLabel } from '../connectors/connector-config';
import { isReadOnlyAction, shopToolFacts } from '../connectors/shop-tool-facts';
import type { ToolOutcome } from '../connectors/guarded-tool';
import { foldDecimalDigits } from '../knowledge/language/digits';

/**
 * The offline responder's rule for the shop's own actions, so an operator sees an
 * action work with no model configured:
 *
 * the customer's message holds a value matching the shop file's `order_numbers`
 * pattern, and an allowlisted GET operation has exactly one required parameter
 * that is neither bound nor a guest proof: that operation is called with the value
 * (as the shop writes it, PREFIX-digits), and its answer is written as a sentence.
 * A verified customer may call an operation without guest_proof; anyone may call
 * one with guest_proof when every proof is found in the conversation (an e-mail
 * address, a postcode), the order number then also from an earlier message.
 *
 * When several operations qualify, the first the agent is offered wins; an
 * operation whose parameter declares a `pattern` the value does not match, or a
 * type other than string, does not qualify.
 */

/** A proof the responder can find in a customer's words. */
type ProofKind = 'email' | 'postcode';

/** An action the rule may call: its name and the one argument the value goes to. */
export interface OfflineAction {
  name: string;
  argument: string;
  /** The parameter's own `pattern`, when its schema declares one. */
  pattern: RegExp | null;
  /** Its guest_proof arguments and what each is; empty: only a verified customer's messages call it. */
  proofs: Array<{ name: string; kind: ProofKind }>;
}

/** An e-mail address in a message (the proof of an anonymous order lookup). */
const EMAIL_IN_TEXT = /[^\s@<>()[\],;:"']+@[^\s@<>()[\],;:"']+\.[a-z]{2,}/i;

/**
 * A postcode, where the customer names it ("postcode T12 RX38", "zip: 40121",
 * "post code is 80-831", "PLZ 10115"): one or two groups of letters and digits, the
 * second with a digit in it, so a following word is not taken for part of it.
 */
const POSTCODE_IN_TEXT = /\b(?:post\s?code|postal\s+code|zip(?:\s?code)?|eircode|plz|postleitzahl)\b(?:\s+is)?\s*:?\s*([a-z0-9]{2,5}(?:[\s-](?=[a-z]*\d)[a-z0-9]{2,4})?)\b/i;

/** The e-mail address and postcode a customer's message gives (digits of any script folded), each when present. */
export function proofsInText(typed: string): { email?: string; postcode?: string } {
  const text = foldDecimalDigits(typed);
  const email = EMAIL_IN_TEXT.exec(text)?.[0].replace(/[.]+$/, '');
  const postcode = POSTCODE_IN_TEXT.exec(text)?.[1];
  return { ...(email && { email }), ...(postcode && { postcode }) };
}

/** What kind of proof a guest_proof argument asks for, from its name or format; null: one the responder cannot find in words. */
function proofKindOf(name: string, property: Record<string, unknown>): ProofKind | null {
  if (property.format === 'email' || /e-?mail/i.test(name)) return 'email';
  if (/post.?code|postal|zip|plz/i.test(name)) return 'postcode';
  return null;
}

/** The tools offered that the rule may call, in the order they are offered. */
export function offlineActionsOf(tools: readonly BindToolsInput[]): OfflineAction[] {
  return tools.flatMap((tool) => {
    const facts = shopToolFacts(tool);
    if (!isReadOnlyAction(facts)) return [];
    const schema = (tool as { schema?: unknown }).schema as { properties?: Record<string, Record<string, unknown>>; required?: unknown } | undefined;
    const guestProof = facts?.guest_proof ?? [];
    const proofs = guestProof.map((name) => ({ name, kind: proofKindOf(name, schema?.properties?.[name] ?? {}) }));
    // A proof it could not find in the conversation: the responder never calls the operation.
    if (proofs.some((p) => p.kind === null)) return [];
    const required = (Array.isArray(schema?.required) ? (schema.required as string[]) : []).filter((name) => !guestProof.includes(name));
    if (required.length !== 1) return [];
    const argument = required[0]!;
    const property = schema?.properties?.[argument] ?? {};
    const type = property.type;
    if (type !== undefined && type !== 'string' && !(Array.isArray(type) && type.includes('string'))) return [];
    let pattern: RegExp | null = null;
    if (typeof property.pattern === 'string') {
      try {
        pattern = new RegExp(property.pattern, 'u');
      } catch {
        return [];
      }
    }
    return [{ name: (tool as { name: string }).name, argument, pattern, proofs: proofs as OfflineAction['proofs'] }];
  });
}

/** What the customer said: this turn's message and their earlier messages, oldest first. */
export interface CustomerWords {
  message: string;
  earlier?: readonly string[];
}

/**
 * The call the rule makes for this turn, or null: no order number (nor, for a
 * guest, a proof) in this message, no action that takes it, or no verified customer
 * and no action whose proofs the conversation gives.
 */
export function offlineActionCall(
  words: CustomerWords,
  actions: readonly OfflineAction[],
  format: OrderNumberFormat | null,
  verifiedCustomer: boolean,
): { name: string; args: Record<string, string> } | null {
  if (!format || actions.length === 0) return null;
  const newestFirst = [words.message, ...[...(words.earlier ?? [])].reverse()];
  const orderIn = (text: string) => orderNumberPattern(format, false).exec(foldDecimalDigits(text))?.[0];
  const proofsNow = proofsInText(words.message);
  const thisTurn = orderIn(words.message);
  // This turn names the order or gives a proof; what it leaves out may come from the customer's earlier messages.
  const found = thisTurn ?? (proofsNow.email || proofsNow.postcode ? newestFirst.map(orderIn).find(Boolean) : undefined);
  if (!found) return null;
  const proofs: { email?: string; postcode?: string } = {};
  for (const text of [...newestFirst].reverse()) Object.assign(proofs, proofsInText(text));
  const written = normalizeOrderId(found, format) ?? found;
  for (const action of actions) {
    if (action.proofs.length === 0 ? !verifiedCustomer || !thisTurn : action.proofs.some((p) => !proofs[p.kind])) continue;
    // As the shop writes it; else as the customer typed it, if only that fits the parameter's pattern.
    const value = [written, found.replace(/^#/, '')].find((candidate) => action.pattern === null || action.pattern.test(candidate));
    if (value === undefined) continue;
    return { name: action.name, args: { [action.argument]: value, ...Object.fromEntries(action.proofs.map((p) => [p.name, proofs[p.kind]!])) } };
  }
  return null;
}

/**
 * Whether the conversation being answered has a verified customer. The model is
 * called inside the graph's run, whose configuration (with the conversation's
 * identity) LangChain keeps for the duration of the run.
 */
export function runHasVerifiedCustomer(): boolean {
  return Boolean(conversationIdentity(AsyncLocalStorageProviderSingleton.getRunnableConfig()).verifiedCustomerId);
}

/** The shop's sentences for this conversation's customer, in their language; null in a run without them (a tool called directly). */
export function runSentences(): CustomerSentences | null {
  return conversationIdentity(AsyncLocalStorageProviderSingleton.getRunnableConfig()).sentences ?? null;
}

/** Each tool of the shop's systems offered, with the fields its answer is read from (null: every scalar field). */
export function answerFieldsOf(tools: readonly BindToolsInput[]): Record<string, AnswerFields | null> {
  return Object.fromEntries(tools.flatMap((tool) => {
    const facts = shopToolFacts(tool);
    return facts ? [[(tool as { name: string }).name, facts.answer ?? null]] : [];
  }));
}

/** What the customer reads for a call of the shop's systems that gave no answer: the shop's sentence for what came of it. */
export function outcomeSentence(outcome: Exclude<ToolOutcome, 'answered'>, sentences: CustomerSentences): string {
  switch (outcome) {
    case 'not_found':
      return sentences.order_not_found;
    case 'sign_in':
      return sentences.sign_in;
    case 'proof_limited':
      return sentences.proof_limited;
    case 'failed':
    case 'not_sent':
      return sentences.tool_failure;
  }
}

/** At most this many fields are read out of one record when the shop file names none. */
const MAX_FIELDS_READ = 8;
/** At most this many records of a list (a customer's orders) are read out. */
const MAX_RECORDS_READ = 5;

/**
 * An answer of the shop's systems as short sentences in the customer's language:
 * the fields the shop file names (`answer`), each with its label and its value's
 * word in that language, or else every scalar field (nested ones too) with a label
 * made from its name. An answer whose fields are all lists (`{orders: [...]}`), or a
 * list itself, is read one record a sentence. Dates (ISO 8601) are written for the
 * language's locale, numbers too. Null when the answer is not JSON; '' when it is
 * JSON with nothing to read (an empty list).
 */
export function describeAnswer(text: string, fields: AnswerFields | null, language: string): string | null {
  const data = parseAnswer(text);
  if (data === null) return null;
  const sentence = (record: Record<string, unknown>) => describeRecord(record, fields, language);
  const whole = isRecord(data) ? sentence(data) : '';
  if (whole !== '') return whole;
  const list = Array.isArray(data) ? data : isRecord(data) ? Object.values(data).find(Array.isArray) ?? [] : [];
  return list.filter(isRecord).slice(0, MAX_RECORDS_READ).map(sentence).filter((s) => s !== '').join('\n');
}

/** One record as `label: value` pairs in one sentence; '' when it has none of the fields. */
function describeRecord(data: Record<string, unknown>, fields: AnswerFields | null, language: string): string {
  const read: Array<[string, string]> = [];
  if (fields) {
    for (const [path, field] of Object.entries(fields)) {
      const value = path.split('.').reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), data);
      if (!isScalar(value)) continue;
      const word = field.values?.[String(value)];
      read.push([labelIn(field.label, language) ?? readableLabel(path.split('.').at(-1)!), word ? labelIn(word, language)! : formatValue(value, language)]);
    }
  } else {
    for (const [key, value] of scalarFields(data).slice(0, MAX_FIELDS_READ)) read.push([readableLabel(key), formatValue(value, language)]);
  }
  return read.length === 0 ? '' : `${read.map(([label, value]) => `${label}: ${value}`).join('; ')}.`;
}

/** A JSON answer; a cut object (the byte cap) read leniently, its string fields only. */
function parseAnswer(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) || Array.isArray(value) ? value : null;
  } catch {
    return text.trimStart().startsWith('{') ? readStringFields(text) : null;
  }
}

/** The first value of each "key": "value" pair in a JSON text, even a cut one. */
export function readStringFields(json: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, key, value] of json.matchAll(/"(\w+)":\s*"((?:[^"\\]|\\.)*)"/g)) {
    if (!(key! in fields)) fields[key!] = value!.replaceAll('\\"', '"');
  }
  return fields;
}

/** Every scalar field, depth first, nested objects included and lists left out. */
function scalarFields(data: Record<string, unknown>): Array<[string, string | number | boolean]> {
  return Object.entries(data).flatMap(([key, value]): Array<[string, string | number | boolean]> => {
    if (isScalar(value)) return [[key, value]];
    return isRecord(value) ? scalarFields(value) : [];
  });
}

/** A label in the language, else in the first language it has (a word is better than a field name). */
function labelIn(label: AnswerLabel | undefined, language: string): string | undefined {
  if (label === undefined || typeof label === 'string') return label;
  return label[language] ?? Object.values(label)[0];
}

/** A field's name as words: "shipped_at" and "shippedAt" read "Shipped at". */
export function readableLabel(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.$]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A value as the customer reads it: dates and numbers for the language's locale, anything else as it is. */
export function formatValue(value: string | number | boolean, language: string): string {
  const locale = safeLocale(language);
  if (typeof value === 'number') return new Intl.NumberFormat(locale).format(value);
  if (typeof value !== 'string') return String(value);
  const trimmed = value.trim();
  if (ISO_DATE.test(trimmed) && !Number.isNaN(Date.parse(`${trimmed}T00:00:00Z`))) {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${trimmed}T00:00:00Z`));
  }
  if (ISO_DATE_TIME.test(trimmed) && !Number.isNaN(Date.parse(trimmed))) {
    // No time zone of the customer's is known: the time is written in UTC, and says so.
    return new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' }).format(new Date(trimmed));
  }
  return value;
}

/** The language as a locale Intl accepts; English for a code it does not. */
function safeLocale(language: string): string {
  try {
    return Intl.getCanonicalLocales(language)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

function isScalar(value: unknown): value is string | number | boolean {
  return (typeof value === 'string' && value.trim() !== '') || typeof value === 'number' || typeof value === 'boolean';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
