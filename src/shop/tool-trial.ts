import { ToolMessage } from '@langchain/core/messages';
import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import type { ConversationIdentity } from '../agent/tools/conversation-customer';
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
 * arguments do not fit the tool's schema (bad input: nothing called, nothing recorded).
 */
export async function tryShopTool(options: {
  tool: StructuredToolInterface;
  guard: RecordingNetworkGuard;
  customer: TrialCustomer | null;
  arguments: Record<string, unknown>;
  source: ToolTrialSource;
  recorder: ToolTrialRecorder;
}): Promise<ToolTrial> {
  const record = (sent: Record<string, unknown> | null, bound: string[], outcome: ToolTrialOutcome) =>
    recordToolTrial(options.recorder, { source: options.source, tool: options.tool.name, customer: options.customer, arguments: sent ?? options.arguments, bound, outcome });
  const identity: ConversationIdentity = {
    verifiedCustomerId: options.customer?.id ?? null,
    verifiedCustomerEmail: options.customer?.email ?? null,
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
    if (error instanceof ToolInputParsingException) throw new TrialInputError(`${options.tool.name} does not take these arguments: ${error.message}`);
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
