import { TOOL_NAMES } from './agent/tools';
import type { AppParts } from './app';
import type { FailedSync } from './http/routes/health';
import { ChatService } from './chat/chat-service';
import { ChatTurns } from './chat/turn';
import { Redactor } from './privacy/redaction';
import { RedactionBackfill } from './privacy/redaction-backfill';
import { ListeningConversationFeed, PollingConversationFeed, type ConversationFeed } from './chat/conversation-feed';
import { HandoffService } from './chat/handoff';
import { IdempotentRequests } from './chat/idempotency';
import { SupportHours } from './chat/support-hours';
import type { Config } from './config';
import type { NetworkGuard } from './connectors/network-guard';
import { RecordingNetworkGuard } from './connectors/recording-guard';
import { agentKeyCheck } from './http/auth';
import { EventStreams } from './http/routes/handoff';
import { newSecret, SESSION_TOKEN_SECRET_NAME, SessionTokens } from './http/session-token';
import { CustomerTokenVerifier, signCustomerToken } from './identity/customer-token';
import { OrderProofs } from './identity/order-proofs';
import { resolveAgentApiKey, resolveCustomerIdentitySecret } from './identity/service-keys';
import { createEmbedder, type Embedder } from './knowledge/embeddings';
import { ModelQueryRewriter } from './knowledge/query-rewriter';
import { cachedKnowledgeLanguages } from './knowledge/knowledge-languages';
import { bindSiteSync, configuredKnowledgeSites } from './knowledge/site-sync-binding';
import { KnowledgeSyncSchedule } from './knowledge/sync-schedule';
import { createRetriever, type Retriever } from './knowledge/retriever';
import { EscalationCalibration } from './knowledge/threshold-calibration';
import { retrievalConfidence } from './agent/nodes/retrieve';
import { loadLanguageDetector } from './knowledge/language/detect';
import { prepareKnowledge } from './knowledge/seed';
import { ExtractiveSummarizer, LlmSummarizer, type Summarizer } from './memory/summarizer';
import { TokenCounter, type CountableMessage } from './memory/tokens';
import { createChatModel, type ChatModelChoice } from './models/chat-model';
import { sentenceMeaningOf } from './models/sentence-meaning';
import { ExtractiveChatModel, OFFLINE_CHAT_MODEL } from './models/extractive-chat-model';
import type { Logger } from './observability/logger';
import { measuredRetriever, observedModelCalls } from './observability/instrument';
import { createTracing, type Tracing } from './observability/langfuse';
import { Metrics } from './observability/metrics';
import { CustomerPseudonyms, PSEUDONYM_SECRET_NAME } from './privacy/pseudonym';
import { ErasureService } from './privacy/erasure';
import { RetentionSchedule } from './privacy/retention';
import { TraceDeletion } from './privacy/trace-deletion';
import { createShopAgents, type SharedGraphParts } from './shop/agents';
import { loadConfiguredShop, type Shop } from './shop/load-shop';
import { DEMO_CUSTOMER, seedSampleData } from './shop/sample-shop';
import { actReply, wordsFor } from './shop/shop-words';
import { FALLBACK_LANGUAGE } from './chat/conversation-language';
import type { SqlDatabase } from './store/database';
import { applyMigrations } from './store/migrations';
import { openStorage, type OpenStorage } from './store/open-storage';
import type { SqlStore } from './store/sql-store';

export { describeStorage, openDatabase, openStorage, type OpenStorage } from './store/open-storage';
export { resolveAgentApiKey, resolveCustomerIdentitySecret } from './identity/service-keys';
export { DEMO_CUSTOMER } from './shop/sample-shop';

