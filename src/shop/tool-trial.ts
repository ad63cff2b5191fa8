import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import type { ConversationIdentity } from '../agent/tools/conversation-customer';
import type { RecordingNetworkGuard, SentRequest } from '../connectors/recording-guard';

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
 * with the run's identity set as the chat service sets it. Throws TrialInputError
 * when the arguments do not fit the tool's schema.
 */
export async function tryShopTool(options: {
  tool: StructuredToolInterface;
  guard: RecordingNetworkGuard;
  customer: TrialCustomer | null;
  arguments: Record<string, unknown>;
}): Promise<ToolTrial> {
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
    recorded = await options.guard.record(() => options.tool.invoke(options.arguments, { configurable: { identity } }));
  } catch (error) {
    if (error instanceof ToolInputParsingException) throw new TrialInputError(`${options.tool.name} does not take these arguments: ${error.message}`);
    throw error;
  }
  const received = typeof recorded.value === 'string' ? recorded.value : JSON.stringify(recorded.value);
  return { tool: options.tool.name, customer: options.customer?.id ?? null, arguments: options.arguments, sent: recorded.sent, received };
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
