import { createSupportTools, TOOL_NAMES } from './agent/tools';
import type { AppParts } from './app';
import { ChatService } from './chat/chat-service';
import { ChatTurns } from './chat/turn';
import { Redactor } from './privacy/redaction';
import { ListeningConversationFeed, PollingConversationFeed, type ConversationFeed } from './chat/conversation-feed';
import { HandoffService } from './chat/handoff';
import { IdempotentRequests } from './chat/idempotency';
import { SupportHours } from './chat/support-hours';
import type { Config } from './config';
import { agentKeyCheck } from './http/auth';
import { EventStreams } from './http/routes/handoff';
import { newSecret, SESSION_TOKEN_SECRET_NAME, SessionTokens } from './http/session-token';
import { CustomerTokenVerifier, signCustomerToken } from './identity/customer-token';
import { OrderProofs } from './identity/order-proofs';
import { resolveAgentApiKey, resolveCustomerIdentitySecret } from './identity/service-keys';
import { createEmbedder } from './knowledge/embeddings';
import { ModelQueryRewriter } from './knowledge/query-rewriter';
import { createRetriever } from './knowledge/retriever';
import { prepareKnowledge } from './knowledge/seed';
import { DESCRIBED_TITLES_MAX } from './agent/tools/search-knowledge-base';
import { ExtractiveSummarizer, LlmSummarizer, type Summarizer } from './memory/summarizer';
import { TokenCounter, type CountableMessage } from './memory/tokens';
import { createChatModel } from './models/chat-model';
import { ExtractiveChatModel } from './models/extractive-chat-model';
import type { Logger } from './observability/logger';
import { measuredRetriever, observedModelCalls } from './observability/instrument';
import { createTracing, NO_TRACING, type Tracing } from './observability/langfuse';
import { Metrics } from './observability/metrics';
import { CustomerPseudonyms, PSEUDONYM_SECRET_NAME } from './privacy/pseudonym';
import { ErasureService } from './privacy/erasure';
import { RetentionSchedule } from './privacy/retention';
import { TraceDeletion } from './privacy/trace-deletion';
import { compileAgents } from './shop/agents';
import { loadConfiguredShop, type Shop } from './shop/load-shop';
import { DEMO_CUSTOMER, seedSampleData } from './shop/sample-shop';
import { connectShopSystems, type ShopSystemTools } from './shop/shop-tools';
import { escalationOffer, widgetWords } from './shop/shop-words';
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
  store: SqlStore;
  /** Langfuse tracing (or NO_TRACING): tests flush it to see what was sent. */
  tracing: Tracing;
  /** Erasure of conversations and customers (audited), for tests and scripts. */
  erasure: ErasureService;
  /** The in-process retention sweep; null when CONVERSATION_RETENTION_DAYS is not set. */
  retention: RetentionSchedule | null;
  /** Deletes erased answers' traces in Langfuse and retries failures. */
  traceDeletion: TraceDeletion;
  /** Ends the conversations' event streams (each gets an `end` event): call first on shutdown, or the server waits for them. */
  endStreams(): void;
  /** Flushes the traces (bounded by LANGFUSE_FLUSH_TIMEOUT_MS), then closes the database; call after the server stopped taking requests. */
  close(): Promise<void>;
}

/**
 * The service, part by part: the shop (its file, checked before anything opens),
 * the database (migrated; the sample shop's data only for the sample shop), the
 * models, the knowledge, the shop's tools and agents, the chat service, human
 * takeover, customers' data, and the app's parts over them.
 */
