import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** Environment booleans: "true"/"1"/"yes" and "false"/"0"/"no", case-insensitive. */
const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no']))
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const optionalText = z.string().trim().optional();

const positiveInt = z.coerce.number().int().positive();
const fraction = z.coerce.number().min(0).max(1);

/**
 * The whole environment, parsed once at start. Nothing else reads process.env.
 * Each default below is the documented one (README, .env.example).
 */
const environmentSchema = z.object({
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

  AGENT_API_KEY: optionalText,

  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(z.url().optional()),
  OPENAI_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
  OPENAI_EMBEDDING_MODEL: z.string().trim().min(1).default('text-embedding-3-small'),
  OPENAI_TIMEOUT_MS: positiveInt.default(30000),
  OPENAI_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** `offline`: when the hosted model fails, the offline responder answers (marked in the answer). */
  MODEL_FALLBACK: z.enum(['none', 'offline']).default('none'),
  /** The model that writes rolling summaries; OPENAI_MODEL when unset. */
  SUMMARY_MODEL: optionalText,

  CONVERSATION_HISTORY_ENABLED: booleanFlag.default(true),
  CONVERSATION_HISTORY_MAX_MESSAGES: positiveInt.default(20),
  CONVERSATION_HISTORY_MAX_TOKENS: positiveInt.default(4000),

  TOOL_OUTPUT_MAX_CHARS: positiveInt.min(200).max(1_000_000).default(4000),

  RETRIEVAL_TOP_K: positiveInt.max(50).default(4),
  RETRIEVAL_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.1),
  ESCALATION_CONFIDENCE_THRESHOLD: fraction.optional(),

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
  /** Proxies in front of the service whose X-Forwarded-For to believe (0: none). */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),

  MESSAGE_MAX_CHARS: positiveInt.max(100_000).default(4000),
  HISTORY_LIMIT_MAX: positiveInt.max(10_000).default(500),

  /** Langfuse tracing: on when both keys are set. LANGFUSE_BASE_URL for a self-hosted Langfuse. */
  LANGFUSE_PUBLIC_KEY: optionalText,
  LANGFUSE_SECRET_KEY: optionalText,
  LANGFUSE_BASE_URL: optionalText.pipe(z.url().optional()),
  LANGFUSE_TIMEOUT_MS: positiveInt.max(60_000).default(5000),
  LANGFUSE_FLUSH_TIMEOUT_MS: positiveInt.max(60_000).default(3000),
  LANGFUSE_ENVIRONMENT: optionalText,

  /** `none` turns seeding off. */
  KNOWLEDGE_SEED_DIR: z.string().trim().default('./knowledge/help-center'),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface Config {
  port: number;
  host: string;
  logLevel: Environment['LOG_LEVEL'];
  storage: StorageConfig;
  /** null: the embedded default generates one and keeps it under DATA_DIR; the service requires it with DATABASE_URL. */
  agentApiKey: string | null;
  openai: {
    /** null: the offline embedder and extractive responder answer instead. */
    apiKey: string | null;
    baseURL?: string;
    chatModel: string;
    summaryModel: string;
    embeddingModel: string;
    timeoutMs: number;
    maxRetries: number;
    /** What answers when the hosted model fails. */
    fallback: 'none' | 'offline';
  };
  history: { enabled: boolean; maxMessages: number; maxTokens: number };
  /** Tool results longer than this are cut in the model's context (the stored copy stays whole). */
  toolOutputMaxChars: number;
  /** A streamed answer sends a comment line this often while it waits. */
  streamHeartbeatMs: number;
  /** Offline mode: pause between streamed pieces of an answer. */
  offlineStreamDelayMs: number;
  retrieval: { topK: number; minSimilarity: number; escalationThreshold: number };
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
  trustProxy: number;
  idempotency: { ttlHours: number; waitMs: number };
  /** Folder ingested on first start when the knowledge base is empty; null: none. */
  knowledgeSeedDir: string | null;
  /** Langfuse tracing; null: off. */
  langfuse: LangfuseConfig | null;
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
    agentApiKey: e.AGENT_API_KEY ?? null,
    openai: {
      apiKey: e.OPENAI_API_KEY ?? null,
      baseURL: e.OPENAI_BASE_URL,
      chatModel: e.OPENAI_MODEL,
      summaryModel: e.SUMMARY_MODEL ?? e.OPENAI_MODEL,
      embeddingModel: e.OPENAI_EMBEDDING_MODEL,
      timeoutMs: e.OPENAI_TIMEOUT_MS,
      maxRetries: e.OPENAI_MAX_RETRIES,
      fallback: e.MODEL_FALLBACK,
    },
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
      // The two embedders score on different scales: OpenAI's put related texts
      // around 0.3–0.7, the offline hashing embedder around 0.2–0.45 (measured on
      // the sample help center; off-topic questions stayed below 0.18).
      escalationThreshold: e.ESCALATION_CONFIDENCE_THRESHOLD ?? (e.OPENAI_API_KEY ? 0.3 : 0.2),
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
    knowledgeSeedDir: e.KNOWLEDGE_SEED_DIR === 'none' ? null : path.resolve(e.KNOWLEDGE_SEED_DIR),
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
          }
        : null,
  };
}
