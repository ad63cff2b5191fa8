import type { StructuredTool } from '@langchain/core/tools';
import { ShopFileError, type ActionConfig, type ShopFileProblem } from './connector-config';
import { expandRecord, type ConnectorContext } from './connector-context';
import { guardedTool, responseByteCap, type CallResult } from './guarded-tool';
import { NetworkGuardError } from './network-guard';
import {
  bodyPathOf,
  jsonSizeUpTo,
  operationArguments,
  parseOpenApiDocument,
  readOpenApiText,
  schemaAt,
  TOOL_SCHEMA_MAX_BYTES,
  type OpenApiDocument,
  type OpenApiOperation,
} from './openapi-document';
import type { Logger } from '../observability/logger';

/** Statuses after which a GET is tried once more: the server asked for it or was briefly away. */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
/** The wait before that second try. */
export const RETRY_WAIT_MS = 300;

/**
 * The shop's actions as tools: for each `actions[]` entry its OpenAPI document is
 * read (a file beside the shop file, or a URL through the guard), and each
 * allowlisted operation becomes a tool named by its operationId, described by its
 * summary and description, with the operation's parameters and JSON body (less the
 * bound ones) as arguments. Calls go through the guard and the shared wrapping
 * (guardedTool): bound parameters from the verified customer, timeout, retry of a
 * GET once on 429/502/503/504, one plain sentence on failure, redaction, the cap on
 * tokens and a trace span.
 *
 * Throws ShopFileError, every problem with its path (`actions[0].operations[1]`):
 * an unreadable document, an operationId not in it, a write not in allow_writes,
 * allow_writes naming an operation not in operations, a bind that matches no
 * parameter, an unset `${VAR}`, a server the guard refuses (private without
 * allow_private_network; a metadata address always), a tool schema over
 * TOOL_SCHEMA_MAX_BYTES (32 KB of JSON).
 */
export async function loadActionTools(actions: ActionConfig[], ctx: ConnectorContext): Promise<StructuredTool[]> {
  const problems: ShopFileProblem[] = [];
  const tools: StructuredTool[] = [];
  const toolOwners = new Map<string, string>();
  for (const [index, action] of actions.entries()) {
    const at = `actions[${index}]`;
    const headers = expandRecord(action.headers, ctx.env, `${at}.headers`, problems);
    action.allow_writes.forEach((name, k) => {
      if (!action.operations.includes(name)) problems.push({ path: `${at}.allow_writes[${k}]`, message: `"${name}" is not in operations; list it there too` });
    });

    let document: OpenApiDocument;
    let documentUrl: string | null;
    try {
      const read = await readOpenApiText(action.openapi, ctx.shopFileDir, ctx.guard, action.allow_private_network);
      documentUrl = read.baseUrl;
      document = parseOpenApiDocument(read.text);
    } catch (error) {
      problems.push({ path: `${at}.openapi`, message: `cannot read the OpenAPI document ${action.openapi}: ${(error as Error).message}` });
      continue;
    }

    const baseUrl = await checkedBaseUrl(action, document, documentUrl, ctx, at, problems);
    const bound = new Set(Object.keys(action.bind));
    const boundUsed = new Set<string>();
    const proofsUsed = new Set<string>();
    action.guest_proof.forEach((name, k) => {
      if (bound.has(name)) problems.push({ path: `${at}.guest_proof[${k}]`, message: `"${name}" is also in bind: a guest gives a proof, a bound value comes from the signed-in customer` });
    });
    let everyOperationFound = true;
    for (const [k, operationId] of action.operations.entries()) {
      const path = `${at}.operations[${k}]`;
      const operation = document.operations.get(operationId);
      if (!operation) {
        problems.push({ path, message: `no operation with operationId "${operationId}" in ${action.openapi}` });
        everyOperationFound = false;
        continue;
      }
      if (operation.method !== 'GET' && !action.allow_writes.includes(operationId)) {
        problems.push({ path, message: `${operationId} is a ${operation.method}: only GET operations are called unless listed under allow_writes` });
        continue;
      }
      const owner = toolOwners.get(operationId);
      if (owner) {
        problems.push({ path, message: `a tool named "${operationId}" already comes from ${owner}` });
        continue;
      }
      toolOwners.set(operationId, path);
      for (const name of bound) if (takes(operation, name)) boundUsed.add(name);
      const proofs = action.guest_proof.filter((name) => takes(operation, name));
      for (const name of proofs) proofsUsed.add(name);
      if (proofs.length > 0 && [...bound].some((name) => takes(operation, name))) {
        problems.push({ path, message: `${operationId} takes guest_proof values and bound ones: a guest cannot give the bound ones, so it could never call it` });
        continue;
      }
      // Every call sends the schema to the model; a document whose references multiply is a mistake, not a tool.
      const { schema } = operationArguments(operation, new Set([...bound].filter((name) => takes(operation, name))));
      if (jsonSizeUpTo(schema, TOOL_SCHEMA_MAX_BYTES) > TOOL_SCHEMA_MAX_BYTES) {
        problems.push({ path, message: `${operationId}'s arguments take more than ${TOOL_SCHEMA_MAX_BYTES / 1024} KB of JSON schema (references that multiply?): simplify its parameters or request body` });
        continue;
      }
      if (baseUrl !== null) tools.push(actionTool(action, operation, baseUrl, headers, ctx));
    }
    // A bind no operation takes is a misspelt name (an operation that is missing may be the one that takes it).
    for (const name of everyOperationFound ? bound : []) {
      if (!boundUsed.has(name)) {
        const what = bodyPathOf(name) ? `a request body property at ${name}` : `a parameter or body property "${name}"`;
        problems.push({ path: `${at}.bind.${name}`, message: `no listed operation has ${what}` });
      }
    }
    action.guest_proof.forEach((name, k) => {
      if (everyOperationFound && !proofsUsed.has(name)) problems.push({ path: `${at}.guest_proof[${k}]`, message: `no listed operation has a parameter or body property "${name}"` });
    });
  }
  if (problems.length > 0) throw new ShopFileError(problems);
  for (const t of tools) ctx.logger.debug({ tool: t.name }, 'Action ready');
  return tools;
}

