import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { compileSupportGraph } from './agent/graph';
import { HUMAN_HANDOFF_OFFER } from './agent/nodes/generate-response';
import { createSupportTools } from './agent/tools';
import { AGENT_SPECS } from './agent-specs';
import type { AppParts } from './app';
import { ChatService, type AgentRuntime } from './chat/chat-service';
import { ChatTurns } from './chat/turn';
import { Redactor } from './privacy/redaction';
import { RedactionBackfill, RedactionBackfillStore } from './privacy/redaction-backfill';
import { ListeningConversationFeed, PollingConversationFeed, type ConversationFeed } from './chat/conversation-feed';
import { HandoffService } from './chat/handoff';
import { IdempotentRequests } from './chat/idempotency';
import { SupportHours } from './chat/support-hours';
import { ConfigError, type Config, type StorageConfig } from './config';
import { agentKeyCheck } from './http/auth';
import { EventStreams } from './http/routes/handoff';
import { newSecret, SESSION_TOKEN_SECRET_NAME, SessionTokens } from './http/session-token';
import { CustomerTokenVerifier, signCustomerToken } from './identity/customer-token';
import { OrderProofs } from './identity/order-proofs';
import { createEmbedder, type Embedder } from './knowledge/embeddings';
import { findSourceFiles, ingestFiles } from './knowledge/ingest';
import { ModelQueryRewriter } from './knowledge/query-rewriter';
import { bindSiteSync } from './knowledge/site-sync-binding';
import { KnowledgeSyncSchedule } from './knowledge/sync-schedule';
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
import { HandoffStore } from './store/handoff-store';
import { KnowledgeAdminStore } from './store/knowledge-admin-store';
import { KnowledgeSyncLease } from './store/knowledge-sync-lease';
import { SiteSyncStore } from './store/site-sync-store';
import type { SqlDatabase } from './store/database';
import { applyMigrations } from './store/migrations';
import { openPgliteDatabase } from './store/pglite';
import { openPostgresDatabase } from './store/postgres';
import { IdentityStore } from './store/identity-store';
import { RateLimitCounters } from './store/rate-limit-store';
import { ServiceSecrets } from './store/service-secrets';
import { SqlStore } from './store/sql-store';
import { createSupabaseClient, supabaseFunctionCaller } from './store/supabase';
import { CustomerDataStore } from './privacy/customer-data';
import { ErasureService } from './privacy/erasure';
import { CustomerPseudonyms, PSEUDONYM_SECRET_NAME } from './privacy/pseudonym';
import { RetentionSchedule } from './privacy/retention';
import { TraceDeletion } from './privacy/trace-deletion';

