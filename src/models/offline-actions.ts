import type { BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { conversationIdentity } from '../agent/tools/conversation-customer';
import { normalizeOrderId, orderNumberPattern, type OrderNumberFormat } from '../agent/tools/lookup-order';
import { isReadOnlyAction, shopToolFacts } from '../connectors/shop-tool-facts';

/**
 * The offline responder's rule for the shop's own actions, so an operator sees an
 * action work with no model configured:
 *
 * a verified customer's message holds a value matching the shop file's
 * `order_numbers` pattern, and an allowlisted GET operation has exactly one
 * required parameter that is not bound: that operation is called with the value
 * (as the shop writes it, PREFIX-digits), and its answer is quoted.
 *
 * When several operations qualify, the first the agent is offered wins; an
 * operation whose parameter declares a `pattern` the value does not match, or a
 * type other than string, does not qualify.
 */

/** An action the rule may call: its name and the one argument the value goes to. */
export interface OfflineAction {
  name: string;
  argument: string;
  /** The parameter's own `pattern`, when its schema declares one. */
  pattern: RegExp | null;
}

/** The tools offered that the rule may call, in the order they are offered. */
export function offlineActionsOf(tools: readonly BindToolsInput[]): OfflineAction[] {
  return tools.flatMap((tool) => {
    if (!isReadOnlyAction(shopToolFacts(tool))) return [];
    const schema = (tool as { schema?: unknown }).schema as { properties?: Record<string, Record<string, unknown>>; required?: unknown } | undefined;
    const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
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
    return [{ name: (tool as { name: string }).name, argument, pattern }];
  });
}

/**
 * The call the rule makes for this message, or null: no order number in it, no
 * action that takes it, or no verified customer in this conversation.
 */
export function offlineActionCall(
  message: string,
  actions: readonly OfflineAction[],
  format: OrderNumberFormat | null,
  verifiedCustomer: boolean,
): { name: string; args: Record<string, string> } | null {
  if (!format || !verifiedCustomer || actions.length === 0) return null;
  const found = orderNumberPattern(format, false).exec(message)?.[0];
  if (!found) return null;
  const written = normalizeOrderId(found, format) ?? found;
  for (const action of actions) {
    // As the shop writes it; else as the customer typed it, if only that fits the parameter's pattern.
    const value = [written, found.replace(/^#/, '')].find((candidate) => action.pattern === null || action.pattern.test(candidate));
    if (value !== undefined) return { name: action.name, args: { [action.argument]: value } };
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

/**
 * An action's answer as the offline responder quotes it: a JSON object's fields one
 * per line ("status: shipped"), nested values as compact JSON; anything else (a
 * sentence, a cut result) as it came.
 */
export function quoteToolAnswer(name: string, text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  const lines =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.entries(value).map(([key, field]) => `${key}: ${typeof field === 'string' ? field : JSON.stringify(field)}`)
      : [JSON.stringify(value)];
  return `${name} answered:\n${lines.map((line) => `> ${line}`).join('\n')}`;
}