/** The action's base URL (base_url, else the document's first server), refused when the guard would refuse it. */
async function checkedBaseUrl(
  action: ActionConfig,
  document: OpenApiDocument,
  documentUrl: string | null,
  ctx: ConnectorContext,
  at: string,
  problems: ShopFileProblem[],
): Promise<string | null> {
  const path = `${at}.base_url`;
  const from = action.base_url ? 'base_url' : "the document's first server";
  let base = action.base_url ?? document.servers[0];
  if (base === undefined) {
    problems.push({ path, message: `${action.openapi} names no server: set base_url` });
    return null;
  }
  if (!/^https?:\/\//i.test(base)) {
    if (!documentUrl) {
      problems.push({ path, message: `${from} (${base}) is not an absolute http(s) URL: set base_url` });
      return null;
    }
    base = new URL(base, documentUrl).href;
  }
  try {
    await ctx.guard.check(base, { allowPrivateNetwork: action.allow_private_network });
  } catch (error) {
    if (error instanceof NetworkGuardError && error.reason === 'dns') {
      // A name that does not resolve now may later: said at start, tried at each call.
      ctx.logger.warn({ path, reason: error.reason }, `${path}: ${error.message}; the action's calls will fail until it resolves`);
    } else {
      problems.push({ path, message: `${from}: ${(error as Error).message}` });
      return null;
    }
  }
  return base.replace(/\/+$/, '');
}

/**
 * Whether an operation takes a bound name: a parameter (path, query, header, cookie)
 * or a property of its object body of that name, or, for a dotted name
 * (`body.customer.id`), the body property at that path.
 */
function takes(operation: OpenApiOperation, name: string): boolean {
  const schema = operation.requestBody?.schema;
  const dotted = bodyPathOf(name);
  if (dotted) return schema !== undefined && schemaAt(schema, dotted) !== undefined;
  if (operation.parameters.some((p) => p.name === name)) return true;
  return schema !== undefined && schemaAt(schema, [name]) !== undefined;
}