/** Everything the service is made of, built once at start. */
export interface Dependencies {
  appParts: AppParts;
  /** The shop the service runs: its file's agents, tools, words and hours. */
  shop: Shop;
  /** Checks every outbound request of the shop's tools; tell it the port the service listens on (setServicePort), so no tool calls the service itself. */
  networkGuard: NetworkGuard;
  store: SqlStore;
  /** Langfuse tracing (or NO_TRACING): tests flush it to see what was sent. */
  tracing: Tracing;
  /** Erasure of conversations and customers (audited), for tests and scripts. */
  erasure: ErasureService;
  /** The in-process retention sweep; null when CONVERSATION_RETENTION_DAYS is not set. */
  retention: RetentionSchedule | null;
  /** The in-process sync of the knowledge sites (KNOWLEDGE_SYNC_URLS and the shop file's `knowledge.sites`; scheduled only when there are some), and of a site on request (POST /api/v1/knowledge/syncs). */
  knowledgeSync: KnowledgeSyncSchedule;
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
 * The service, part by part, in the order they are built: the shop (its file,
 * checked before anything opens), the database, the models, the knowledge, the
 * shop's agents, who may call what, the chat service, the conversations people
 * take over, customers' data, and the app's parts over them. Each part is built
 * by its own function or module; what is started is stopped in reverse order.
 */
export async function createDependencies(config: Config, logger: Logger, database?: SqlDatabase): Promise<Dependencies> {
  // A mistake in the shop file stops the start here, before the database opens or anything listens.
  const shop = loadConfiguredShop(config.shop, TOOL_NAMES);
  // The language detector (about 1 s of blocking work) loads before any connection is open:
  // loaded mid-start, it stalled idle keep-alive connections to Supabase's API into resets.
  const languageDetector = await loadLanguageDetector();
  const storage = await openStorage(config, logger, database);
  const stops = new StopList();
  try {
    await prepareDatabase(storage, shop, logger);
    const metrics = new Metrics();
    const { tracing, pseudonyms } = await createServiceTracing(config, storage, logger);
    stops.add(() => tracing.shutdown());
    const models = createModels(config, shop, tracing, metrics, logger);
    await prepareKnowledge(knowledgeFolders(config, shop), storage.store, models.embedder, logger, { languages: shop.languages, admin: storage.knowledgeAdmin });
    // Detection only for an embedder of some languages (the offline sentence encoder).
    const detectLanguage = async (text: string) => languageDetector.detect(text, { preferred: shop.languages });
    // The offline responder quotes: it gets the best document's closest section too.
    const closestPassage = models.chatModel.name === OFFLINE_CHAT_MODEL;
    const retriever = measuredRetriever(createRetriever(storage.store, models.embedder, { ...config.retrieval, detectLanguage, closestPassage }), metrics);
    const calibration = startEscalationCalibration(config, storage, retriever, logger);
    const supportHours = shop.supportHours
      ? SupportHours.fromSchedule(shop.supportHours)
      : new SupportHours(config.handoff.supportHours, config.handoff.supportTimezone);
    // Every request to a URL the service was given (the shop's API, MCP over HTTP) goes through it.
    // It can also say what one tool call sent: the console's tools page shows it.
    const networkGuard = new RecordingNetworkGuard();
    // Customers' messages before storage, and the results of the shop's systems before the model sees them.
    const redactor = new Redactor(config.redaction.detectors);
    // Texts stored before this redaction are masked again, batch by batch, while the service answers.
    const redactionBackfill = new RedactionBackfill(storage.redactionBackfill, redactor, logger);
    redactionBackfill.start();
    stops.add(() => redactionBackfill.stop());
    const knowledgeSync = startKnowledgeSync(config, shop, storage, models.embedder, networkGuard, logger, () => calibration.recalibrateInBackground());
    stops.add(() => knowledgeSync.stop());
    // Wrong order proofs are always counted in the database, whatever RATE_LIMIT_STORE says: every instance must agree.
    // One limit for the built-in lookup_order and the shop's actions with guest_proof.
    const orderProofs = new OrderProofs(storage.identity, storage.rateLimits, config.orderProofs);
    const shopAgents = await createShopAgents({
      shop,
      builtInTools: { commerce: storage.commerce, orderProofs, retriever },
      knowledgeAdmin: storage.knowledgeAdmin,
      supportHours,
      graph: { ...sharedGraphParts(config, models, retriever, storage.store, tracing, logger), meaningScale: () => calibration.meaningScale() },
      connectors: { env: config.shop.env, guard: networkGuard, redactor, tokenCounter: models.tokenCounter, tracing, logger, orderProofs },
    });
    stops.add(() => shopAgents.close());
    const access = await createAccess(config, storage, logger);
    const chatService = new ChatService({
      store: storage.store,
      identity: storage.identity,
      agents: shopAgents.agents,
      defaultAgentType: shopAgents.defaultAgentType,
      tokenCounter: models.tokenCounter,
      history: config.history,
      inputMaxTokens: config.modelInputMaxTokens,
      metrics,
      tracing,
      logger,
      prices: config.modelPrices,
      redactor,
      actReply: (act, language) => actReply(shop.words, shop.languages[0] ?? FALLBACK_LANGUAGE, act, language),
      languages: {
        detector: languageDetector,
        shopLanguages: shop.languages,
        sentencesFor: (language) => {
          const { sign_in, tool_failure, order_not_found, proof_limited } = wordsFor(shop, language);
          return { sign_in, tool_failure, order_not_found, proof_limited };
        },
      },
    });
    const conversations = createConversations(config, storage, models.tokenCounter, supportHours, logger);
    stops.add(() => conversations.close());
    const customerData = createCustomerDataLifecycle(config, storage, pseudonyms, conversations.feed, logger);
    stops.add(() => customerData.stop());

    return {
      store: storage.store,
      shop,
      networkGuard,
      appParts: {
        ...assembleAppParts({ config, shop, storage, models, metrics, tracing, redactor, access, chatService, conversations, customerData, knowledgeSync, calibration, logger }),
        shopTools: {
          tools: () => shopAgents.shopTools(),
          guard: networkGuard,
          agents: shop.agents.map((a) => ({ key: a.key, tools: a.tools })),
          trials: storage.customerData,
          agentApiKey: access.agentApiKey,
          logger,
        },
      },
      tracing,
      erasure: customerData.erasure,
      retention: customerData.retention,
      knowledgeSync,
      traceDeletion: customerData.traceDeletion,
      redactionBackfill,
      endStreams: () => conversations.streams.endAll(),
      close: async () => {
        await stops.runAll();
        await storage.close();
      },
    };
  } catch (error) {
    await stops.runAll().catch(() => {});
    await storage.close().catch(() => {});
    throw error;
  }
}

/**
 * The sync of the knowledge sites, in process through the service's own guard (so no
 * page may be the service itself): the configured sites on a schedule (none, no
 * schedule), and one site on request (POST /api/v1/knowledge/syncs).
 */
function startKnowledgeSync(
  config: Config,
  shop: Shop,
  storage: OpenStorage,
  embedder: Embedder,
  guard: NetworkGuard,
  logger: Logger,
  afterSync: () => void,
): KnowledgeSyncSchedule {
  const sites = configuredKnowledgeSites(config.knowledgeSync, shop.knowledge.sites);
  const siteUrls = sites.map((s) => s.url);
  const syncOneSite = bindSiteSync({
    store: storage.store,
    admin: storage.knowledgeAdmin,
    embedder,
    syncRuns: storage.siteSyncs,
    maxRemovalPercent: config.knowledgeSyncMaxRemovalPercent,
    recheckAfterMs: config.knowledgeSync.recheckAfterMs,
    guard,
    privateNetworkSites: new Set(sites.filter((s) => s.allowPrivateNetwork).map((s) => s.url)),
    languages: shop.languages,
  });
  // A sync changes the knowledge base: the escalation threshold is measured again on it.
  const syncSite: typeof syncOneSite = async (...args) => {
    const report = await syncOneSite(...args);
    afterSync();
    return report;
  };
  const schedule = new KnowledgeSyncSchedule({ lease: storage.knowledgeSyncLease, syncSite, logger }, { siteUrls, intervalMs: config.knowledgeSync.intervalMs });
  schedule.start();
  return schedule;
}

/**
 * The escalation threshold measured for the knowledge base and embedder (threshold-calibration.ts),
 * at start and after each sync, in the background: until it is measured, the default stands.
 */
function startEscalationCalibration(config: Config, storage: OpenStorage, retriever: Retriever, logger: Logger): EscalationCalibration {
  const calibration = new EscalationCalibration(
    { admin: storage.knowledgeAdmin, retriever, confidenceOf: (documents) => retrievalConfidence(documents), logger },
    { threshold: config.retrieval.escalationThreshold, enabled: config.retrieval.calibrateEscalation, configured: config.retrieval.escalationThresholdSet },
  );
  calibration.recalibrateInBackground();
  return calibration;
}

/** What was started, stopped in reverse order (the last started first). */
class StopList {
  private readonly stops: Array<() => Promise<void> | void> = [];

