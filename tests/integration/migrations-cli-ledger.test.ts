/**
 * A database the Supabase CLI migrated (supabase db push) records its versions in
 * supabase_migrations.schema_migrations, not in the service's schema_migrations.
 * The service's runner counts them as applied instead of running the files again.
 */
import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations, readMigrations } from '../../src/store/migrations';
import { openPgliteDatabase } from '../../src/store/pglite';

describe('migrating a database the Supabase CLI migrated before', () => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await openPgliteDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('applies only the files the CLI has not, and records the CLI\'s in its own ledger too', async () => {
    const migrations = await readMigrations();
    const byCli = migrations.slice(0, 5);
    // What supabase db push leaves behind: the files' effects and its ledger (the columns it has had for years).
    await db.exec(`create schema supabase_migrations;
      create table supabase_migrations.schema_migrations (version text primary key, statements text[], name text);`);
    for (const m of byCli) {
      await db.exec(m.sql);
      await db.query('insert into supabase_migrations.schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
    }

    const applied = await applyMigrations(db);
    expect(applied).toEqual(migrations.slice(5).map((m) => m.version));
    const ledger = await db.query<{ version: string }>('select version from schema_migrations order by version');
    expect(ledger.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    expect(await applyMigrations(db)).toEqual([]);
  });
});
