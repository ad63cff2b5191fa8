import { z } from 'zod';
import { errorSchema } from './response-schemas';
import type { ApiRoute, Credential } from './api-routes';

type JsonSchema = Record<string, unknown>;

/** OpenAPI 3.1 uses JSON Schema 2020-12, which is zod's own target: schemas go in as zod writes them. */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  // Refinements and transforms cannot be written as JSON Schema; their base type is documented.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

const SECURITY_SCHEMES: Record<Credential, JsonSchema> = {
  agentKey: { type: 'http', scheme: 'bearer', description: 'The agent key (AGENT_API_KEY; on the embedded default, DATA_DIR/agent-api-key).' },
  sessionToken: { type: 'apiKey', in: 'header', name: 'X-Session-Token', description: 'The session_token an answer gave for its session.' },
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad input (the message names the field); nothing changed.',
  401: 'Missing or wrong credentials.',
  403: 'Not allowed (see the code).',
  404: 'Not found.',
  409: 'Conflict (see the code).',
  413: 'The body is too large.',
  415: 'Unsupported content type.',
  422: 'The body cannot be used (see the code): an Idempotency-Key used with another body, a document that is unreadable or has no text.',
  429: 'Rate limited; see Retry-After.',
  500: 'Server error.',
  502: 'A model failed.',
  503: 'Unavailable for now; see Retry-After.',
  504: 'The model timed out.',
};

/** `/api/v1/chat/history/:session_id` → `/api/v1/chat/history/{session_id}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The OpenAPI 3.1 document of these routes. */
export function openApiDocument(routes: ApiRoute[], info: { version: string }): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Support agent API',
      version: info.version,
      description:
        'A customer-support agent: the chat endpoints the widget calls, the review endpoints for human agents, and the knowledge base. ' +
        'Every error is {"error": {"code", "message"}}.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [
      { name: 'chat', description: "Customers' conversations (the widget)" },
      { name: 'review', description: 'Conversations, for human agents (agent key)' },
      { name: 'knowledge', description: 'The knowledge base (agent key)' },
      { name: 'privacy', description: "Customers' data: export, erasure, the erasure audit (docs/data-lifecycle.md)" },
      { name: 'operations', description: 'Health, metrics and this document' },
      { name: 'pages', description: 'The built pages' },
    ],
    paths,
    components: {
      schemas: { Error: toJsonSchema(errorSchema, 'output') },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

function operation(route: ApiRoute): JsonSchema {
  const parameters = [
    ...Object.entries(route.params ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema: toJsonSchema(schema, 'input') })),
    ...queryParameters(route),
    ...Object.entries(route.headers ?? {}).map(([name, h]) => ({ name, in: 'header', required: false, description: h.description, schema: toJsonSchema(h.schema, 'input') })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    const contentType = r.contentType ?? 'application/json';
    const hasBody = r.schema !== undefined || r.contentType !== undefined;
    responses[status] = {
      description: r.description,
      ...(hasBody && {
        content: {
          [contentType]: {
            schema: r.schema ? toJsonSchema(r.schema, 'output') : { type: 'string' },
            ...(r.example !== undefined && { example: r.example }),
          },
        },
      }),
    };
  }
  for (const status of route.errors ?? []) {
    responses[String(status)] ??= {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    tags: [route.tag],
    summary: route.summary,
    ...(route.description && { description: route.description }),
    operationId: operationId(route),
    ...(route.security && { security: route.security.map((c) => ({ [c]: [] })) }),
    ...(parameters.length > 0 && { parameters }),
    ...(route.body && {
      requestBody: {
        required: true,
        content: Object.fromEntries(
          Object.entries(route.body).map(([type, b]) => [type, { schema: toJsonSchema(b.schema, 'input'), ...(b.example !== undefined && { example: b.example }) }]),
        ),
      },
    }),
    responses,
  };
}

function queryParameters(route: ApiRoute): JsonSchema[] {
  if (!route.query) return [];
  const schema = toJsonSchema(route.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    ...(typeof property.description === 'string' && { description: property.description }),
    schema: property,
  }));
}

/** `put /api/v1/knowledge/sources/:source` → `putKnowledgeSourcesBySource`. */
function operationId(route: ApiRoute): string {
  const words = route.path
    .replace(/^\/api\/v1/, '')
    .split(/[/.]/)
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by_${part.slice(1)}` : part));
  const camel = words
    .flatMap((w) => w.split(/[_-]/))
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return `${route.method}${camel || 'Root'}`;
}
