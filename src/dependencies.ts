import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { compileSupportGraph } from './agent/graph';
import { createSupportTools } from './agent/tools';
import { AGENT_SPECS } from './agents';
import type { AppParts } from './app';
import { ChatService, type AgentRuntime } from './chat/chat-service';
import { IdempotentRequests } from './chat/idempotency';
import { ConfigError, type Config, type StorageConfig } from './config';
import { SessionTokens } from './http/session-token';
import { createEmbedder, type Embedder } from './knowledge/embeddings';
import { findSourceFiles, ingestFiles } from './knowledge/ingest';
import { createRetriever } from './knowledge/retriever';
import { ExtractiveSummarizer, LlmSummarizer, type Summarizer } from './memory/summarizer';
import { TokenCounter, type CountableMessage } from './memory/tokens';
import { createChatModel } from './models/chat-model';
import { ExtractiveChatModel } from './models/extractive-chat-model';
import type { Logger } from './observability/logger';
import { measuredRetriever, observedModelCalls } from './observability/instrument';
import { createTracing, NO_TRACING, type Tracing } from './observability/langfuse';
import { Metrics } from './observability/metrics';
import { SqlCommerceStore } from './store/commerce-store';
import { FeedbackStore } from './store/feedback-store';
import type { SqlDatabase } from './store/database';
import { applyMigrations } from './store/migrations';
import { openPgliteDatabase } from './store/pglite';
import { openPostgresDatabase } from './store/postgres';
import { RateLimitCounters } from './store/rate-limit-store';
import { SqlStore } from './store/sql-store';
import { createSupabaseClient, supabaseFunctionCaller } from './store/supabase';

/** Everything the service is made of, built once at start. */
export interface Dependencies {
  appParts: AppParts;
  store: SqlStore;
  /** Langfuse tracing (or NO_TRACING): tests flush it to see what was sent. */
  tracing: Tracing;
  /** Flushes the traces (bounded by LANGFUSE_FLUSH_TIMEOUT_MS), then closes the database; call after the server stopped taking requests. */
  close(): Promise<void>;
}

/**
 * The configured storage, opened: the stores over it, and the SQL connection when
 * there is one (PGlite, DATABASE_URL; Supabase's API has none, so no migrations).
 */
export interface OpenStorage {
  store: SqlStore;
  commerce: SqlCommerceStore;
  feedback: FeedbackStore;
  rateLimits: RateLimitCounters;
  db: SqlDatabase | null;
  close(): Promise<void>;
}

/** Opens the configured backend; `database`, when given, is used instead (tests). */
export async function openStorage(config: Config, logger?: Logger, database?: SqlDatabase): Promise<OpenStorage> {
  if (!database && config.storage.kind === 'supabase') {
    const functions = supabaseFunctionCaller(createSupabaseClient(config.storage));
    return {
      store: new SqlStore(functions),
      commerce: new SqlCommerceStore(functions),
      feedback: new FeedbackStore(functions),
      rateLimits: new RateLimitCounters(functions),
      db: null,
      close: async () => {},
    };
  }
  const db = database ?? (await openDatabase(config, logger));
  return {
    store: new SqlStore(db),
    commerce: new SqlCommerceStore(db),
    feedback: new FeedbackStore(db),
    rateLimits: new RateLimitCounters(db),
    db,
    close: () => db.close(),
  };
}

/** Opens the database for a SQL backend: a Postgres server (DATABASE_URL) or PGlite files under DATA_DIR. */
export async function openDatabase(config: Config, logger?: Logger): Promise<SqlDatabase> {
  const storage = config.storage;
  if (storage.kind === 'supabase') {
    throw new ConfigError(
      "Supabase's API cannot run SQL scripts: to migrate, set DATABASE_URL to the project's connection string instead of SUPABASE_URL, or run supabase db push.",
    );
  }
  if (storage.kind === 'postgres') {
    return openPostgresDatabase({
      connectionString: storage.url,
      poolMax: storage.poolMax,
      onIdleError: (error) => logger?.warn({ err: error }, 'An idle database connection failed; the pool replaces it'),
    });
  }
  await fs.mkdir(storage.dataDir, { recursive: true });
  return openPgliteDatabase(path.join(storage.dataDir, 'pglite'));
}

