import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';

describe('configuration from the environment', () => {
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
    expect(config.history).toEqual({ enabled: true, maxMessages: 20, maxTokens: 4000 });
    expect(config.limits.messageMaxChars).toBe(4000);
    expect(config.retrieval.escalationThreshold).toBe(0.2);
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

  it('remembers idempotency keys for 24 hours and lets a duplicate wait 10 s by default', () => {
    expect(loadConfig({}).idempotency).toEqual({ ttlHours: 24, waitMs: 10_000 });
    expect(loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '1.5', IDEMPOTENCY_WAIT_MS: '0' }).idempotency).toEqual({ ttlHours: 1.5, waitMs: 0 });
    expect(() => loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '0' })).toThrow(/IDEMPOTENCY_KEY_TTL_HOURS/);
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
