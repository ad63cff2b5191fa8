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

/** Deterministic pseudo-random numbers (mulberry32), so a failing random case can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
