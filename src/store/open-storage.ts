import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config, type StorageConfig } from '../config';
import type { Logger } from '../observability/logger';
import { SqlCommerceStore } from './commerce-store';
import type { SqlDatabase } from './database';
import { FeedbackStore } from './feedback-store';
import { HandoffStore } from './handoff-store';
import { IdentityStore } from './identity-store';
import { KnowledgeAdminStore } from './knowledge-admin-store';
import { openPgliteDatabase } from './pglite';
import { openPostgresDatabase } from './postgres';
import { RateLimitCounters } from './rate-limit-store';
import { ServiceSecrets } from './service-secrets';
import { SqlStore } from './sql-store';
import { createSupabaseClient, supabaseFunctionCaller } from './supabase';
import { CustomerDataStore } from '../privacy/customer-data';

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
  rateLimits: RateLimitCounters;
  secrets: ServiceSecrets;
  identity: IdentityStore;
  /** Every table with customer data: erasure, retention, the audit, exports. */
  customerData: CustomerDataStore;
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
      rateLimits: new RateLimitCounters(functions),
      secrets: new ServiceSecrets(functions),
      identity: new IdentityStore(functions),
      customerData: new CustomerDataStore(functions),
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
    rateLimits: new RateLimitCounters(db),
    secrets: new ServiceSecrets(db),
    identity: new IdentityStore(db),
    customerData: new CustomerDataStore(db),
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
