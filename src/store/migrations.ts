import fs from 'node:fs/promises';
import path from 'node:path';
import { sqlStateOf, type SqlDatabase } from './database';

/** The same files the Supabase CLI applies with `supabase db push`. */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../supabase/migrations');

const MIGRATION_FILE = /^(\d{14})_([a-z0-9_]+)\.sql$/;

// Any constant works; it only has to be the same for every instance of the service.
const MIGRATION_LOCK_KEY = 7_172_839_201;

const CREATE_LEDGER = `
  create table if not exists schema_migrations (
    version text primary key,
    name text not null,
    applied_at timestamptz not null default now()
  );
  alter table schema_migrations enable row level security;`;

// SQLSTATEs of CREATE EXTENSION for an extension the server does not have
// (undefined_file up to Postgres 15, feature_not_supported from 16).
const EXTENSION_MISSING = new Set(['58P01', '0A000']);

/** A migration file that failed; `code` is the SQLSTATE of the database error underneath. */
export class MigrationError extends Error {
  override name = 'MigrationError';
  readonly code: string | undefined;

  constructor(migration: Migration, cause: unknown) {
    const hint =
      EXTENSION_MISSING.has(sqlStateOf(cause) ?? '') && /create extension/i.test(migration.sql)
        ? ' The server lacks an extension the schema needs: it must have pgvector (Supabase has it; Debian and Ubuntu: the postgresql-<version>-pgvector package).'
        : '';
    super(`Migration ${migration.version}_${migration.name} failed, nothing was applied: ${(cause as Error).message}.${hint}`, { cause });
    this.code = sqlStateOf(cause);
  }
}

export interface Migration {
  version: string;
  name: string;
  sql: string;
}

/** The migration files, oldest first. Rejects files that break the naming rule. */
export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (file) => {
      const match = MIGRATION_FILE.exec(file);
      if (!match) throw new Error(`Migration file "${file}" must be named <14-digit UTC timestamp>_<noun>.sql`);
      return { version: match[1]!, name: match[2]!, sql: await fs.readFile(path.join(dir, file), 'utf8') };
    }),
  );
}

// The Supabase CLI's own ledger (supabase db push, supabase migration up).
const CLI_LEDGER = 'supabase_migrations.schema_migrations';

/**
 * Applies the migrations not yet recorded in schema_migrations, in order, in one
 * transaction under an advisory lock, so instances starting together apply each
 * file once. Returns the versions it applied.
 *
 * A database migrated with the Supabase CLI keeps its record in
 * supabase_migrations.schema_migrations instead: the versions found there count
 * as applied (and are copied into schema_migrations), so the two can take turns.
 * The CLI does not read this runner's ledger; see docs/deploy-supabase.md for the other way round.
 */
export async function applyMigrations(db: SqlDatabase, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(CREATE_LEDGER);
    const applied = new Set(
      (await tx.query<{ version: string }>('select version from schema_migrations')).map((r) => r.version),
    );
    const [cli] = await tx.query<{ present: boolean }>(`select to_regclass('${CLI_LEDGER}') is not null as present`);
    if (cli?.present) {
      for (const { version } of await tx.query<{ version: string }>(`select version from ${CLI_LEDGER}`)) {
        const migration = migrations.find((m) => m.version === version);
        if (!migration || applied.has(version)) continue;
        await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [version, migration.name]);
        applied.add(version);
      }
    }
    const pending = migrations.filter((m) => !applied.has(m.version));
    for (const migration of pending) {
      await tx.exec(migration.sql).catch((error: unknown) => {
        throw new MigrationError(migration, error);
      });
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [migration.version, migration.name]);
    }
    return pending.map((m) => m.version);
  });
}