function actionTool(action: ActionConfig, operation: OpenApiOperation, baseUrl: string, headers: Record<string, string>, ctx: ConnectorContext): StructuredTool {
  const bind = Object.fromEntries(Object.entries(action.bind).filter(([name]) => takes(operation, name)));
  const { schema, bodyArgument } = operationArguments(operation, new Set(Object.keys(bind)));
  const description = [operation.summary, operation.description].filter((t): t is string => !!t?.trim()).join('\n\n') || `${operation.method} ${operation.path}`;
  const maxBytes = responseByteCap(action.max_result_tokens);
  return guardedTool(
    {
      name: operation.operationId,
      description,
      schema,
      bind,
      guestProof: action.guest_proof.filter((name) => takes(operation, name)),
      ...(action.answer && { answer: action.answer }),
      timeoutMs: action.timeout_ms,
      maxResultTokens: action.max_result_tokens,
      trace: { kind: 'action', source: new URL(baseUrl).host, method: operation.method },
      call: async (args, signal, deadlineMs) => {
        const request = buildRequest(operation, baseUrl, headers, args, bodyArgument, Object.keys(bind), ctx.logger);
        if (typeof request === 'string') return { text: request, failed: true, bytes: 0, sent: null };
        const sent = request.sent;
        for (let attempt = 1; ; attempt++) {
          const response = await ctx.guard.request({
            ...request,
            allowPrivateNetwork: action.allow_private_network,
            timeoutMs: Math.max(1, deadlineMs - Date.now()),
            maxBytes,
            overflow: 'truncate',
            signal,
          });
          const retry = operation.method === 'GET' && attempt === 1 && RETRIED_STATUSES.has(response.status) && deadlineMs - Date.now() > RETRY_WAIT_MS + 100;
          if (retry) {
            await new Promise((resolve) => setTimeout(resolve, RETRY_WAIT_MS));
            continue;
          }
          return { ...resultOf(operation.operationId, response.status, response.body, response.truncated, attempt), sent };
        }
      },
    },
    ctx,
  );
}

/** The request to send, and the arguments it carries as sent (the body as sent, bound names written). */
interface BuiltRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  sent: Record<string, unknown>;
}

/**
 * The HTTP request for the model's (and the bindings') arguments, or a sentence when a
 * required one is missing. A bound name is written wherever the operation takes it:
 * its parameters of that name (path, query, header, cookie) and its body property of
 * that name, or the body property at a dotted name's path. Body properties the
 * schema does not declare are dropped (and logged), so the model cannot add a
 * second spelling of the customer the API might read.
 */