/** Everything the service is made of, built once at start. */
export interface Dependencies {
  appParts: AppParts;
  store: SqlStore;
  /** Langfuse tracing (or NO_TRACING): tests flush it to see what was sent. */
  tracing: Tracing;
  /** Erasure of conversations and customers (audited), for tests and scripts. */
  erasure: ErasureService;
  /** The in-process retention sweep; null when CONVERSATION_RETENTION_DAYS is not set. */
  retention: RetentionSchedule | null;
  /** The in-process sync of KNOWLEDGE_SYNC_URLS; null when no site is configured. */
  knowledgeSync: KnowledgeSyncSchedule | null;
  /** Deletes erased answers' traces in Langfuse and retries failures. */
  traceDeletion: TraceDeletion;
  /** Re-masks texts stored before the current redaction (started in the background at start; tests await it). */
  redactionBackfill: RedactionBackfill;
  /** Ends the conversations' event streams (each gets an `end` event): call first on shutdown, or the server waits for them. */
  endStreams(): void;
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
  handoff: HandoffStore;
  knowledgeAdmin: KnowledgeAdminStore;
  /** Lets one instance at a time run the knowledge sync. */
  knowledgeSyncLease: KnowledgeSyncLease;
  /** Sites' sync runs (listed by the knowledge API) and crawl state. */
  siteSyncs: SiteSyncStore;
  rateLimits: RateLimitCounters;
  secrets: ServiceSecrets;
  identity: IdentityStore;
  /** Every table with customer data: erasure, retention, the audit, exports. */
  customerData: CustomerDataStore;
  /** The watermark and batches of the redaction backfill. */
  redactionBackfill: RedactionBackfillStore;
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
      handoff: new HandoffStore(functions),
      knowledgeAdmin: new KnowledgeAdminStore(functions),
      knowledgeSyncLease: new KnowledgeSyncLease(functions),
      siteSyncs: new SiteSyncStore(functions),
      rateLimits: new RateLimitCounters(functions),
      secrets: new ServiceSecrets(functions),
      identity: new IdentityStore(functions),
      customerData: new CustomerDataStore(functions),
      redactionBackfill: new RedactionBackfillStore(functions),
      db: null,
      close: async () => {},
    };
  }
  const db = database ?? (await openDatabase(config, logger));
  return {
    store: new SqlStore(db),
    commerce: new SqlCommerceStore(db),
    feedback: new FeedbackStore(db),
    handoff: new HandoffStore(db),
    knowledgeAdmin: new KnowledgeAdminStore(db),
    knowledgeSyncLease: new KnowledgeSyncLease(db),
    siteSyncs: new SiteSyncStore(db),
    rateLimits: new RateLimitCounters(db),
    secrets: new ServiceSecrets(db),
    identity: new IdentityStore(db),
    customerData: new CustomerDataStore(db),
    redactionBackfill: new RedactionBackfillStore(db),
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
  let feed: ConversationFeed | null = null;
  let retention: RetentionSchedule | null = null;
  let knowledgeSync: KnowledgeSyncSchedule | null = null;
  let traceDeletion: TraceDeletion | null = null;
  let redactionBackfill: RedactionBackfill | null = null;
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
    // Customers' pseudonyms (traces, the erasure audit): one key for every instance, generated once unless set.
    const pseudonyms = new CustomerPseudonyms(config.privacy.pseudonymSecret ?? (await storage.secrets.keep(PSEUDONYM_SECRET_NAME, newSecret())));
    tracing = createTracing(config.langfuse, logger, (customerId) => pseudonyms.of(customerId));
    const retriever = measuredRetriever(createRetriever(store, embedder, config.retrieval), metrics);
    // Wrong order proofs are always counted in the database, whatever RATE_LIMIT_STORE says: every instance must agree.
    const orderProofs = new OrderProofs(storage.identity, storage.rateLimits, config.orderProofs);
    const tools = createSupportTools({ commerce: storage.commerce, orderProofs, retriever });
    const summarizer = createSummarizer(config, tokenCounter, tracing, metrics);
    const rewriter = config.queryRewrite.mode === 'model' ? createQueryRewriter(config, tokenCounter, tracing, metrics) : undefined;
    // Only a hosted model can fail over; offline mode is already the fallback.
    const fallbackModel = config.openai.apiKey && config.openai.fallback === 'offline' ? new ExtractiveChatModel(tokenCounter) : undefined;
    const countTokens = (m: CountableMessage) => tokenCounter.countMessage(m);
    const supportHours = new SupportHours(config.handoff.supportHours, config.handoff.supportTimezone);
    const escalationOffer = () => escalationOfferText(supportHours);
    const agents = new Map<string, AgentRuntime>();
    for (const spec of AGENT_SPECS.values()) {
      const graph = compileSupportGraph({
        retriever,
        queryRewrite: config.queryRewrite.mode,
        historyWeights: config.retrieval.history,
        rewriter,
        chatModel: chatModel.model,
        modelName: chatModel.name,
        fallbackModel,
        tools: tools.filter((t) => spec.tools.includes(t.name)),
        instructions: spec.instructions,
        escalationThreshold: config.retrieval.escalationThreshold,
        escalationOffer,
        timeoutMs: config.openai.timeoutMs,
        sendPromptCacheKey: config.openai.apiKey !== null && config.openai.promptCacheKey,
        toolOutputMaxChars: config.toolOutputMaxChars,
        countTokens,
        summarizer,
        store,
        windowLimits: { maxMessages: config.history.maxMessages, maxTokens: config.history.maxTokens },
        inputMaxTokens: config.modelInputMaxTokens,
        logger,
        tracing,
      });
      agents.set(spec.key, { spec, graph });
    }
    const agentApiKey = await resolveAgentApiKey(config, logger);
    const identitySecret = await resolveCustomerIdentitySecret(config, logger);
    const customerTokens = new CustomerTokenVerifier({ ...config.customerIdentity, secret: identitySecret.secret });
    const chatService = new ChatService({
      store,
      identity: storage.identity,
      agents,
      tokenCounter,
      history: config.history,
      inputMaxTokens: config.modelInputMaxTokens,
      metrics,
      tracing,
      logger,
      prices: config.modelPrices,
    });
    // Its own secret, not the agent key: rotating one must not break the other.
    const sessionTokenSecret = config.sessionTokens.secret ?? (await storage.secrets.keep(SESSION_TOKEN_SECRET_NAME, newSecret()));
    const sessionTokens = new SessionTokens(sessionTokenSecret, config.sessionTokens.previous, storage.identity);
    const feedback = storage.feedback;
    const redactor = new Redactor(config.redaction.detectors);
    // Texts stored before this redaction are masked again, batch by batch, while the service answers.
    redactionBackfill = new RedactionBackfill(storage.redactionBackfill, redactor, logger);
    redactionBackfill.start();
    feed = createConversationFeed(config, storage, logger);
    const streams = new EventStreams(config.eventStreams);
    const conversationFeed = feed;
    traceDeletion = new TraceDeletion(config.langfuse, storage.customerData, logger, config.privacy.traceDeletionRetryMs);
    traceDeletion.start();
    const erasure = new ErasureService({
      data: storage.customerData,
      pseudonyms,
      traces: traceDeletion,
      touch: (sessionId) => conversationFeed.touch(sessionId),
      logger,
    });
    if (config.privacy.retentionDays !== null) {
      retention = new RetentionSchedule(
        { data: storage.customerData, erasure, langfuse: traceDeletion.enabled },
        { retentionDays: config.privacy.retentionDays, batchSize: config.privacy.retentionBatchSize },
        config.privacy.sweepIntervalMs,
        logger,
      );
      retention.start();
    }
    // The shop file's `knowledge:` sites join these here once it exists (they are sync URLs too).
    if (config.knowledgeSync.siteUrls.length > 0) {
      knowledgeSync = new KnowledgeSyncSchedule(
        { lease: storage.knowledgeSyncLease, syncSite: bindSiteSync({
            store,
            admin: storage.knowledgeAdmin,
            embedder,
            syncRuns: storage.siteSyncs,
            maxRemovalPercent: config.knowledgeSyncMaxRemovalPercent,
          }),
          logger,
        },
        { siteUrls: config.knowledgeSync.siteUrls, intervalMs: config.knowledgeSync.intervalMs },
      );
      knowledgeSync.start();
    }
    const handoff = new HandoffService({
      store: storage.handoff,
      feed,
      tokenCounter,
      supportHours,
      logger,
    });

    return {
      store,
      appParts: {
        logger,
        chat: {
          chatService,
          turns: new ChatTurns({
            chatService,
            handoff,
            idempotency: new IdempotentRequests({ store, ttlHours: config.idempotency.ttlHours, waitMs: config.idempotency.waitMs, logger }),
            redactor,
          }),
          store,
          agentApiKey,
          sessionTokens,
          customerTokens,
          streamHeartbeatMs: config.streamHeartbeatMs,
          feedback,
          handoff,
          logger,
          messageMaxChars: config.limits.messageMaxChars,
          historyLimitMax: config.limits.historyLimitMax,
          modelInputMaxTokens: config.modelInputMaxTokens,
          agentTypes: [...AGENT_SPECS.keys()],
        },
        feedback: { feedback, redactor, agentApiKey, sessionTokens, tracing, metrics, logger },
        privacy: {
          erasure,
          data: storage.customerData,
          store,
          agentApiKey,
          sessionTokens,
          customerTokens,
          tokenFailures: { counters: storage.rateLimits, perClient: config.authFailures.perClient, windowMs: config.authFailures.windowMs },
          exportLimit: { counters: storage.rateLimits, perHour: config.privacy.customerExportsPerHour },
          logger,
        },
        handoff: {
          handoff,
          handoffStore: storage.handoff,
          feed,
          store,
          agentApiKey,
          sessionTokens,
          messageMaxChars: config.limits.messageMaxChars,
          streamHeartbeatMs: config.streamHeartbeatMs,
          streams,
          logger,
        },
        knowledge: {
          store,
          admin: storage.knowledgeAdmin,
          embedder,
          agentApiKey,
          documentMaxBytes: config.knowledgeDocumentMaxBytes,
          escalationThreshold: config.retrieval.escalationThreshold,
          syncRuns: storage.siteSyncs,
          logger,
        },
        metrics,
        widgetOrigins: config.widgetOrigins,
        // Only with the generated demo secret: a shop's real secret never signs tokens here.
        demoShop: identitySecret.demo
          ? { customerName: DEMO_CUSTOMER.name, signCustomerToken: () => signCustomerToken(identitySecret.secret!, DEMO_CUSTOMER.customerId) }
          : undefined,
        rateLimits: config.rateLimits,
        rateLimitCounters: config.rateLimits.store === 'database' ? storage.rateLimits : undefined,
        // Failures are rare, so they are always counted in the database, on every backend.
        authFailures: { ...config.authFailures, counters: storage.rateLimits, isAgent: agentKeyCheck(agentApiKey) },
        metricsAccess: { token: config.metricsToken, production: config.production },
        trustProxy: config.trustProxy,
        health: {
          pingDatabase: () => store.ping(),
          info: { storage: config.storage.kind, model: chatModel.name, embedding_model: embedder.model },
        },
      },
      tracing,
      erasure,
      retention,
      knowledgeSync,
      traceDeletion,
      redactionBackfill,
      endStreams: () => streams.endAll(),
      close: async () => {
        await knowledgeSync?.stop();
        await redactionBackfill?.stop();
        await retention?.stop();
        await traceDeletion?.stop();
        streams.endAll();
        await feed?.close();
        await tracing.shutdown();
        await storage.close();
      },
    };
  } catch (error) {
    await knowledgeSync?.stop();
    await redactionBackfill?.stop();
    await retention?.stop();
    await traceDeletion?.stop();
    await feed?.close();
    await tracing.shutdown();
    await storage.close().catch(() => {});
    throw error;
  }
}

