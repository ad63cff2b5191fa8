import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config, type StorageConfig } from '../config';
import type { Logger } from '../observability/logger';
import { SqlCommerceStore } from './commerce-store';
import type { SqlDatabase, SqlQueryable } from './database';
import { FeedbackStore } from './feedback-store';
import { HandoffStore } from './handoff-store';
import { IdentityStore } from './identity-store';
import { KnowledgeAdminStore } from './knowledge-admin-store';
import { KnowledgeSyncLease } from './knowledge-sync-lease';
import { openPgliteDatabase } from './pglite';
import { openPostgresDatabase } from './postgres';
import { RateLimitCounters } from './rate-limit-store';
import { ServiceSecrets } from './service-secrets';
import { SiteSyncStore } from './site-sync-store';
import type { SqlFunctionCaller } from './sql-functions';
import { SqlStore } from './sql-store';
import { createSupabaseClient, supabaseFunctionCaller } from './supabase';
import { CustomerDataStore } from '../privacy/customer-data';
import { RedactionBackfillStore } from '../privacy/redaction-backfill';

/**
 * The configured storage, opened: the stores over it, and the SQL connection when
 * there is one (PGlite, DATABASE_URL; Supabase's API has none, so no migrations).
 */
export interface OpenStorage extends Stores {
  db: SqlDatabase | null;
  close(): Promise<void>;
}

/** Every store, each over the same SQL functions. */
export interface Stores {
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
}

/** The stores over a SQL connection or Supabase's function calls: every store calls the same SQL functions either way. */
function storesOver(target: SqlQueryable | SqlFunctionCaller): Stores {
  return {
    store: new SqlStore(target),
    commerce: new SqlCommerceStore(target),
    feedback: new FeedbackStore(target),
    handoff: new HandoffStore(target),
    knowledgeAdmin: new KnowledgeAdminStore(target),
    knowledgeSyncLease: new KnowledgeSyncLease(target),
    siteSyncs: new SiteSyncStore(target),
    rateLimits: new RateLimitCounters(target),
    secrets: new ServiceSecrets(target),
    identity: new IdentityStore(target),
    customerData: new CustomerDataStore(target),
    redactionBackfill: new RedactionBackfillStore(target),
  };
}

/** Opens the configured backend; `database`, when given, is used instead (tests). */
export async function openStorage(config: Config, logger?: Logger, database?: SqlDatabase): Promise<OpenStorage> {
  if (!database && config.storage.kind === 'supabase') {
    return { ...storesOver(supabaseFunctionCaller(createSupabaseClient(config.storage))), db: null, close: async () => {} };
  }
  const db = database ?? (await openDatabase(config, logger));
  return { ...storesOver(db), db, close: () => db.close() };
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
