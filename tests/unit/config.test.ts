import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';

describe('configuration from the environment', () => {
  it('calibrates the escalation threshold when asked (auto: with a hosted embedder only), never over ESCALATION_CONFIDENCE_THRESHOLD', () => {
    const calibrates = (env: Record<string, string>) => loadConfig({ AGENT_API_KEY: 'k', ...env }).retrieval.calibrateEscalation;
    expect(calibrates({})).toBe(false);
    expect(calibrates({ ESCALATION_CALIBRATION: 'on' })).toBe(true);
    expect(calibrates({ ESCALATION_CALIBRATION: 'auto' })).toBe(false);
    expect(calibrates({ ESCALATION_CALIBRATION: 'auto', OPENAI_API_KEY: 'sk-x' })).toBe(true);
    expect(calibrates({ ESCALATION_CALIBRATION: 'on', ESCALATION_CONFIDENCE_THRESHOLD: '0.4' })).toBe(false);
    expect(() => loadConfig({ ESCALATION_CALIBRATION: 'sometimes' })).toThrow(/ESCALATION_CALIBRATION/);
  });

  it('has the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.storage).toEqual({ kind: 'pglite', dataDir: path.resolve('./.data') });
    expect(config.openai).toMatchObject({
      apiKey: null,
      chatModel: 'gpt-4o-mini',
      embeddingModel: 'text-embedding-3-small',
      timeoutMs: 30000,
      maxRetries: 2,
    });
    expect(config.history).toEqual({ enabled: true, maxMessages: 100, maxTokens: 4000 });
    expect(config.limits.messageMaxChars).toBe(4000);
    expect(config.retrieval).toEqual({ topK: 4, minSimilarity: 0.1, escalationThreshold: 0.25, calibrateEscalation: false, escalationThresholdSet: false, fullTextWeight: 1, semanticWeight: 1, history: { weight: 0.2, followUpWeight: 0.5 } });
    expect(config.offlineEmbedder).toBe('use-lite');
    expect(config.queryRewrite).toEqual({ mode: 'topic', model: 'gpt-4o-mini' });
  });

  it('sets retrieval by embedder and key: thresholds on each scale, the rewrite by a model only with a key', () => {
    expect(loadConfig({ OFFLINE_EMBEDDER: 'hashing' }).retrieval.escalationThreshold).toBe(0.2);
    const online = loadConfig({ OPENAI_API_KEY: 'sk-test', QUERY_REWRITE_MODEL: 'gpt-4.1-nano' });
    expect(online.queryRewrite).toEqual({ mode: 'model', model: 'gpt-4.1-nano' });
    // Without a key there is no model to ask.
    expect(loadConfig({ QUERY_REWRITE: 'model' }).queryRewrite.mode).toBe('topic');
    expect(loadConfig({ OPENAI_API_KEY: 'sk-test', QUERY_REWRITE: 'off' }).queryRewrite.mode).toBe('off');
    expect(() => loadConfig({ OFFLINE_EMBEDDER: 'bert' })).toThrow(/OFFLINE_EMBEDDER/);
    expect(() => loadConfig({ RETRIEVAL_HISTORY_WEIGHT: '1.5' })).toThrow(/RETRIEVAL_HISTORY_WEIGHT/);
  });

  it('coerces numbers and booleans and treats empty values as unset', () => {
    const config = loadConfig({
      CONVERSATION_HISTORY_ENABLED: 'false',
      CONVERSATION_HISTORY_MAX_TOKENS: '1500',
      OPENAI_API_KEY: 'sk-test',
      AGENT_API_KEY: '',
      ESCALATION_CONFIDENCE_THRESHOLD: ' ',
    });
    expect(config.history.enabled).toBe(false);
    expect(config.history.maxTokens).toBe(1500);
    expect(config.agentApiKey).toBeNull();
    expect(config.knowledgeSeedDir).toBe(path.resolve('./knowledge/help-center'));
    expect(loadConfig({ KNOWLEDGE_SEED_DIR: 'none' }).knowledgeSeedDir).toBeNull();
    // OpenAI embeddings score on a wider scale than the offline embedder.
    expect(config.retrieval.escalationThreshold).toBe(0.3);
  });

  it('reads MODEL_PRICES as per-model prices per million tokens, none by default, and refuses a malformed table', () => {
    expect(loadConfig({}).modelPrices).toEqual({});
    const prices = { 'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 } };
    expect(loadConfig({ MODEL_PRICES: JSON.stringify(prices) }).modelPrices).toEqual(prices);
    expect(() => loadConfig({ MODEL_PRICES: '{not json' })).toThrow(/MODEL_PRICES: must be JSON/);
    expect(() => loadConfig({ MODEL_PRICES: '{"gpt-4o-mini":{"input":0.15,"output":0.6}}' })).toThrow(/MODEL_PRICES/);
    expect(() => loadConfig({ MODEL_PRICES: '{"gpt-4o-mini":{"input":-1,"cached_input":0,"output":0}}' })).toThrow(/MODEL_PRICES/);
    expect(loadConfig({}).openai.promptCacheKey).toBe(true);
    expect(loadConfig({ OPENAI_PROMPT_CACHE_KEY: 'false' }).openai.promptCacheKey).toBe(false);
  });

  it('fails at start naming every bad variable', () => {
    expect(() => loadConfig({ CONVERSATION_HISTORY_MAX_TOKENS: 'lots', PORT: '-1', CONVERSATION_HISTORY_ENABLED: 'maybe' })).toThrow(
      /CONVERSATION_HISTORY_MAX_TOKENS[\s\S]*PORT|PORT[\s\S]*CONVERSATION_HISTORY_MAX_TOKENS/,
    );
    expect(() => loadConfig({ CONVERSATION_HISTORY_ENABLED: 'maybe' })).toThrow(/CONVERSATION_HISTORY_ENABLED/);
    expect(() => loadConfig({ OPENAI_BASE_URL: 'not a url' })).toThrow(/OPENAI_BASE_URL/);
  });

  it('uses a Postgres server when DATABASE_URL is set, with a pool of 10 unless DATABASE_POOL_MAX says otherwise', () => {
    const url = 'postgresql://service:secret@db.example.com:6543/postgres';
    expect(loadConfig({ DATABASE_URL: url }).storage).toEqual({ kind: 'postgres', url, poolMax: 10 });
    expect(loadConfig({ DATABASE_URL: url, DATABASE_POOL_MAX: '25' }).storage).toMatchObject({ poolMax: 25 });
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_POOL_MAX: '0' })).toThrow(/DATABASE_POOL_MAX/);
  });

  it('refuses a DATABASE_URL that is not a Postgres connection string, without repeating it', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:secret@db/support' })).toThrow(/DATABASE_URL: must be a postgres/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:secret@db/support' })).not.toThrow(/secret/);
  });

  it('uses the Supabase API with SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY, and refuses half of it rather than writing to a local file', () => {
    expect(loadConfig({ SUPABASE_URL: 'https://x.supabase.co', SUPABASE_SERVICE_ROLE_KEY: 'service-key' }).storage).toEqual({
      kind: 'supabase',
      url: 'https://x.supabase.co',
      serviceRoleKey: 'service-key',
    });
    expect(() => loadConfig({ SUPABASE_URL: 'https://x.supabase.co' })).toThrow(/SUPABASE_SERVICE_ROLE_KEY is not set/);
    expect(() => loadConfig({ SUPABASE_SERVICE_ROLE_KEY: 'key' })).toThrow(/SUPABASE_URL is not set/);
    expect(() => loadConfig({ SUPABASE_URL: 'x.supabase.co', SUPABASE_SERVICE_ROLE_KEY: 'key' })).toThrow(/SUPABASE_URL: must be the project URL/);
  });

  it('refuses DATABASE_URL together with SUPABASE_URL instead of guessing where conversations go', () => {
    const both = { DATABASE_URL: 'postgres://db/support', SUPABASE_URL: 'https://x.supabase.co', SUPABASE_SERVICE_ROLE_KEY: 'key' };
    expect(() => loadConfig(both)).toThrow(ConfigError);
    expect(() => loadConfig(both)).toThrow(/both set: set one/);
  });

  it('syncs no site by default, every 360 minutes when sites are given, public-only unless allowed, and refuses a sync URL that is not http(s)', () => {
    expect(loadConfig({}).knowledgeSync).toEqual({ siteUrls: [], allowPrivateNetwork: false, intervalMs: 360 * 60_000, recheckAfterMs: 24 * 3_600_000 });
    expect(loadConfig({ KNOWLEDGE_SYNC_RECHECK_HOURS: '0' }).knowledgeSync.recheckAfterMs).toBe(0);
    expect(() => loadConfig({ KNOWLEDGE_SYNC_RECHECK_HOURS: '-1' })).toThrow(/KNOWLEDGE_SYNC_RECHECK_HOURS/);
    expect(loadConfig({ KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK: 'true' }).knowledgeSync.allowPrivateNetwork).toBe(true);
    expect(() => loadConfig({ KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK: 'sometimes' })).toThrow(/KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK/);
    const config = loadConfig({
      KNOWLEDGE_SYNC_URLS: ' https://help.example.com/sitemap.xml, http://10.0.0.5/docs/ ,,https://help.example.com/sitemap.xml',
      KNOWLEDGE_SYNC_INTERVAL_MINUTES: '0.05',
    });
    expect(config.knowledgeSync).toEqual({ siteUrls: ['https://help.example.com/sitemap.xml', 'http://10.0.0.5/docs/'], allowPrivateNetwork: false, intervalMs: 3000, recheckAfterMs: 24 * 3_600_000 });
    expect(() => loadConfig({ KNOWLEDGE_SYNC_URLS: 'https://help.example.com/, ftp://files.example.com/' })).toThrow(/KNOWLEDGE_SYNC_URLS.*http\(s\) URLs/s);
    expect(() => loadConfig({ KNOWLEDGE_SYNC_URLS: 'help.example.com' })).toThrow(/KNOWLEDGE_SYNC_URLS/);
    expect(() => loadConfig({ KNOWLEDGE_SYNC_INTERVAL_MINUTES: '0' })).toThrow(/KNOWLEDGE_SYNC_INTERVAL_MINUTES/);
  });

  it('remembers idempotency keys for 24 hours and lets a duplicate wait 10 s by default', () => {
    expect(loadConfig({}).idempotency).toEqual({ ttlHours: 24, waitMs: 10_000 });
    expect(loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '1.5', IDEMPOTENCY_WAIT_MS: '0' }).idempotency).toEqual({ ttlHours: 1.5, waitMs: 0 });
    expect(() => loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '0' })).toThrow(/IDEMPOTENCY_KEY_TTL_HOURS/);
  });

  it('reads the customer-identity keys, refuses a short HS256 secret, and keeps personal data out of traces by default', () => {
    const config = loadConfig({ CUSTOMER_IDENTITY_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\\nMFkw\\n-----END PUBLIC KEY-----', LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk' });
    expect(config.customerIdentity).toEqual({
      secret: null,
      publicKeyPem: '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----',
      jwksUrl: null,
      issuer: null,
      audience: null,
      clockSkewSeconds: 30,
    });
    expect(config.orderProofs).toEqual({ maxFailures: 5, windowMs: 3_600_000 });
    expect(config.langfuse?.capturePersonalData).toBe(false);
    expect(loadConfig({ LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk', LANGFUSE_CAPTURE_PERSONAL_DATA: 'yes' }).langfuse?.capturePersonalData).toBe(true);
    expect(() => loadConfig({ CUSTOMER_IDENTITY_SECRET: 'too-short' })).toThrow(/CUSTOMER_IDENTITY_SECRET: must be at least 32 characters/);
    expect(() => loadConfig({ CUSTOMER_IDENTITY_JWKS_URL: 'not a url' })).toThrow(/CUSTOMER_IDENTITY_JWKS_URL/);
  });

  it('counts rate limits in the database on Postgres and Supabase, in memory on PGlite, unless RATE_LIMIT_STORE says otherwise', () => {
    const supabase = { SUPABASE_URL: 'https://x.supabase.co', SUPABASE_SERVICE_ROLE_KEY: 'key' };
    expect(loadConfig({}).rateLimits).toEqual({ windowMs: 60_000, perClient: 60, perSession: 20, store: 'memory' });
    expect(loadConfig({ DATABASE_URL: 'postgres://db/support' }).rateLimits.store).toBe('database');
    expect(loadConfig(supabase).rateLimits.store).toBe('database');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/support', RATE_LIMIT_STORE: 'memory' }).rateLimits.store).toBe('memory');
    expect(loadConfig({ RATE_LIMIT_STORE: 'database' }).rateLimits.store).toBe('database');
    expect(loadConfig({ RATE_LIMIT_STORE: '' }).rateLimits.store).toBe('memory');
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE/);
  });
});