/** The end of an escalated answer: a person is offered in this chat, unless SUPPORT_HOURS says nobody answers now. */
function escalationOfferText(supportHours: SupportHours): string {
  const { open, hours } = supportHours.availability();
  if (open !== false) return HUMAN_HANDOFF_OFFER;
  return `I am not confident I have the right answer, so I have flagged this conversation for our support team. They are not available right now (they answer ${hours}); they will see your question and reply in this chat.`;
}

/**
 * How event streams learn of messages other instances stored: LISTEN/NOTIFY on a
 * connection of its own with DATABASE_URL (unless EVENTS_DELIVERY=poll, e.g.
 * behind a transaction pooler, which cannot LISTEN), else a poll of the watched
 * sessions' newest seq.
 */
function createConversationFeed(config: Config, storage: OpenStorage, logger: Logger): ConversationFeed {
  if (config.storage.kind === 'postgres' && config.handoff.delivery === 'listen') {
    return new ListeningConversationFeed(config.storage.url, logger);
  }
  return new PollingConversationFeed(storage.handoff, config.handoff.pollMs, logger);
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
    // The answering model writes the summaries: ask for them after the answer's cached prefix.
    sharesAnswerModel: config.openai.summaryModel === config.openai.chatModel,
    // Its calls are traced and their tokens counted like the answers'.
    observeCall: observedModelCalls(tracing, metrics, name, 'summary'),
  });
}

