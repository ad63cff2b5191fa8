import { Pool, type PoolClient } from 'pg';
import { DatabaseUnavailableError } from '../errors';
import type { SqlDatabase, SqlQueryable } from './database';

// How long a statement waits for a connection (a new one, or a free one from a busy
// pool) before failing, so an unreachable server fails requests instead of hanging them.
const CONNECT_TIMEOUT_MS = 10_000;

export interface PostgresOptions {
  /** postgres://user:password@host:port/database, e.g. Supabase's pooler connection string. */
  connectionString: string;
  /** Most connections this process holds open at once (DATABASE_POOL_MAX, default 10). */
  poolMax: number;
  /**
   * Told about errors on idle connections (the server restarted, the pooler dropped
   * one). The pool replaces the connection; without a listener node would crash.
   */
  onIdleError?: (error: Error) => void;
}

/**
 * A Postgres server (pgvector required for the knowledge base) through a `pg` pool.
 *
 * Nothing is carried between statements on a connection: parameterised queries use
 * unnamed prepared statements, nothing is SET, and a transaction runs on one
 * connection checked out from BEGIN to COMMIT. So it also works behind a
 * transaction-mode pooler (Supabase's on port 6543), which may hand every
 * transaction to another server connection.
 */
export function openPostgresDatabase(options: PostgresOptions): SqlDatabase {
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.poolMax,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  pool.on('error', (error) => options.onIdleError?.(error));

  return {
    ...queryable(pool),
    transaction: async (work) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('begin');
        const result = await work(queryable(client));
        await client.query('commit');
        return result;
      } catch (error) {
        // A connection that cannot even roll back is not handed out again.
        await client.query('rollback').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

function queryable(target: Pool | PoolClient): SqlQueryable {
  return {
    query: async <Row>(sql: string, params?: unknown[]) => (await withReachability(() => target.query(sql, params))).rows as Row[],
    // Without parameters `pg` uses the simple protocol, which runs a script of several statements.
    exec: async (sql) => {
      await withReachability(() => target.query(sql));
    },
  };
}

/** Network failures and the server's "connection exception" / "shutting down" classes. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', '57P01', '57P02', '57P03']);

/**
 * The server being down is the client's business only as "try again later" (503
 * with Retry-After), not as a 500: the pool reconnects once it is back.
 */
async function withReachability<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : '';
    const unreachable =
      (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) ||
      /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED/i.test(message);
    throw unreachable ? new DatabaseUnavailableError({ cause: error }) : error;
  }
}
