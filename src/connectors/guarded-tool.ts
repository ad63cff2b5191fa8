import { tool, type StructuredTool } from '@langchain/core/tools';
import type { RunnableConfig } from '@langchain/core/runnables';
import { conversationIdentity, signInHint, type ConversationIdentity } from '../agent/tools/conversation-customer';
import type { TokenCounter } from '../memory/tokens';
import type { BindingSource } from './connector-config';
import type { ConnectorContext } from './connector-context';
import { NetworkGuardError } from './network-guard';
import { SHOP_TOOL_FACTS_KEY, type ShopToolFacts } from './shop-tool-facts';

/** A JSON Schema object describing a tool's arguments (type "object"). */
export type JsonSchemaObject = Record<string, unknown> & { type: 'object'; properties: Record<string, unknown>; required?: string[] };

/** What one call of the shop's system gave. */
export interface CallResult {
  /** The result for the model (JSON as the system sent it), or one plain sentence when `failed`. */
  text: string;
  failed: boolean;
  /** HTTP status, when there was one (MCP over stdio has none). */
  status?: number;
  /** Bytes of the result as received. */
  bytes: number;
  /** The response was longer than the byte cap and was cut while it streamed in. */
  truncatedBytes?: boolean;
  /** Requests made (2 when a GET was retried). */
  attempts?: number;
  /**
   * The arguments as they went out (an action's body after undeclared properties
   * were dropped and the bound ones written); null when nothing was sent (a required
   * argument was missing). Absent: the arguments the call was given.
   */
  sent?: Record<string, unknown> | null;
}

/**
 * What a connector tool's call stores beside its result (the ToolMessage's artifact):
 * the arguments as sent, which of them were filled from the verified customer, and
 * what the model asked for. The chat service writes it into the stored tool call, so
 * the review console shows what the shop's system received, not only the model's wish.
 */
export interface SentToolCall {
  kind: 'sent_tool_call';
  /** The arguments as sent; null when nothing was called (no verified customer, a missing argument). */
  sent_arguments: Record<string, unknown> | null;
  /** Names whose value came from the verified customer, not from the model (a dotted name is a body path). */
  bound: string[];
  /** What the model asked for, as it asked. */
  model_arguments: Record<string, unknown>;
  /** The shop's system failed: it timed out, could not be reached or answered 5xx (the turn escalates as tool_failed). */
  failed?: true;
}

/** Whether a ToolMessage's artifact is a connector's SentToolCall. */
export function isSentToolCall(value: unknown): value is SentToolCall {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'sent_tool_call';
}

/** A tool from the shop's systems, before the shared wrapping. */
export interface GuardedToolSpec {
  name: string;
  description: string;
  /** The arguments the model may send; bound ones are already left out. */
  schema: JsonSchemaObject;
  /** argument -> where its value comes from; filled on the server whatever the model sent. */
  bind: Record<string, BindingSource>;
  timeoutMs: number;
  maxResultTokens: number;
  /** How the call is named in traces: never a header or argument value. */
  trace: { kind: 'action' | 'mcp'; source: string; method?: string };
  /**
   * Makes the call with the bound arguments already filled in. `signal` carries the
   * call's deadline (timeout_ms) and the turn's cancellation. An HTTP error status is
   * a result with `failed` and its sentence; refusals and network failures may throw.
   */
  call(args: Record<string, unknown>, signal: AbortSignal, deadlineMs: number): Promise<CallResult>;
}

/**
 * The most bytes read of one response: enough for max_result_tokens of the most
 * verbose JSON (a token is rarely more than 16 bytes, 4 in English), at least 64 KiB,
 * so a 1 MB body never fully loads.
 */
export function responseByteCap(maxResultTokens: number): number {
  return Math.max(64 * 1024, maxResultTokens * 16);
}

/** Appended when the model is shown only the first max_result_tokens of a result. */
export function cutMarker(maxTokens: number): string {
  return `\n…[cut: the result was longer than ${maxTokens} tokens; this is its beginning only]`;
}

/**
 * The first part of `text` that fits in maxTokens (with the marker), counted with the
 * service's tokenizer. Text that fits is returned as it is.
 */
export function cutToTokens(text: string, maxTokens: number, counter: TokenCounter): { text: string; cut: boolean } {
  if (counter.countText(text) <= maxTokens) return { text, cut: false };
  const marker = cutMarker(maxTokens);
  const budget = Math.max(1, maxTokens - counter.countText(marker));
  // The longest prefix within budget: a binary search over its length in characters.
  let low = 0;
  let high = Math.min(text.length, budget * 16);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (counter.countText(text.slice(0, middle)) <= budget) low = middle;
    else high = middle - 1;
  }
  return { text: text.slice(0, low) + marker, cut: true };
}

/** The sentence the model gets for a bound tool in a conversation without a verified customer. */
export function signInSentence(name: string, identity: Pick<ConversationIdentity, 'sentences'> = {}): string {
  return `This conversation is not signed in to a customer account, so ${name} was not called: it only answers for the signed-in customer. ${signInHint(identity)}`;
}

/** The sentence for a failure that threw (network, refusal), in words the model can pass on. */
export function failureSentence(name: string, error: unknown, timeoutMs: number): string {
  if (error instanceof NetworkGuardError) {
    if (error.reason === 'timeout' || error.reason === 'aborted') return `${name} did not answer within ${timeoutMs} ms, so nothing could be looked up; the shop's system may be busy, try again later.`;
    if (error.reason === 'connection' || error.reason === 'dns') return `${name} could not reach the shop's system, so nothing could be looked up right now.`;
    return `${name} was refused by the service's network rules, so nothing was called.`;
  }
  return `${name} failed, so nothing could be looked up right now.`;
}