  add(stop: () => Promise<void> | void): void {
    this.stops.push(stop);
  }

  async runAll(): Promise<void> {
    while (this.stops.length > 0) await this.stops.pop()!();
  }
}

/** Langfuse tracing (NO_TRACING without keys), with customers' pseudonyms: one key for every instance, generated once unless set. */
async function createServiceTracing(config: Config, storage: OpenStorage, logger: Logger): Promise<{ tracing: Tracing; pseudonyms: CustomerPseudonyms }> {
  const pseudonyms = new CustomerPseudonyms(config.privacy.pseudonymSecret ?? (await storage.secrets.keep(PSEUDONYM_SECRET_NAME, newSecret())));
  return { tracing: createTracing(config.langfuse, logger, (customerId) => pseudonyms.of(customerId)), pseudonyms };
}

/** The models: embeddings, the answering model (or the offline responder, in the shop's words), its fallback, the summarizer and the rewriter. */
interface Models {
  embedder: Embedder;
  tokenCounter: TokenCounter;
  chatModel: ChatModelChoice;
  fallbackModel: ExtractiveChatModel | undefined;
  summarizer: Summarizer;
  rewriter: ModelQueryRewriter | undefined;
}

function createModels(config: Config, shop: Shop, tracing: Tracing, metrics: Metrics, logger: Logger): Models {
  const tokenCounter = new TokenCounter(config.openai.chatModel);
  const embedder = createEmbedder(config);
  const offlineWords = {
    orderNumbers: shop.orderNumbers,
    offlineNotice: wordsFor(shop, null).offline_notice,
    offlineNoticeFor: (language: string) => wordsFor(shop, language).offline_notice,
    meaning: sentenceMeaningOf(embedder),
  };
  if (!config.openai.apiKey) logger.warn('OPENAI_API_KEY is not set: answering offline (extractive answers, local embeddings)');
  return {
    embedder,
    tokenCounter,
    chatModel: createChatModel(config, tokenCounter, config.openai.chatModel, offlineWords),
    // Only a hosted model can fail over; offline mode is already the fallback.
    fallbackModel: config.openai.apiKey && config.openai.fallback === 'offline' ? new ExtractiveChatModel(tokenCounter, offlineWords) : undefined,
    summarizer: createSummarizer(config, tokenCounter, tracing, metrics),
    rewriter: config.queryRewrite.mode === 'model' ? createQueryRewriter(config, tokenCounter, tracing, metrics) : undefined,
  };
}

/** The folders ingested into an empty knowledge base: the sample shop's help center (KNOWLEDGE_SEED_DIR), or the shop file's own. */
function knowledgeFolders(config: Config, shop: Shop): string[] {
  if (!shop.sample) return shop.knowledge.folders;
  return config.knowledgeSeedDir ? [config.knowledgeSeedDir] : [];
}

/** What every agent's graph shares: models, retrieval, memory and limits. */
function sharedGraphParts(config: Config, models: Models, retriever: Retriever, store: SqlStore, tracing: Tracing, logger: Logger): SharedGraphParts {
  return {
    retriever,
    queryRewrite: config.queryRewrite.mode,
    historyWeights: config.retrieval.history,
    rewriter: models.rewriter,
    // An English help center, a German customer: the rewrite writes the query in English.
    knowledgeLanguages: cachedKnowledgeLanguages(() => store.knowledgeLanguages()),
    chatModel: models.chatModel.model,
    modelName: models.chatModel.name,
    fallbackModel: models.fallbackModel,
    escalationThreshold: config.retrieval.escalationThreshold,
    timeoutMs: config.openai.timeoutMs,
    sendPromptCacheKey: config.openai.apiKey !== null && config.openai.promptCacheKey,
    toolOutputMaxChars: config.toolOutputMaxChars,
    countTokens: (m: CountableMessage) => models.tokenCounter.countMessage(m),
    summarizer: models.summarizer,
    store,
    windowLimits: { maxMessages: config.history.maxMessages, maxTokens: config.history.maxTokens },
    inputMaxTokens: config.modelInputMaxTokens,
    logger,
    tracing,
  };
}

/** Who may call what: the agents' key, customers' tokens (and the demo secret), conversations' session tokens. */
interface Access {
  agentApiKey: string;
  customerTokens: CustomerTokenVerifier;
  sessionTokens: SessionTokens;
  identitySecret: { secret: string | null; demo: boolean };
}

async function createAccess(config: Config, storage: OpenStorage, logger: Logger): Promise<Access> {
  const agentApiKey = await resolveAgentApiKey(config, logger);
  const identitySecret = await resolveCustomerIdentitySecret(config, logger);
  // Its own secret, not the agent key: rotating one must not break the other.
  const sessionTokenSecret = config.sessionTokens.secret ?? (await storage.secrets.keep(SESSION_TOKEN_SECRET_NAME, newSecret()));
  return {
    agentApiKey,
    identitySecret,
    customerTokens: new CustomerTokenVerifier({ ...config.customerIdentity, secret: identitySecret.secret }),
    sessionTokens: new SessionTokens(sessionTokenSecret, config.sessionTokens.previous, storage.identity),
  };
}

/** Conversations as people see them: the feed of new messages across instances, the event streams, human takeover. */
interface Conversations {
  feed: ConversationFeed;
  streams: EventStreams;
  handoff: HandoffService;
  close(): Promise<void>;
}

function createConversations(config: Config, storage: OpenStorage, tokenCounter: TokenCounter, supportHours: SupportHours, logger: Logger): Conversations {
  const feed = createConversationFeed(config, storage, logger);
  const streams = new EventStreams(config.eventStreams);
  const handoff = new HandoffService({ store: storage.handoff, feed, tokenCounter, supportHours, logger });
  return {
    feed,
    streams,
    handoff,
    close: async () => {
      streams.endAll();
      await feed.close();
    },
  };
}

/** Customers' data over time: erasure (audited), the deletion of erased answers' traces, the retention sweep. */
interface CustomerDataLifecycle {
  erasure: ErasureService;
  traceDeletion: TraceDeletion;
  /** null when CONVERSATION_RETENTION_DAYS is not set. */
  retention: RetentionSchedule | null;
  stop(): Promise<void>;
}

function createCustomerDataLifecycle(config: Config, storage: OpenStorage, pseudonyms: CustomerPseudonyms, feed: ConversationFeed, logger: Logger): CustomerDataLifecycle {
  const traceDeletion = new TraceDeletion(config.langfuse, storage.customerData, logger, config.privacy.traceDeletionRetryMs);
  traceDeletion.start();
  const erasure = new ErasureService({ data: storage.customerData, pseudonyms, traces: traceDeletion, touch: (sessionId) => feed.touch(sessionId), logger });
  let retention: RetentionSchedule | null = null;
  if (config.privacy.retentionDays !== null) {
    retention = new RetentionSchedule(
      { data: storage.customerData, erasure, langfuse: traceDeletion.enabled },
      { retentionDays: config.privacy.retentionDays, batchSize: config.privacy.retentionBatchSize },
      config.privacy.sweepIntervalMs,
      logger,
    );
    retention.start();
  }
  return {
    erasure,
    traceDeletion,
    retention,
    stop: async () => {
      await retention?.stop();
      await traceDeletion.stop();
    },
  };
}

/** The app's parts: each group of routes gets what it needs of the parts above. */
function assembleAppParts(parts: {
  config: Config;
  shop: Shop;
  storage: OpenStorage;
  models: Models;
  metrics: Metrics;
  tracing: Tracing;
  redactor: Redactor;
  access: Access;
  chatService: ChatService;
  conversations: Conversations;
  customerData: CustomerDataLifecycle;
  knowledgeSync: KnowledgeSyncSchedule;
  calibration: EscalationCalibration;
  logger: Logger;
}): Omit<AppParts, 'shopTools'> {
  const { config, shop, storage, models, metrics, tracing, redactor, chatService, logger } = parts;
  const { agentApiKey, sessionTokens, customerTokens, identitySecret } = parts.access;
  const { feed, streams, handoff } = parts.conversations;
  const { store, feedback } = storage;
  return {
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
      agentTypes: shop.agents.map((a) => a.key),
    },
    feedback: { feedback, redactor, agentApiKey, sessionTokens, tracing, metrics, logger },
    privacy: {
      erasure: parts.customerData.erasure,
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
      conversations: store,
      admin: storage.knowledgeAdmin,
      embedder: models.embedder,
      agentApiKey,
      documentMaxBytes: config.knowledgeDocumentMaxBytes,
      escalationThreshold: config.retrieval.escalationThreshold,
      syncRuns: storage.siteSyncs,
      languages: shop.languages,
      siteSyncs: parts.knowledgeSync,
      logger,
    },
    metrics,
    widgetOrigins: config.widgetOrigins,
    shopPages: {
      shopName: shop.name,
      words: shop,
      sampleShop: shop.sample,
      // The sample shop's demo page signs in only with the generated demo secret: a shop's real secret never signs tokens here.
      demoShop:
        shop.sample && identitySecret.demo
          ? { customerName: DEMO_CUSTOMER.name, signCustomerToken: () => signCustomerToken(identitySecret.secret!, DEMO_CUSTOMER.customerId) }
          : undefined,
    },
    rateLimits: config.rateLimits,
    rateLimitCounters: config.rateLimits.store === 'database' ? storage.rateLimits : undefined,
    // Failures are rare, so they are always counted in the database, on every backend.
    authFailures: { ...config.authFailures, counters: storage.rateLimits, isAgent: agentKeyCheck(agentApiKey) },
    metricsAccess: { token: config.metricsToken, production: config.production },
    trustProxy: config.trustProxy,
    health: {
      pingDatabase: () => store.ping(),
      failedSyncs: failedSyncsOf(storage.siteSyncs),
      escalationThreshold: () => parts.calibration.status(),
      info: { storage: config.storage.kind, model: models.chatModel.name, embedding_model: models.embedder.model },
    },
  };
}

