import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { SqlDatabase, SqlQueryable } from './database';

/**
 * Opens the embedded Postgres (PGlite with pgvector). With a folder the data
 * lives in files there and survives restarts; without one it is in memory (tests).
 * PGlite is a single connection: it cannot show concurrency bugs.
 */
export async function openPgliteDatabase(dataDir?: string): Promise<SqlDatabase> {
  const db = await PGlite.create({ dataDir, extensions: { vector } });
  return {
    query: (sql, params) => queryRows(db, sql, params),
    exec: async (sql) => {
      await db.exec(sql);
    },
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: (sql, params) => queryRows(tx, sql, params),
          exec: async (sql) => {
            await tx.exec(sql);
          },
        } satisfies SqlQueryable),
      ),
    close: () => db.close(),
  };
}

async function queryRows<Row>(target: PGlite | Transaction, sql: string, params?: unknown[]): Promise<Row[]> {
  const result = await target.query<Row>(sql, params);
  return result.rows;
}