/** Where the data lives, for messages: the PGlite folder, or the server without user or password. */
export function describeStorage(storage: StorageConfig): string {
  if (storage.kind === 'pglite') return `pglite (${storage.dataDir})`;
  if (storage.kind === 'supabase') return `supabase (${new URL(storage.url).host})`;
  const url = new URL(storage.url);
  return `postgres (${url.host}${url.pathname})`;
}

/**
 * config → database (migrated) → models → graph → chat service → app parts.
 * On an empty knowledge base, ingests KNOWLEDGE_SEED_DIR so the embedded default
 * answers out of the box.
 */
export async function createDependencies(config: Config, logger: Logger, database?: SqlDatabase): Promise<Dependencies> {
  const storage = await openStorage(config, logger, database);
  let tracing: Tracing = NO_TRACING;
  try {
    const { store } = storage;
    if (storage.db) {
      const applied = await applyMigrations(storage.db);
      if (applied.length > 0) logger.info({ migrations: applied }, `Applied ${applied.length} database migration(s)`);
    } else {
      // Through Supabase's API the service cannot migrate: check that someone did.
      await store.ping();
    }

    const embedder = createEmbedder(config);
    const tokenCounter = new TokenCounter(config.openai.chatModel);
    const chatModel = createChatModel(config, tokenCounter);
    if (!config.openai.apiKey) {
      logger.warn('OPENAI_API_KEY is not set: answering offline (extractive answers, local embeddings)');
    }
    await prepareKnowledge(config, store, embedder, logger);

    const metrics = new Metrics();
    tracing = createTracing(config.langfuse, logger);
    const retriever = measuredRetriever(createRetriever(store, embedder, config.retrieval), metrics);
    const tools = createSupportTools({ commerce: storage.commerce, retriever });
    const summarizer = createSummarizer(config, tokenCounter, tracing, metrics);
    // Only a hosted model can fail over; offline mode is already the fallback.
    const fallbackModel = config.openai.apiKey && config.openai.fallback === 'offline' ? new ExtractiveChatModel(tokenCounter) : undefined;
    const countTokens = (m: CountableMessage) => tokenCounter.countMessage(m);
    const agents = new Map<string, AgentRuntime>();
    for (const spec of AGENT_SPECS.values()) {
      const graph = compileSupportGraph({
        retriever,
        chatModel: chatModel.model,
        modelName: chatModel.name,
        fallbackModel,
        tools: tools.filter((t) => spec.tools.includes(t.name)),
        instructions: spec.instructions,
        escalationThreshold: config.retrieval.escalationThreshold,
        timeoutMs: config.openai.timeoutMs,
        toolOutputMaxChars: config.toolOutputMaxChars,
        countTokens,
        summarizer,
        store,
        windowLimits: { maxMessages: config.history.maxMessages, maxTokens: config.history.maxTokens },
        logger,
        tracing,
      });
      agents.set(spec.key, { spec, graph });
    }
    const agentApiKey = await resolveAgentApiKey(config, logger);
    const chatService = new ChatService({ store, agents, tokenCounter, history: config.history, metrics, tracing, logger });
    const sessionTokens = new SessionTokens(agentApiKey);
    const feedback = storage.feedback;

    return {
      store,
      appParts: {
        logger,
        chat: {
          chatService,
          store,
          agentApiKey,
          sessionTokens,
          streamHeartbeatMs: config.streamHeartbeatMs,
          idempotency: new IdempotentRequests({ store, ttlHours: config.idempotency.ttlHours, waitMs: config.idempotency.waitMs, logger }),
          feedback,
          logger,
          messageMaxChars: config.limits.messageMaxChars,
          historyLimitMax: config.limits.historyLimitMax,
          agentTypes: [...AGENT_SPECS.keys()],
        },
        feedback: { feedback, agentApiKey, sessionTokens, tracing, metrics, logger },
        metrics,
        widgetOrigins: config.widgetOrigins,
        rateLimits: config.rateLimits,
        rateLimitCounters: config.rateLimits.store === 'database' ? storage.rateLimits : undefined,
        trustProxy: config.trustProxy,
        health: {
          pingDatabase: () => store.ping(),
          info: { storage: config.storage.kind, model: chatModel.name, embedding_model: embedder.model },
        },
      },
      tracing,
      close: async () => {
        await tracing.shutdown();
        await storage.close();
      },
    };
  } catch (error) {
    await tracing.shutdown();
    await storage.close().catch(() => {});
    throw error;
  }
}

