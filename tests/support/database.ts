import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations } from '../../src/store/migrations';
import { openPgliteDatabase } from '../../src/store/pglite';
import { SqlStore } from '../../src/store/sql-store';

/** A fresh, migrated in-memory PGlite and a store over it: one per test file (start-up takes seconds). */
export async function openTestStore(): Promise<{ db: SqlDatabase; store: SqlStore }> {
  const db = await openPgliteDatabase();
  await applyMigrations(db);
  return { db, store: new SqlStore(db) };
}