export async function createDependencies(config: Config, logger: Logger, database?: SqlDatabase): Promise<Dependencies> {
  // A mistake in the shop file stops the start here, before the database opens or anything listens.
  const shop = loadConfiguredShop(config.shop, TOOL_NAMES);
  const storage = await openStorage(config, logger, database);
  let tracing: Tracing = NO_TRACING;
  let feed: ConversationFeed | null = null;
  let retention: RetentionSchedule | null = null;
  let traceDeletion: TraceDeletion | null = null;
  let shopSystems: ShopSystemTools | null = null;
  try {
    const { store } = storage;
    await prepareDatabase(storage, shop, logger);

    // Models and knowledge.
    const embedder = createEmbedder(config);
    const tokenCounter = new TokenCounter(config.openai.chatModel);
    const offlineWords = { orderNumbers: shop.orderNumbers, offlineNotice: shop.words.offline_notice };
    const chatModel = createChatModel(config, tokenCounter, config.openai.chatModel, offlineWords);
    if (!config.openai.apiKey) logger.warn('OPENAI_API_KEY is not set: answering offline (extractive answers, local embeddings)');
    // The sample shop's help center is KNOWLEDGE_SEED_DIR; a shop file names its own folders.
    await prepareKnowledge(shop.sample ? [config.knowledgeSeedDir].filter((d) => d !== null) : shop.knowledge.folders, store, embedder, logger);
    const metrics = new Metrics();
    // Customers' pseudonyms (traces, the erasure audit): one key for every instance, generated once unless set.
    const pseudonyms = new CustomerPseudonyms(config.privacy.pseudonymSecret ?? (await storage.secrets.keep(PSEUDONYM_SECRET_NAME, newSecret())));
    tracing = createTracing(config.langfuse, logger, (customerId) => pseudonyms.of(customerId));
    const retriever = measuredRetriever(createRetriever(store, embedder, config.retrieval), metrics);
    const summarizer = createSummarizer(config, tokenCounter, tracing, metrics);
    const rewriter = config.queryRewrite.mode === 'model' ? createQueryRewriter(config, tokenCounter, tracing, metrics) : undefined;

    // The shop's tools and agents.
    // Wrong order proofs are always counted in the database, whatever RATE_LIMIT_STORE says: every instance must agree.
    const orderProofs = new OrderProofs(storage.identity, storage.rateLimits, config.orderProofs);
    const knowledgeTitles = (await storage.knowledgeAdmin.listSources({ limit: DESCRIBED_TITLES_MAX })).sources.map((s) => s.title);
    const builtInTools = createSupportTools({ commerce: storage.commerce, orderProofs, retriever, shop, knowledgeTitles });
    shopSystems = await connectShopSystems(shop, logger);
    const supportHours = shop.supportHours
      ? SupportHours.fromSchedule(shop.supportHours)
      : new SupportHours(config.handoff.supportHours, config.handoff.supportTimezone);
    const agents = compileAgents(shop.agents, [...builtInTools, ...shopSystems.tools], {
      retriever,
      queryRewrite: config.queryRewrite.mode,
      historyWeights: config.retrieval.history,
      rewriter,
      chatModel: chatModel.model,
      modelName: chatModel.name,
      // Only a hosted model can fail over; offline mode is already the fallback.
      fallbackModel:
        config.openai.apiKey && config.openai.fallback === 'offline'
          ? new ExtractiveChatModel(tokenCounter, offlineWords)
          : undefined,
      escalationThreshold: config.retrieval.escalationThreshold,
      escalationOffer: escalationOffer(shop.words, supportHours),
      timeoutMs: config.openai.timeoutMs,
      sendPromptCacheKey: config.openai.apiKey !== null && config.openai.promptCacheKey,
      toolOutputMaxChars: config.toolOutputMaxChars,
      countTokens: (m: CountableMessage) => tokenCounter.countMessage(m),
      summarizer,
      store,
      windowLimits: { maxMessages: config.history.maxMessages, maxTokens: config.history.maxTokens },
      inputMaxTokens: config.modelInputMaxTokens,
      logger,
      tracing,
    });

    // Who may call what: the agents' key, customers' and sessions' tokens.
    const agentApiKey = await resolveAgentApiKey(config, logger);
    const identitySecret = await resolveCustomerIdentitySecret(config, logger);
    const customerTokens = new CustomerTokenVerifier({ ...config.customerIdentity, secret: identitySecret.secret });
    // Its own secret, not the agent key: rotating one must not break the other.
    const sessionTokenSecret = config.sessionTokens.secret ?? (await storage.secrets.keep(SESSION_TOKEN_SECRET_NAME, newSecret()));
    const sessionTokens = new SessionTokens(sessionTokenSecret, config.sessionTokens.previous);

    // Answers, and the people who take conversations over.
    const chatService = new ChatService({
      store,
      identity: storage.identity,
      agents,
      defaultAgentType: shop.agents[0]!.key,
      tokenCounter,
      history: config.history,
      inputMaxTokens: config.modelInputMaxTokens,
      metrics,
      tracing,
      logger,
      prices: config.modelPrices,
    });
    const feedback = storage.feedback;
    const redactor = new Redactor(config.redaction.detectors);
    feed = createConversationFeed(config, storage, logger);
    const streams = new EventStreams(config.eventStreams);
    const conversationFeed = feed;
    const handoff = new HandoffService({ store: storage.handoff, feed, tokenCounter, supportHours, logger });

    // Customers' data: erasure, its traces, the retention sweep.
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

    const connectedSystems = shopSystems;
    return {
      store,
      shop,
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
          agentTypes: shop.agents.map((a) => a.key),
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
          logger,
        },
        metrics,
        widgetOrigins: config.widgetOrigins,
        shopPages: {
          shopName: shop.name,
          widget: widgetWords(shop.name, shop.words),
          // The demo page is the sample shop's, and signs in only with the generated demo secret: a shop's real secret never signs tokens here.
          demoShop:
            shop.sample && identitySecret.demo
              ? { customerName: DEMO_CUSTOMER.name, signCustomerToken: () => signCustomerToken(identitySecret.secret!, DEMO_CUSTOMER.customerId) }
              : undefined,
          sampleShop: shop.sample,
        },
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
      traceDeletion,
      endStreams: () => streams.endAll(),
      close: async () => {
        await retention?.stop();
        await traceDeletion?.stop();
        streams.endAll();
        await feed?.close();
        await connectedSystems.close();
        await tracing.shutdown();
        await storage.close();
      },
    };
  } catch (error) {
    await retention?.stop();
    await traceDeletion?.stop();
    await feed?.close();
    await shopSystems?.close().catch(() => {});
    await tracing.shutdown();
    await storage.close().catch(() => {});
    throw error;
  }
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