function buildRequest(
  operation: OpenApiOperation,
  baseUrl: string,
  actionHeaders: Record<string, string>,
  args: Record<string, unknown>,
  bodyArgument: string | null,
  boundNames: string[],
  logger: Logger,
): BuiltRequest | string {
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  const bound = new Set(boundNames);
  const sent: Record<string, unknown> = {};
  for (const p of operation.parameters) {
    // Cookie parameters are not offered to the model: only a bound one is sent.
    if (p.in === 'cookie' && !bound.has(p.name)) continue;
    const value = args[p.name];
    if (value === undefined || value === null) {
      if (p.required) return `${operation.operationId} needs ${p.name}; ask the customer for it, then call it again.`;
      continue;
    }
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    // "", "." and ".." would make another path on the same host (URLs resolve dot segments, %2e too).
    if (p.in === 'path' && (text.trim() === '' || /^(\.|%2e){1,2}$/i.test(text))) return `${operation.operationId}: "${text}" is not a valid ${p.name}.`;
    if (p.in === 'path') path = path.replaceAll(`{${p.name}}`, encodeURIComponent(text));
    else if (p.in === 'query') for (const one of Array.isArray(value) ? value : [value]) query.append(p.name, typeof one === 'object' ? JSON.stringify(one) : String(one));
    else if (p.in === 'header') headers[p.name] = text;
    else cookies.push(`${p.name}=${encodeURIComponent(text)}`);
    sent[p.name] = value;
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  let body: string | undefined;
  if (bodyArgument !== null && operation.requestBody) {
    const schema = operation.requestBody.schema;
    const given = args[bodyArgument];
    const boundInBody = boundNames.filter((name) => takesInBody(schema, name));
    if (given !== undefined || boundInBody.length > 0) {
      const dropped: string[] = [];
      let value = declaredOnly(given, schema, 'body', dropped);
      if (boundInBody.length > 0) {
        // An object body gets the bound values, whatever the model put there (or did not).
        const object = isRecord(value) ? value : {};
        if (value !== undefined && !isRecord(value)) dropped.push('body');
        for (const name of boundInBody) setAt(object, bodyPathOf(name) ?? [name], args[name]);
        value = object;
      }
      if (dropped.length > 0) {
        logger.warn({ tool: operation.operationId, dropped }, `Action ${operation.operationId}: dropped what the model put in the body that its schema does not declare (${dropped.join(', ')})`);
      }
      body = JSON.stringify(value);
      sent[bodyArgument] = value;
    } else if (operation.requestBody.required) {
      return `${operation.operationId} needs ${bodyArgument}; ask the customer for what it needs, then call it again.`;
    }
  }
  const search = query.toString();
  return {
    url: `${baseUrl}${path}${search ? `?${search}` : ''}`,
    method: operation.method,
    // The shop file's headers last: the model cannot replace the credentials.
    headers: { accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }), ...headers, ...actionHeaders },
    ...(body !== undefined && { body }),
    sent,
  };
}

/** Whether a bound name is written into the body: a property of an object body, or a `body.…` path. */
function takesInBody(schema: Record<string, unknown>, name: string): boolean {
  return schemaAt(schema, bodyPathOf(name) ?? [name]) !== undefined;
}

/**
 * The value with every object property its schema does not declare left out (where
 * the schema lists `properties`), at any depth; each one left out is named in `dropped`.
 */
function declaredOnly(value: unknown, schema: unknown, at: string, dropped: string[]): unknown {
  if (!isRecord(schema)) return value;
  if (Array.isArray(value)) return isRecord(schema.items) ? value.map((v, i) => declaredOnly(v, schema.items, `${at}[${i}]`, dropped)) : value;
  if (!isRecord(value) || !isRecord(schema.properties)) return value;
  const properties = schema.properties;
  const kept: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!Object.hasOwn(properties, key)) dropped.push(`${at}.${key}`);
    else kept[key] = declaredOnly(v, properties[key], `${at}.${key}`, dropped);
  }
  return kept;
}

/** Writes value at a path of an object, making (or replacing with) objects on the way. */
function setAt(object: Record<string, unknown>, path: string[], value: unknown): void {
  let at = object;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    at = at[key] = isRecord(next) ? { ...next } : {};
  }
  at[path.at(-1)!] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resultOf(operationId: string, status: number, body: Buffer, truncated: boolean, attempts: number): CallResult {
  const bytes = body.length;
  if (status >= 400) {
    const meaning = status === 404 ? ' (not found)' : status === 401 || status === 403 ? ' (not allowed)' : status === 429 ? ' (too many requests)' : status >= 500 ? ' (the system is failing)' : '';
    return { text: `${operationId} failed: the shop's system answered HTTP ${status}${meaning}, so nothing could be looked up.`, failed: true, status, bytes, attempts };
  }
  if (status >= 300) return { text: `${operationId} was redirected (HTTP ${status}) and nothing was read.`, failed: true, status, bytes, attempts };
  const text = body.toString('utf8');
  if (text.trim() === '') return { text: `${operationId} succeeded (HTTP ${status}) with no content.`, failed: false, status, bytes, attempts };
  let shown = text;
  if (!truncated) {
    try {
      // Compact JSON: the same data in fewer tokens.
      shown = JSON.stringify(JSON.parse(text));
    } catch {
      // not JSON: the text as it came
    }
  }
  return { text: shown, failed: false, status, bytes, truncatedBytes: truncated, attempts };
}
