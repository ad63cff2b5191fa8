import type { SqlDatabase } from '../../src/store/database';
import { applyMigrations } from '../../src/store/migrations';
import { openPgliteDatabase } from '../../src/store/pglite';
import { SqlStore } from '../../src/store/sql-store';
import { seedSampleData } from '../../src/shop/sample-shop';

/** A fresh, migrated in-memory PGlite with the sample shop's customers and orders, and a store over it: one per test file (start-up takes seconds). */
export async function openTestStore(): Promise<{ db: SqlDatabase; store: SqlStore }> {
  const db = await openPgliteDatabase();
  await applyMigrations(db);
  await seedSampleData(db);
  return { db, store: new SqlStore(db) };
}
