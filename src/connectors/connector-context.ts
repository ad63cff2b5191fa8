import type { OrderProofs } from '../identity/order-proofs';
import type { TokenCounter } from '../memory/tokens';
import type { Logger } from '../observability/logger';
import type { Tracing } from '../observability/langfuse';
import type { Redactor } from '../privacy/redaction';
import type { NetworkGuard } from './network-guard';
import type { ShopFileProblem } from './connector-config';

/** What the connectors need from the service to build the shop's tools. */
export interface ConnectorContext {
  /** The shop file's folder: a relative `openapi:` path is read from here. */
  shopFileDir: string;
  /** Where `${VAR}` in headers and env values is looked up (process.env in the service). */
  env: Readonly<Record<string, string | undefined>>;
  /** Every request to the shop's systems goes through it. */
  guard: NetworkGuard;
  /** Applied to every result before the model sees it (REDACT), as to customer messages. */
  redactor: Redactor;
  /** Counts max_result_tokens as every other token in the service is counted. */
  tokenCounter: TokenCounter;
  logger: Logger;
  /** Each call as a span of the request's trace (NO_TRACING when off). */
  tracing: Tracing;
  /** Limits a guest's tries of an action with guest_proof (the order-proof limit); without it, guests call no such action. */
  orderProofs?: OrderProofs;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The service's own secrets (src/config.ts): a shop file may not send them to the
 * APIs and servers it names. The shop file is trusted configuration, but a copied
 * example or a careless edit must not hand the agent key or the database to a third party.
 */
export const SERVICE_SECRETS: ReadonlySet<string> = new Set([
  'AGENT_API_KEY',
  'DATABASE_URL',
  'SUPABASE_SERVICE_ROLE_KEY',
  'SESSION_TOKEN_SECRET',
  'SESSION_TOKEN_SECRET_PREVIOUS',
  'CUSTOMER_IDENTITY_SECRET',
  'CUSTOMER_PSEUDONYM_SECRET',
  'OPENAI_API_KEY',
  'METRICS_TOKEN',
  'LANGFUSE_SECRET_KEY',
]);

/**
 * A header or env value with each `${VAR}` replaced from the environment. An unset
 * (or empty) variable is a problem at `path`, so a missing secret stops the start
 * instead of sending "Bearer " to the shop's API; so is one of SERVICE_SECRETS.
 */
export function expandVariables(value: string, env: ConnectorContext['env'], path: string, problems: ShopFileProblem[]): string {
  return value.replace(VARIABLE, (_whole, name: string) => {
    if (SERVICE_SECRETS.has(name)) {
      problems.push({ path, message: `\${${name}} is one of the service's own secrets: a shop file may not send it to another system (give the shop's API its own variable)` });
      return '';
    }
    const found = env[name];
    if (found === undefined || found === '') {
      problems.push({ path, message: `\${${name}} is not set in the environment` });
      return '';
    }
    return found;
  });
}

/** Every value of a record expanded, problems at `<path>.<key>`. */
export function expandRecord(
  values: Record<string, string>,
  env: ConnectorContext['env'],
  path: string,
  problems: ShopFileProblem[],
): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expandVariables(value, env, `${path}.${key}`, problems)]));
}