/**
 * The one wrapping every tool from the shop's systems gets (actions and MCP tools
 * alike): bound arguments filled from the verified customer (and the sign-in
 * sentence without one), the call under timeout_ms, any failure turned into one plain
 * sentence so the answer still completes, the result redacted as customer messages
 * are and cut to max_result_tokens with a marker, and the call traced as a span
 * (what was called, status, duration, size; never a header or argument value).
 */
export function guardedTool(spec: GuardedToolSpec, ctx: ConnectorContext): StructuredTool {
  const bound = Object.entries(spec.bind);
  return tool(
    async (input: Record<string, unknown>, config?: RunnableConfig) => {
      const identity = conversationIdentity(config);
      let sentArguments: Record<string, unknown> | null = null;
      const boundNames = bound.map(([name]) => name);
      const record = (sent: Record<string, unknown> | null): SentToolCall => ({ kind: 'sent_tool_call', sent_arguments: sent, bound: sent === null ? [] : boundNames, model_arguments: input });
      // What the model sent for a bound argument is never used.
      const args: Record<string, unknown> = { ...input };
      for (const [name] of bound) delete args[name];
      if (bound.length > 0 && !identity.verifiedCustomerId) return [signInSentence(spec.name, identity), record(null)];
      for (const [name, source] of bound) {
        const value = source === 'customer.id' ? identity.verifiedCustomerId : (identity.verifiedCustomerEmail ?? null);
        if (!value) return [`The signed-in customer's e-mail address is not known to this service, so ${spec.name} was not called.`, record(null)];
        args[name] = value;
      }
      let failed = false;
      const text = await ctx.tracing.observe(`${spec.trace.kind} ${spec.name}`, 'span', { source: spec.trace.source, operation: spec.name, method: spec.trace.method }, async (span) => {
        const startedAt = performance.now();
        const deadline = AbortSignal.timeout(spec.timeoutMs);
        const signal = config?.signal ? AbortSignal.any([config.signal, deadline]) : deadline;
        let result: CallResult;
        // Until the call says otherwise, what it was given is what went out.
        sentArguments = args;
        try {
          result = await spec.call(args, signal, Date.now() + spec.timeoutMs);
          if (result.sent !== undefined) sentArguments = result.sent;
        } catch (error) {
          // A turn that was cancelled stops here; anything else is one sentence for the model.
          if (config?.signal?.aborted) throw error;
          const timedOut = deadline.aborted;
          const failure = timedOut ? failureSentence(spec.name, new NetworkGuardError('timeout', '', ''), spec.timeoutMs) : failureSentence(spec.name, error, spec.timeoutMs);
          // The shop's own sentence, in the customer's language, for the model to pass on.
          const text = identity.sentences ? `${failure} Tell the customer, in these words: "${identity.sentences.tool_failure}"` : failure;
          // No error message in the log: a URL there can carry a bound customer id.
          const reason = timedOut ? 'timeout' : error instanceof NetworkGuardError ? error.reason : (error as Error)?.name ?? 'error';
          ctx.logger.warn({ tool: spec.name, source: spec.trace.source, reason }, `${spec.trace.kind === 'action' ? 'Action' : 'MCP tool'} ${spec.name} failed (${reason})`);
          result = { text, failed: true, bytes: 0 };
          failed = true;
        }
        // The system itself failing (5xx) is a failure too; a 404 or a refusal is an answer the model can give.
        if (result.status !== undefined && result.status >= 500) failed = true;
        const redacted = ctx.redactor.redact(result.text).text;
        let shown = result.failed ? { text: redacted, cut: false } : cutToTokens(redacted, spec.maxResultTokens, ctx.tokenCounter);
        // Cut while it streamed in (the byte cap) but short in tokens: still say it is a part.
        if (result.truncatedBytes && !shown.cut) shown = { text: shown.text + cutMarker(spec.maxResultTokens), cut: true };
        span.update({
          ...(result.failed && { level: 'WARNING' as const, statusMessage: result.text }),
          metadata: {
            operation: spec.name,
            source: spec.trace.source,
            ...(spec.trace.method && { method: spec.trace.method }),
            status: result.status ?? (result.failed ? 'failed' : 'ok'),
            duration_ms: Math.round(performance.now() - startedAt),
            bytes: result.bytes,
            attempts: result.attempts ?? 1,
            cut: shown.cut || (result.truncatedBytes ?? false),
          },
        });
        return shown.text;
      });
      return [text, { ...record(sentArguments), ...(failed ? { failed: true as const } : {}) }];
    },
    {
      name: spec.name,
      description: spec.description,
      schema: spec.schema,
      // The artifact (what was sent) reaches the ToolMessage; a direct invoke still returns the text alone.
      responseFormat: 'content_and_artifact',
      // What the tool is, for those who list or choose tools without calling them (shop-tool-facts.ts).
      metadata: { [SHOP_TOOL_FACTS_KEY]: { kind: spec.trace.kind, source: spec.trace.source, method: spec.trace.method ?? null, bound: spec.bind } satisfies ShopToolFacts },
    },
  ) as unknown as StructuredTool;
}