/** The follow-up rewriter (QUERY_REWRITE=model): QUERY_REWRITE_MODEL, traced and counted like the summary's calls. */
function createQueryRewriter(config: Config, tokenCounter: TokenCounter, tracing: Tracing, metrics: Metrics): ModelQueryRewriter {
  const { model, name } = createChatModel(config, tokenCounter, config.queryRewrite.model);
  return new ModelQueryRewriter({
    chatModel: model,
    modelName: name,
    timeoutMs: config.openai.timeoutMs,
    observeCall: observedModelCalls(tracing, metrics, name, 'rewrite'),
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

/** The demo shop's signed-in customer (sample data), whose token the demo page signs. */
export const DEMO_CUSTOMER = { customerId: 'lukas@example.com', name: 'Lukas Brandt' } as const;

/**
 * The HS256 secret for customer tokens: CUSTOMER_IDENTITY_SECRET when set.
 * Otherwise the embedded default (PGlite) makes one once and keeps it in
 * DATA_DIR/customer-identity-secret (owner-only), like the agent key, and the demo
 * shop page signs its signed-in customer's token with it (`demo`). With a
 * database server and no secret, HS256 tokens are refused (a public key or JWKS
 * may still verify RS256/ES256 ones): instances must share one secret.
 */
export async function resolveCustomerIdentitySecret(config: Config, logger: Logger): Promise<{ secret: string | null; demo: boolean }> {
  if (config.customerIdentity.secret) return { secret: config.customerIdentity.secret, demo: false };
  if (config.storage.kind !== 'pglite') return { secret: null, demo: false };
  const file = path.join(config.storage.dataDir, 'customer-identity-secret');
  const existing = (await fs.readFile(file, 'utf8').catch(() => null))?.trim();
  if (existing) return { secret: existing, demo: true };
  const secret = randomBytes(32).toString('base64url');
  await fs.writeFile(file, `${secret}\n`, { mode: 0o600 });
  logger.warn({ file }, `CUSTOMER_IDENTITY_SECRET is not set: generated a demo secret and saved it in ${file}; the demo shop page signs in as ${DEMO_CUSTOMER.name} with it`);
  return { secret, demo: true };
}