/** The rolling-summary writer: SUMMARY_MODEL with an API key, the extractive summarizer offline. */
function createSummarizer(config: Config, tokenCounter: TokenCounter, tracing: Tracing, metrics: Metrics): Summarizer {
  if (!config.openai.apiKey) return new ExtractiveSummarizer(tokenCounter);
  const { model, name } = createChatModel(config, tokenCounter, config.openai.summaryModel);
  return new LlmSummarizer({
    chatModel: model,
    modelName: name,
    tokenCounter,
    timeoutMs: config.openai.timeoutMs,
    // Its calls are traced and their tokens counted like the answers'.
    observeCall: observedModelCalls(tracing, metrics, name, 'summary'),
  });
}

/**
 * Gets the knowledge base ready: on an empty one, ingests KNOWLEDGE_SEED_DIR; on a
 * filled one, warns when it was embedded by another model than the configured
 * one (every question would fail until it is re-ingested). A failure here is
 * logged, not fatal: the service still answers, without that knowledge.
 */
async function prepareKnowledge(config: Config, store: SqlStore, embedder: Embedder, logger: Logger): Promise<void> {
  const models = await store.listEmbeddingModels();
  if (models.length > 0) {
    const others = models.filter((m) => m !== embedder.model);
    if (others.length > 0) {
      logger.warn(
        { stored: models, configured: embedder.model },
        `The knowledge base was embedded with ${others.join(', ')}, not ${embedder.model}: questions will fail with ` +
          'embedding_model_mismatch until it is re-ingested (npm run ingest -- <folders>)',
      );
    }
    return;
  }
  if (!config.knowledgeSeedDir) return;
  try {
    const files = await findSourceFiles([config.knowledgeSeedDir]);
    const summary = await ingestFiles(files, store, embedder);
    logger.info(
      { dir: config.knowledgeSeedDir, files: summary.files, chunks: summary.chunks },
      `Knowledge base was empty: ingested ${summary.files} files (${summary.chunks} chunks) from ${config.knowledgeSeedDir}`,
    );
  } catch (error) {
    logger.error(
      { err: error, dir: config.knowledgeSeedDir },
      'Could not ingest the seed knowledge base; starting without it (run npm run ingest once the embedder is reachable)',
    );
  }
}

/**
 * AGENT_API_KEY when set (required with DATABASE_URL). Otherwise the embedded default makes a random key once
 * and keeps it in DATA_DIR/agent-api-key (owner-only), so the review endpoints are
 * never open, yet a developer can read the key from that file.
 */
export async function resolveAgentApiKey(config: Config, logger: Logger): Promise<string> {
  if (config.agentApiKey) return config.agentApiKey;
  if (config.storage.kind !== 'pglite') {
    // Instances behind a load balancer must accept one key; a key generated per machine would differ.
    throw new ConfigError(
      `AGENT_API_KEY is required with ${config.storage.kind === 'supabase' ? 'SUPABASE_URL' : 'DATABASE_URL'}: every instance of the service must accept the same key.`,
    );
  }
  const file = path.join(config.storage.dataDir, 'agent-api-key');
  const existing = await fs.readFile(file, 'utf8').catch(() => null);
  if (existing?.trim()) {
    logger.info({ file }, `AGENT_API_KEY is not set: using the generated key in ${file}`);
    return existing.trim();
  }
  const key = randomBytes(24).toString('base64url');
  await fs.writeFile(file, `${key}\n`, { mode: 0o600 });
  logger.warn({ file }, `AGENT_API_KEY is not set: generated one and saved it in ${file}`);
  return key;
}
