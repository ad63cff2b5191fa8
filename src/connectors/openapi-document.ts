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
  // Resolved references are shared objects: convert each once, so the result stays as small as its source.
  const done = converted.get(schema);
  if (done) return done;
  const out = convertSchema(schema);
  converted.set(schema, out);
  return out;
}

const converted = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

function convertSchema(schema: Record<string, unknown>): Record<string, unknown> {
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
 * Resolves `#/…` references anywhere in a value, recursively. Each reference is
 * resolved once and the result shared (a document that names a sub-schema twice
 * at each of 20 levels is 20 resolutions, not a million). A reference back into
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
  const resolved = new Map<string, unknown>();
  const visiting = new Set<string>();
  const copies = new WeakMap<object, Record<string, unknown>>();
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map((v) => resolve(v));
    if (!isObject(value)) return value;
    if (typeof value.$ref === 'string') {
      const ref = value.$ref;
      if (!ref.startsWith('#')) throw new Error(`$ref ${ref}: only references inside the document (#/…) are read`);
      if (resolved.has(ref)) return resolved.get(ref);
      if (visiting.has(ref)) return { type: 'object', description: `(recursive: ${ref.split('/').at(-1)})` };
      const target = pointer(ref);
      if (target === undefined) throw new Error(`$ref ${ref} points at nothing in the document`);
      visiting.add(ref);
      const result = resolve(target);
      visiting.delete(ref);
      resolved.set(ref, result);
      return result;
    }
    // Resolved parts are shared, and the same part may be resolved again (a path item, then its operation's body): once each.
    const done = copies.get(value);
    if (done) return done;
    const copy = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    copies.set(value, copy);
    copies.set(copy, copy);
    return copy;
  };
  return resolve;
}

/** The most bytes of JSON a tool's argument schema may take: every call sends it to the model. */
export const TOOL_SCHEMA_MAX_BYTES = 32 * 1024;

/**
 * The length of `value` as JSON, counted only up to `cap` (past it, `cap + 1`): a
 * schema whose shared parts would expand to megabytes costs at most `cap` steps to judge.
 */
export function jsonSizeUpTo(value: unknown, cap: number): number {
  let size = 0;
  const walk = (v: unknown): boolean => {
    if (size > cap) return false;
    if (Array.isArray(v)) {
      size += 2 + Math.max(0, v.length - 1);
      return v.every(walk);
    }
    if (isObject(v)) {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      size += 2 + Math.max(0, entries.length - 1);
      for (const [k, x] of entries) {
        size += JSON.stringify(k).length + 1;
        if (!walk(x)) return false;
      }
      return size <= cap;
    }
    size += (JSON.stringify(v) ?? 'null').length;
    return size <= cap;
  };
  walk(value);
  return Math.min(size, cap + 1);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A dotted bind name's path inside the request body (`body.customer.id` -> ['customer', 'id']),
 * or null for a plain name.
 */
export function bodyPathOf(name: string): string[] | null {
  if (!name.startsWith('body.')) return null;
  const path = name.slice('body.'.length).split('.');
  return path.every((key) => key !== '') ? path : null;
}

/** The schema of the property at a path of an object schema (through `properties`), or undefined. */
export function schemaAt(schema: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | undefined {
  let at: Record<string, unknown> = schema;
  for (const key of path) {
    const next = isObject(at.properties) && Object.hasOwn(at.properties, key) ? at.properties[key] : undefined;
    if (!isObject(next)) return undefined;
    at = next;
  }
  return at;
}

/** An object schema without the property at a path (nor among its object's `required`). */
function withoutProperty(schema: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined || !isObject(schema.properties) || !Object.hasOwn(schema.properties, key)) return schema;
  const properties = { ...schema.properties };
  const child = properties[key];
  if (rest.length > 0) {
    if (isObject(child)) properties[key] = withoutProperty(child, rest);
    return { ...schema, properties };
  }
  delete properties[key];
  return { ...schema, properties, ...(Array.isArray(schema.required) && { required: (schema.required as unknown[]).filter((n) => n !== key) }) };
}

/**
 * The arguments' schema of an operation, less the bound names (parameters, body
 * properties, dotted body paths); `body` holds the JSON request body.
 */
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
    // A bound name may also be a property of an object body (or a dotted path into it): filled there, hidden from the model.
    for (const name of bound) schema = withoutProperty(schema, bodyPathOf(name) ?? [name]);
    properties[bodyArgument] = { ...schema, ...(operation.requestBody.description && !schema.description && { description: operation.requestBody.description }) };
    if (operation.requestBody.required) required.push(bodyArgument);
  }
  return { schema: { type: 'object', properties, ...(required.length > 0 && { required }) }, bodyArgument };
}
