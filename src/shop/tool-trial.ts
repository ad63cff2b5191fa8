import { ToolMessage } from '@langchain/core/messages';
import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import type { ConversationIdentity, CustomerSentences } from '../agent/tools/conversation-customer';
import { isSentToolCall } from '../connectors/guarded-tool';
import type { RecordingNetworkGuard, SentRequest } from '../connectors/recording-guard';
import type { NewToolTrial, ToolTrialOutcome, ToolTrialSource } from '../privacy/customer-data';

/** Who the trial calls the tool as: a verified customer (the customer token's `sub`, and its `email` claim), or nobody (anonymous). */
export interface TrialCustomer {
  id: string;
  email?: string | null;
}

/** What one trial of a tool did: what it sent, and what the model would have received. */
export interface ToolTrial {
  tool: string;
  /** The verified customer it ran as; null: an anonymous conversation. */
  customer: string | null;
  /** The arguments as given (as the model would send them; bound ones are filled on the server). */
  arguments: Record<string, unknown>;
  /** The requests that left the service, header values hidden (none over stdio, or when the tool refused). */
  sent: SentRequest[];
  /** Exactly what the model would read: redacted, cut to max_result_tokens, or the one sentence of a failure. */
  received: string;
}

/** Where tool trials are recorded (CustomerDataStore): every trial, whoever tried it and however it ended. */
export interface ToolTrialRecorder {
  recordToolTrial(trial: NewToolTrial): Promise<number>;
}

/** Arguments the tool's schema refuses: nothing was called. */
export class TrialInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Calls one of the shop's tools exactly as a conversation of that customer would:
 * the same wrapped tool the agents are offered (binding from the verified customer,
 * the shop file's headers, the network guard, timeout, redaction, the token cap),
 * with the run's identity set as the chat service sets it, and records the trial
 * (recordToolTrial: the tool, the customer, the arguments as sent with the bound ones
 * named, how it ended, where it came from). Throws TrialInputError when the
 * arguments do not fit the tool's schema, naming each argument, what it expects and
 * the value given (bad input: nothing called, nothing recorded).
 */
export async function tryShopTool(options: {
  tool: StructuredToolInterface;
  guard: RecordingNetworkGuard;
  customer: TrialCustomer | null;
  arguments: Record<string, unknown>;
  source: ToolTrialSource;
  recorder: ToolTrialRecorder;
  /** The shop's sentences a refusal passes on (its `sign_in`), as a conversation in that language gets them; absent: the built-in English hint. */
  sentences?: CustomerSentences;
}): Promise<ToolTrial> {
  const record = (sent: Record<string, unknown> | null, bound: string[], outcome: ToolTrialOutcome) =>
    recordToolTrial(options.recorder, { source: options.source, tool: options.tool.name, customer: options.customer, arguments: sent ?? options.arguments, bound, outcome });
  const identity: ConversationIdentity = {
    verifiedCustomerId: options.customer?.id ?? null,
    verifiedCustomerEmail: options.customer?.email ?? null,
    ...(options.sentences && { sentences: options.sentences }),
    sessionId: 'tool-trial',
    clientAddress: null,
    stopTurn: (error) => {
      throw error;
    },
  };
  let recorded: { value: unknown; sent: SentRequest[] };
  try {
    // Called as a tool call, so the result carries what was sent (the connectors' artifact).
    const call = { id: 'tool-trial', name: options.tool.name, args: options.arguments, type: 'tool_call' as const };
    recorded = await options.guard.record(() => options.tool.invoke(call, { configurable: { identity } }));
  } catch (error) {
    // Bad input (400, exit 1) changes nothing: the tool was not called, so there is nothing to record.
    if (error instanceof ToolInputParsingException) {
      const problems = argumentProblems(options.tool.schema, options.arguments);
      throw new TrialInputError(`${options.tool.name} does not take these arguments: ${problems.length > 0 ? problems.join('; ') : error.message}`);
    }
    await record(null, [], { outcome: 'error', errorCode: 'tool_failed' });
    throw error;
  }
  const message = ToolMessage.isInstance(recorded.value) ? recorded.value : null;
  const content = message ? message.content : recorded.value;
  const received = typeof content === 'string' ? content : JSON.stringify(content);
  const artifact = isSentToolCall(message?.artifact) ? message.artifact : null;
  if (artifact?.sent_arguments === null) {
    // The tool called nothing: no verified customer for a bound argument, or a required one missing.
    await record(null, [], { outcome: 'refused', errorCode: options.customer ? 'not_called' : 'not_signed_in' });
  } else {
    await record(artifact?.sent_arguments ?? null, artifact?.bound ?? [], artifact?.failure ? { outcome: 'error', errorCode: artifact.failure } : { outcome: 'ok' });
  }
  return { tool: options.tool.name, customer: options.customer?.id ?? null, arguments: options.arguments, sent: recorded.sent, received };
}

/** Records a trial that was refused or ran (tryShopTool records its own; the console records the tools it refuses to try). */
export function recordToolTrial(
  recorder: ToolTrialRecorder,
  trial: { source: ToolTrialSource; tool: string; customer: TrialCustomer | null; arguments: Record<string, unknown>; bound: string[]; outcome: ToolTrialOutcome },
): Promise<number> {
  return recorder.recordToolTrial({ source: trial.source, tool: trial.tool, customerId: trial.customer?.id ?? null, arguments: trial.arguments, bound: trial.bound, ...trial.outcome });
}

/**
 * `key=value` pairs from a command line as a tool's arguments: a value stays text
 * where the tool's schema says string (an order number "2041" is not a number),
 * and is read as JSON elsewhere when it parses (5, true, {"reason": "late"}).
 */
export function argumentsFromPairs(pairs: readonly string[], tool: StructuredToolInterface): Record<string, unknown> {
  const properties = ((tool.schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {}) as Record<string, { type?: unknown }>;
  const args: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new TrialInputError(`"${pair}" is not key=value`);
    const key = pair.slice(0, at);
    const text = pair.slice(at + 1);
    const type = properties[key]?.type;
    const isText = type === 'string' || (Array.isArray(type) && type.length > 0 && type.every((t) => t === 'string' || t === 'null'));
    if (isText) {
      args[key] = text;
      continue;
    }
    try {
      args[key] = JSON.parse(text);
    } catch {
      args[key] = text;
    }
  }
  return args;
}

/**
 * Why arguments do not fit a tool's JSON schema, one line per argument that names it,
 * what it expects and the value given: `orderId: expected a string matching
 * ^[0-9]{5}$, got "kw10234"`. Covers what the shop's documents use (type, pattern,
 * enum, lengths, bounds, required, unknown names, nested objects and lists); empty
 * when none of these is broken.
 */
export function argumentProblems(schema: unknown, args: Record<string, unknown>): string[] {
  return problemsAt(schema, args, '');
}

function problemsAt(schema: unknown, value: unknown, at: string): string[] {
  if (!isRecord(schema)) return [];
  const name = at || 'the arguments';
  const wrong = () => [`${name}: expected ${expectation(schema)}, got ${shown(value)}`];
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length > 0 && !types.some((type) => hasType(value, type))) return wrong();
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) return wrong();
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !safeTest(schema.pattern, value)) return wrong();
    if ((typeof schema.minLength === 'number' && [...value].length < schema.minLength) || (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength)) return wrong();
  }
  if (typeof value === 'number') {
    const below = (typeof schema.minimum === 'number' && value < schema.minimum) || (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum);
    const above = (typeof schema.maximum === 'number' && value > schema.maximum) || (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum);
    if (below || above) return wrong();
  }
  const problems: string[] = [];
  if (Array.isArray(value)) value.forEach((item, i) => problems.push(...problemsAt(schema.items, item, `${name}[${i}]`)));
  if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const child = (key: string) => (at ? `${at}.${key}` : key);
    for (const key of Array.isArray(schema.required) ? schema.required : []) {
      if (typeof key === 'string' && value[key] === undefined) problems.push(`${child(key)}: required, but not given`);
    }
    for (const [key, item] of Object.entries(value)) {
      if (Object.hasOwn(properties, key)) problems.push(...problemsAt(properties[key], item, child(key)));
      else if (schema.additionalProperties === false) problems.push(`${child(key)}: not an argument of this tool (it takes ${Object.keys(properties).join(', ') || 'none'})`);
    }
  }
  return problems;
}