describe('abuse-resistance settings', () => {
  const strongKey = 'Zq3-x9Lm2Pw7Rt5Yv1Bn6Hc4Jd8Gf0Ks7Ua2';

  it.each(['password', 'changeme', 'PASSWORD', 'passwordpasswordpasswordpasswordpassword', 'x'.repeat(40), 'abababababababababababababababababab', 'short-but-random-9f3a'])(
    'refuses AGENT_API_KEY=%s in production, naming the setting and how to make one',
    (key) => {
      expect(() => loadConfig({ NODE_ENV: 'production', AGENT_API_KEY: key })).toThrow(/AGENT_API_KEY is too weak for production[\s\S]*openssl rand -base64 32/);
    },
  );

  it('takes a strong key in production, and any key outside production', () => {
    expect(loadConfig({ NODE_ENV: 'production', AGENT_API_KEY: strongKey }).production).toBe(true);
    expect(loadConfig({ AGENT_API_KEY: 'password' }).agentApiKey).toBe('password');
  });

  it('reads the ceiling, the metrics token and the auth-failure limit, with their defaults', () => {
    const defaults = loadConfig({});
    expect(defaults.modelInputMaxTokens).toBe(16_000);
    expect(defaults.metricsToken).toBeNull();
    expect(defaults.authFailures).toEqual({ perClient: 10, windowMs: 900_000 });
    expect(defaults.sessionTokens).toEqual({ secret: null, previous: null });
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ MODEL_INPUT_MAX_TOKENS: '10' })).toThrow(/MODEL_INPUT_MAX_TOKENS/);
  });

  it('takes a session-token rotation only as a whole: new secret, previous secret and its end date', () => {
    const until = '2026-12-01T00:00:00Z';
    const rotated = loadConfig({ SESSION_TOKEN_SECRET: strongKey, SESSION_TOKEN_SECRET_PREVIOUS: 'old-secret', SESSION_TOKEN_SECRET_PREVIOUS_UNTIL: until });
    expect(rotated.sessionTokens.previous).toEqual({ secret: 'old-secret', until: new Date(until) });
    expect(() => loadConfig({ SESSION_TOKEN_SECRET: strongKey, SESSION_TOKEN_SECRET_PREVIOUS: 'old-secret' })).toThrow(/go together/);
    expect(() => loadConfig({ SESSION_TOKEN_SECRET_PREVIOUS: 'old-secret', SESSION_TOKEN_SECRET_PREVIOUS_UNTIL: until })).toThrow(/without SESSION_TOKEN_SECRET/);
    expect(() => loadConfig({ SESSION_TOKEN_SECRET: 'too-short' })).toThrow(/SESSION_TOKEN_SECRET/);
    expect(() => loadConfig({ SESSION_TOKEN_SECRET: strongKey, SESSION_TOKEN_SECRET_PREVIOUS: 'old', SESSION_TOKEN_SECRET_PREVIOUS_UNTIL: 'next week' })).toThrow(/ISO date-time/);
  });
});
