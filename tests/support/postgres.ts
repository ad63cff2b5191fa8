/**
 * Real Postgres for tests: a server on loopback (TEST_DATABASE_URL, which .ci/run
 * starts) and PGlite served over the wire protocol, both reached through the
 * service's own `pg` backend.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_EXTENSIONS } from '../../src/store/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Pool } from 'pg';
import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations, readMigrations } from '../../src/store/migrations';
import { openPostgresDatabase } from '../../src/store/postgres';
import { seedSampleData } from '../../src/shop/sample-shop';

/** Admin URL of the test server (any database on it; each suite creates its own). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/**
 * `describe` for suites that need the test server. Without TEST_DATABASE_URL they
 * fail under CI (which must start one) and are skipped, saying so, elsewhere.
 */
export function describeOnTestServer(name: string, suite: () => void): void {
  if (TEST_DATABASE_URL) {
    describe(name, suite);
  } else if (process.env.CI && process.env.CI !== 'false') {
    describe(name, () => {
      it('has a PostgreSQL server to run on', () => {
        throw new Error('TEST_DATABASE_URL is not set: .ci/run starts a PostgreSQL server on loopback and exports it');
      });
    });
  } else {
    console.warn(`Skipped "${name}": set TEST_DATABASE_URL to a PostgreSQL server (see .ci/postgres-server) to run it.`);
    describe.skip(name, suite);
  }
}

/**
 * Whether the test server can create the vector extension. Asked synchronously,
 * in a child process, because jest declares tests synchronously.
 */
export function testServerHasPgvector(): boolean {
  if (!TEST_DATABASE_URL) return false;
  const script = `
    const { Client } = require('pg');
    const client = new Client({ connectionString: process.argv[1] });
    client.connect()
      .then(() => client.query("select count(*)::int as n from pg_available_extensions where name = 'vector'"))
      .then((r) => { process.stdout.write(String(r.rows[0].n)); return client.end(); })
      .catch((e) => { console.error(e.message); process.exit(1); });`;
  return execFileSync(process.execPath, ['-e', script, TEST_DATABASE_URL], { encoding: 'utf8' }).trim() === '1';
}

let databaseCounter = 0;

/** A new, empty database on the test server, for one suite; drop() removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const name = `support_test_${process.pid}_${++databaseCounter}_${Date.now().toString(36)}`;
  const admin = new Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  await admin.query(`create database ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await admin.query(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * A new database on the test server, migrated (migrateTestDatabase) and opened with a
 * small pool, for a suite that runs the same tests on PGlite and on the server; close()
 * closes it and drops the database.
 */
export async function openMigratedTestDatabase(): Promise<{ db: SqlDatabase; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
  await migrateTestDatabase(db, testServerHasPgvector());
  return {
    db,
    close: async () => {
      await db.close();
      await database.drop();
    },
  };
}

/** Files that create or use pgvector's type, or the documents table built on it: the knowledge base's part of the schema. */
const NEEDS_PGVECTOR = /\bvector\b|\bdocuments\b/;

/**
 * Migrates a test database with the service's own runner: every file where the
 * server has pgvector, otherwise only the files that do not need it (the chat
 * schema), so a server without the extension can still test conversations.
 */
export async function migrateTestDatabase(db: SqlDatabase, withPgvector: boolean): Promise<string[]> {
  const applied = await migrateSchema(db, withPgvector);
  // The sample shop's customers and orders, as the service seeds them when it runs the sample shop.
  await seedSampleData(db);
  return applied;
}

async function migrateSchema(db: SqlDatabase, withPgvector: boolean): Promise<string[]> {
  if (withPgvector) return applyMigrations(db);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chat-migrations-'));
  try {
    for (const m of await readMigrations()) {
      if (!NEEDS_PGVECTOR.test(m.sql)) await fs.writeFile(path.join(dir, `${m.version}_${m.name}.sql`), m.sql);
    }
    return await applyMigrations(db, dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Migrates a test database for the whole service (createDependencies, which
 * migrates at start, then finds nothing left to do). Where the server has no
 * pgvector, the knowledge part of the schema is recorded as applied and stood in
 * for by an always-empty knowledge base of the same functions: the service
 * starts, and answers every question without passages (escalated), which is
 * enough for anything but retrieval.
 */
export async function migrateTestDatabaseForService(db: SqlDatabase, withPgvector: boolean): Promise<void> {
  await migrateTestDatabase(db, withPgvector);
  if (withPgvector) return;
  for (const m of await readMigrations()) {
    await db.query('insert into schema_migrations (version, name) values ($1, $2) on conflict do nothing', [m.version, m.name]);
  }
  await db.exec(`
    create table if not exists documents (embedding_model text not null);
    alter table documents enable row level security;
    create or replace function embedding_models() returns table (embedding_model text)
    language sql stable as $$ select distinct d.embedding_model from documents d order by 1 $$;
    create or replace function unanalysed_knowledge_sources(p_after_source text, p_limit integer) returns table (source text)
    language sql stable as $$ select null::text where false $$;
    create or replace function knowledge_languages() returns table (language text, chunks bigint)
    language sql stable as $$ select null::text, null::bigint where false $$;
    -- The store casts the query embedding to vector: text is all a search that finds nothing needs.
    create domain vector as text;
    create or replace function match_documents(
      p_query_embedding vector, p_embedding_model text, p_match_count integer, p_min_similarity double precision default 0
    )
    returns table (id uuid, source text, title text, chunk_index integer, content text, metadata jsonb, similarity double precision)
    language sql stable as $$ select null::uuid, null::text, null::text, null::integer, null::text, null::jsonb, null::double precision where false $$;
    create or replace function hybrid_search(
      p_query_text text, p_query_embedding vector, p_embedding_model text, p_match_count integer,
      p_min_similarity double precision default 0, p_full_text_weight double precision default 1,
      p_semantic_weight double precision default 1, p_history jsonb default '[]'
    )
    returns table (id uuid, source text, title text, chunk_index integer, content text, metadata jsonb, similarity double precision, full_text_rank integer, score double precision,
      full_text_score double precision, history_score double precision, semantic_rank integer, document_similarity double precision)
    language sql stable as $$ select null::uuid, null::text, null::text, null::integer, null::text, null::jsonb, null::double precision, null::integer, null::double precision,
      null::double precision, null::double precision, null::integer, null::double precision where false $$;`);
}

/** Empties every table but the migration ledger, whatever tables the migrations made. */
export async function truncateAllTables(db: SqlDatabase): Promise<void> {
  await db.exec(`
    do $$
    declare t text;
    begin
      for t in select tablename from pg_tables where schemaname = 'public' and tablename <> 'schema_migrations' loop
        execute format('truncate table %I cascade', t);
      end loop;
    end $$;`);
}

export interface PgliteServer {
  /** postgres:// URL that any Postgres client, the service's `pg` backend included, connects to. */
  url: string;
  pglite: PGlite;
  close(): Promise<void>;
}

/**
 * An in-memory PGlite with pgvector, served on a loopback port over the Postgres
 * wire protocol. PGlite runs one statement at a time; the socket server queues
 * its clients' messages and keeps a transaction's messages together.
 */
export async function startPgliteServer(maxConnections = 4): Promise<PgliteServer> {
  const pglite = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    pglite,
    close: async () => {
      await server.stop();
      await pglite.close();
    },
  };
}