/** What a schema expects, in words: "a string matching ^[0-9]{5}$", "an integer from 1 to 10", "one of "a", "b"". */
function expectation(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`;
  const types = (Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : []).filter((t) => t !== 'null');
  const words: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', object: 'an object', array: 'a list' };
  const parts = [types.map((t) => words[t as string] ?? String(t)).join(' or ') || 'a value'];
  if (typeof schema.pattern === 'string') parts.push(`matching ${schema.pattern}`);
  if (typeof schema.format === 'string') parts.push(`in the format ${schema.format}`);
  const range = (low: unknown, high: unknown, unit: string) => {
    if (typeof low === 'number' && typeof high === 'number') return `of ${low} to ${high}${unit}`;
    if (typeof low === 'number') return `of at least ${low}${unit}`;
    if (typeof high === 'number') return `of at most ${high}${unit}`;
    return null;
  };
  parts.push(range(schema.minLength, schema.maxLength, ' characters') ?? '');
  parts.push(range(schema.minimum, schema.maximum, '') ?? '');
  if (typeof schema.exclusiveMinimum === 'number') parts.push(`above ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === 'number') parts.push(`below ${schema.exclusiveMaximum}`);
  if (Array.isArray(schema.type) && schema.type.includes('null')) parts.push('(or null)');
  return parts.filter((part) => part !== '').join(' ');
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true;
  }
}

/** A document's pattern that JavaScript cannot compile is not held against the value. */
function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true;
  }
}

/** The value as given, short: JSON, cut at 80 characters. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
