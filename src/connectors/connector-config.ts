import { z } from 'zod';

/**
 * How the shop file describes the shop's own systems: actions (operations of its
 * HTTP API, from an OpenAPI document) and MCP servers. The shop file's schema
 * (src/shop/) embeds these; the connectors build tools from them.
 */

/** A tool name the model sees: what OpenAI accepts for a function's name. */
const toolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-" (a tool name the model can call)');

/**
 * A header value, or a parameter value: `${VAR}` in it is replaced by the
 * environment variable VAR at start (an unset one stops the start), so secrets
 * stay out of the file.
 */
const templatedValue = z.string().max(8192);

/**
 * Where a bound parameter's value comes from: the conversation's verified customer
 * (the customer token's subject, and its e-mail claim when the token has one).
 */
export const BINDING_SOURCES = ['customer.id', 'customer.email'] as const;
export type BindingSource = (typeof BINDING_SOURCES)[number];

const bindings = z.record(z.string().min(1).max(200), z.enum(BINDING_SOURCES, { error: `must be one of ${BINDING_SOURCES.join(', ')}` }));

/** A label in one language for every customer, or per language (`{ de: Versandt am, en: Shipped on }`). */
const answerLabel = z.union([
  z.string().trim().min(1, 'must not be empty').max(200),
  z.record(z.string().regex(/^[a-z]{2}$/, 'must be a two-letter ISO 639-1 code such as "de"'), z.string().trim().min(1, 'must not be empty').max(200)),
]);

/**
 * One field of the answer the offline responder reads to the customer: nothing (a
 * label made from the field's name), a label, or a label and the words for the
 * field's values (`values: { shipped: { de: versandt } }`).
 */
const answerFieldObject = z.strictObject({ label: answerLabel.optional(), values: z.record(z.string().min(1).max(200), answerLabel).optional() });
const answerField = z.union([
  z.null().transform((): AnswerField => ({})),
  answerLabel.transform((label): AnswerField => ({ label })),
  answerFieldObject,
]);
type AnswerField = z.infer<typeof answerFieldObject>;

/**
 * The fields of an operation's answer the offline responder writes as a sentence,
 * in this order: field name (a dotted name reads a nested field) -> its label. In
 * YAML, `answer: { status, carrier, shipped_at }` names the fields with labels made
 * from their names.
 */
export const answerFieldsSchema = z.record(z.string().regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'must be a field name, or a dotted path such as "shipment.carrier"'), answerField);
export type AnswerFields = z.infer<typeof answerFieldsSchema>;
export type AnswerLabel = z.infer<typeof answerLabel>;

/** Caps every tool source shares. */
const callLimits = {
  /** The whole call's deadline, connection to the last byte. Default 8000. */
  timeout_ms: z.number().int().min(100).max(120_000).default(8000),
  /** What the model sees of a result, in tokens, cut with a marker. Default 1500. */
  max_result_tokens: z.number().int().min(50).max(50_000).default(1500),
  /**
   * Loopback, private, link-local and unique-local addresses may be reached (a
   * service inside the shop's network, a test's own server). Metadata addresses
   * and the service's own address are refused always. Default false.
   */
  allow_private_network: z.boolean().default(false),
};

/** One `actions[]` entry: operations of the shop's HTTP API, allowlisted by operationId. */
export const actionSchema = z.strictObject({
  /** The OpenAPI 3 document (YAML or JSON): a path relative to the shop file, or an http(s) URL read at start. */
  openapi: z.string().trim().min(1),
  /** Where the API is; else the document's first server. */
  base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** The operationIds the model may call; nothing else in the document becomes a tool. */
  operations: z.array(toolName).min(1, 'must name at least one operationId'),
  /** Operations (from `operations`) that may be called although they are not GET. */
  allow_writes: z.array(toolName).default([]),
  /** Sent with every call; `${VAR}` from the environment. */
  headers: z.record(z.string().min(1), templatedValue).default({}),
  /** parameter name -> where its value comes from; the model cannot set a bound parameter. */
  bind: bindings.default({}),
  /**
   * Parameters an anonymous customer gives to prove an order is theirs (the e-mail
   * address or postcode on it): with them, a guest may call the operations that take
   * them. The API decides whether they match; wrong tries are limited per visitor.
   */
  guest_proof: z.array(z.string().min(1).max(200)).default([]),
  /** What the offline responder reads from an answer (answerFieldsSchema); else every scalar field. */
  answer: answerFieldsSchema.optional(),
  ...callLimits,
});

/** One `mcp_servers[]` entry: a Model Context Protocol server whose listed tools the agents may call. */
export const mcpServerSchema = z
  .strictObject({
    /** How the server is named in logs and reports. */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"'),
    /** Streamable HTTP endpoint. Exactly one of `url` and `command`. */
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    /** A program speaking MCP over stdio, with its arguments. */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    /** Environment variables for a stdio server; `${VAR}` from the service's environment. */
    env: z.record(z.string().min(1), templatedValue).default({}),
    /** The server's tools the model may call; nothing else it offers becomes a tool. */
    tools: z.array(toolName).min(1, 'must name at least one tool'),
    /** Sent with every HTTP request; `${VAR}` from the environment. */
    headers: z.record(z.string().min(1), templatedValue).default({}),
    /** tool argument -> where its value comes from; the model cannot set a bound argument. */
    bind: bindings.default({}),
    ...callLimits,
  })
  .refine((s) => (s.url === undefined) !== (s.command === undefined), {
    message: 'needs exactly one of `url` (streamable HTTP) or `command` (stdio)',
  });

export type ActionConfig = z.infer<typeof actionSchema>;
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

/** One mistake in the shop file: where (`actions[0].operations[1]`) and what was expected. */
export interface ShopFileProblem {
  path: string;
  message: string;
}

/**
 * A shop file that cannot be used: every problem found, each with its field's
 * path. The shop file's loader reports them one line each, naming the file, and
 * the start stops (exit code 1).
 */
export class ShopFileError extends Error {
  constructor(readonly problems: ShopFileProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('\n'));
    this.name = new.target.name;
  }
}
