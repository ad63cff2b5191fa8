import fs from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import type { JsonSchemaObject } from './guarded-tool';
import type { NetworkGuard } from './network-guard';

/**
 * An OpenAPI 3.x document as the actions need it: its servers and its operations by
 * operationId, every local `$ref` resolved.
 */
export interface OpenApiDocument {
  /** The document's `servers[].url`, in order, server variables at their defaults. */
  servers: string[];
  operations: Map<string, OpenApiOperation>;
}

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface OpenApiParameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  description?: string;
  schema: Record<string, unknown>;
}

export interface OpenApiOperation {
  operationId: string;
  /** Upper case: GET, POST, … */
  method: string;
  /** The path template (`/orders/{orderId}`). */
  path: string;
  summary?: string;
  description?: string;
  /** Path-level parameters merged in (the operation's own win). */
  parameters: OpenApiParameter[];
  /** The JSON request body's schema, when the operation takes one. */
  requestBody?: { schema: Record<string, unknown>; required: boolean; description?: string };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** An OpenAPI document larger than this is refused (a sane spec is far smaller). */
export const OPENAPI_MAX_BYTES = 5 * 1024 * 1024;
const OPENAPI_FETCH_TIMEOUT_MS = 10_000;

/**
 * The document's text: a file relative to the shop file's folder, or an http(s) URL
 * fetched through the guard (capped in size and time). Throws Error with a message
 * fit for the shop file's report.
 */
export async function readOpenApiText(location: string, shopFileDir: string, guard: NetworkGuard, allowPrivateNetwork: boolean): Promise<{ text: string; baseUrl: string | null }> {
  if (/^https?:\/\//i.test(location)) {
    const response = await guard.request({ url: location, timeoutMs: OPENAPI_FETCH_TIMEOUT_MS, maxBytes: OPENAPI_MAX_BYTES, allowPrivateNetwork });
    if (response.status !== 200) throw new Error(`${location} answered HTTP ${response.status}`);
    return { text: response.body.toString('utf8'), baseUrl: response.url };
  }
  const file = path.resolve(shopFileDir, location);
  const stat = await fs.stat(file).catch(() => null);
  if (!stat?.isFile()) throw new Error(`no such file: ${file}`);
  if (stat.size > OPENAPI_MAX_BYTES) throw new Error(`${file} is larger than ${OPENAPI_MAX_BYTES} bytes`);
  return { text: await fs.readFile(file, 'utf8'), baseUrl: null };
}

/**
 * Parses an OpenAPI 3.x document (YAML or JSON) and resolves its local `$ref`s.
 * Throws Error naming what is wrong: not 3.x, an external `$ref`, a `$ref` to nothing.
 */
export function parseOpenApiDocument(text: string): OpenApiDocument {
  let root: unknown;
  try {
    root = YAML.parse(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw new Error(`not YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isObject(root) || typeof root.openapi !== 'string' || !root.openapi.startsWith('3.')) {
    throw new Error('not an OpenAPI 3.x document (its `openapi` field must say 3.0 or 3.1)');
  }
  const resolve = refResolver(root);
  const servers = (Array.isArray(root.servers) ? root.servers : []).filter(isObject).map(serverUrl).filter((u): u is string => u !== null);
  const operations = new Map<string, OpenApiOperation>();
  const paths = isObject(root.paths) ? root.paths : {};
  for (const [template, rawItem] of Object.entries(paths)) {
    const item = resolve(rawItem);
    if (!isObject(item)) continue;
    const shared = parametersOf(item.parameters, resolve);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const own = parametersOf(operation.parameters, resolve);
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
      operations.set(operation.operationId, {
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path: template,
        ...(typeof operation.summary === 'string' && { summary: operation.summary }),
        ...(typeof operation.description === 'string' && { description: operation.description }),
        parameters,
        ...jsonRequestBody(resolve(operation.requestBody)),
      });
    }
  }
  return { servers, operations };
}

function serverUrl(server: Record<string, unknown>): string | null {
  if (typeof server.url !== 'string') return null;
  const variables = isObject(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
}

function parametersOf(raw: unknown, resolve: (value: unknown) => unknown): OpenApiParameter[] {
  if (!Array.isArray(raw)) return [];
  return raw.map(resolve).filter(isObject).flatMap((p) => {
    if (typeof p.name !== 'string' || !['path', 'query', 'header', 'cookie'].includes(p.in as string)) return [];
    return [
      {
        name: p.name,
        in: p.in as ParameterLocation,
        required: p.in === 'path' || p.required === true,
        ...(typeof p.description === 'string' && { description: p.description }),
        schema: isObject(p.schema) ? toJsonSchema(p.schema) : { type: 'string' },
      },
    ];
  });
}

function jsonRequestBody(body: unknown): Pick<OpenApiOperation, 'requestBody'> {
  if (!isObject(body) || !isObject(body.content)) return {};
  const json = Object.entries(body.content).find(([type]) => /^application\/([\w.+-]*\+)?json\b/i.test(type));
  if (!json || !isObject(json[1]) || !isObject(json[1].schema)) return {};
  return {
    requestBody: {
      schema: toJsonSchema(json[1].schema),
      required: body.required === true,
      ...(typeof body.description === 'string' && { description: body.description }),
    },
  };
}

/**
 * An OpenAPI schema object as plain JSON Schema for a tool: 3.0's `nullable` becomes
 * a null type, and what only documents (examples, xml, readOnly output fields) goes.
 */
export function toJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { nullable, example, examples: _examples, xml: _xml, externalDocs: _docs, discriminator: _d, deprecated: _dep, ...rest } = schema;
  void example;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value)
          .filter(([, v]) => !(isObject(v) && v.readOnly === true))
          .map(([k, v]) => [k, isObject(v) ? toJsonSchema(v) : v]),
      );
    } else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isObject(value)) {
      out[key] = toJsonSchema(value);
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((v) => (isObject(v) ? toJsonSchema(v) : v));
    } else if (key !== 'readOnly' && key !== 'writeOnly') {
      out[key] = value;
    }
  }
  if (Array.isArray(out.required) && isObject(out.properties)) {
    const properties = out.properties;
    out.required = (out.required as unknown[]).filter((name) => typeof name === 'string' && name in properties);
  }
  if (nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/**
 * Resolves `#/…` references anywhere in a value, recursively. A reference back into
 * itself (a recursive schema) is cut to an open object at the second visit; a
 * reference outside the document is refused.
 */
function refResolver(root: Record<string, unknown>): (value: unknown) => unknown {
  const pointer = (ref: string): unknown => {
    let at: unknown = root;
    for (const raw of ref.slice(2).split('/')) {
      if (raw === '') continue;
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isObject(at) && !Array.isArray(at)) return undefined;
      at = (at as Record<string, unknown>)[key];
    }
    return at;
  };
  const resolve = (value: unknown, visiting: string[]): unknown => {
    if (Array.isArray(value)) return value.map((v) => resolve(v, visiting));
    if (!isObject(value)) return value;
    if (typeof value.$ref === 'string') {
      const ref = value.$ref;
      if (!ref.startsWith('#')) throw new Error(`$ref ${ref}: only references inside the document (#/…) are read`);
      if (visiting.includes(ref)) return { type: 'object', description: `(recursive: ${ref.split('/').at(-1)})` };
      const target = pointer(ref);
      if (target === undefined) throw new Error(`$ref ${ref} points at nothing in the document`);
      return resolve(target, [...visiting, ref]);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, visiting)]));
  };
  return (value) => resolve(value, []);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The arguments' schema of an operation, less the bound names; `body` holds the JSON request body. */
export function operationArguments(operation: OpenApiOperation, bound: ReadonlySet<string>): { schema: JsonSchemaObject; bodyArgument: string | null } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of operation.parameters) {
    if (bound.has(p.name) || p.in === 'cookie') continue;
    properties[p.name] = { ...p.schema, ...(p.description && { description: p.description }) };
    if (p.required) required.push(p.name);
  }
  let bodyArgument: string | null = null;
  if (operation.requestBody) {
    bodyArgument = 'body' in properties ? 'request_body' : 'body';
    let schema = operation.requestBody.schema;
    // A bound name may also be a property of an object body: filled there, hidden from the model.
    if (isObject(schema.properties) && [...bound].some((name) => name in (schema.properties as object))) {
      const kept = Object.fromEntries(Object.entries(schema.properties as Record<string, unknown>).filter(([name]) => !bound.has(name)));
      schema = { ...schema, properties: kept, ...(Array.isArray(schema.required) && { required: (schema.required as string[]).filter((n) => !bound.has(n)) }) };
    }
    properties[bodyArgument] = { ...schema, ...(operation.requestBody.description && !schema.description && { description: operation.requestBody.description }) };
    if (operation.requestBody.required) required.push(bodyArgument);
  }
  return { schema: { type: 'object', properties, ...(required.length > 0 && { required }) }, bodyArgument };
}