/** How many recent runs /health reads to find each site's last one: far more than a shop has sites. */
const HEALTH_SYNC_RUNS = 100;
/** /health is probed often: the sites' last runs are read at most this often. */
const HEALTH_SYNC_CACHE_MS = 15_000;

/** The sites whose last finished sync failed or held its removals back, from the recorded runs (every instance's, the command's too). */
function failedSyncsOf(syncRuns: OpenStorage['siteSyncs']): () => Promise<FailedSync[]> {
  let cached: { at: number; failed: FailedSync[] } | null = null;
  return async () => {
    if (cached && Date.now() - cached.at < HEALTH_SYNC_CACHE_MS) return cached.failed;
    const runs = await syncRuns.recentRuns({ limit: HEALTH_SYNC_RUNS });
    const last = new Map<string, (typeof runs)[number]>();
    // Newest first: the first finished run of a site is its last.
    for (const run of runs) if (run.status !== 'running' && !last.has(run.site)) last.set(run.site, run);
    const failed = [...last.values()]
      .filter((run) => run.status === 'failed' || run.status === 'held')
      .map((run) => ({ site: run.site, status: run.status as FailedSync['status'], finished_at: run.finishedAt!.toISOString() }));
    cached = { at: Date.now(), failed };
    return failed;
  };
}

/**
 * Migrates the database (through Supabase's API the service cannot: it checks
 * that someone did), and seeds the sample shop's customers and orders when the
 * sample shop runs. No other shop gets them: migration 20261126000400 took them
 * out of every database.
 */
async function prepareDatabase(storage: OpenStorage, shop: Shop, logger: Logger): Promise<void> {
  if (!storage.db) {
    await storage.store.ping();
    return;
  }
  const applied = await applyMigrations(storage.db);
  if (applied.length > 0) logger.info({ migrations: applied }, `Applied ${applied.length} database migration(s)`);
  if (shop.sample) await seedSampleData(storage.db, logger);
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

