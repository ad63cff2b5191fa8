import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite, type Extension, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

// PGlite's contrib entries declare only their ES module types, so TypeScript refuses to
// import them here; their CommonJS build is the same extension.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { unaccent } = require('@electric-sql/pglite/contrib/unaccent') as { unaccent: Extension };

/** The extensions every PGlite of the schema needs: pgvector, and unaccent (the languages without a stemmer). */
export const PGLITE_EXTENSIONS = { vector, unaccent };
import type { SqlDatabase, SqlQueryable } from './database';

/** Raised when another live process already has the PGlite folder open. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

/**
 * Opens the embedded Postgres (PGlite with pgvector, and unaccent for the languages without a stemmer). With a folder the data
 * lives in files there and survives restarts; without one it is in memory (tests).
 * PGlite is a single connection in a single process: the folder is locked so a
 * second process cannot open it and overwrite the first one's writes.
 */
export async function openPgliteDatabase(dataDir?: string): Promise<SqlDatabase> {
  const releaseLock = dataDir ? await lockDataDir(dataDir) : async () => {};
  let db: PGlite;
  try {
    db = await PGlite.create({ dataDir, extensions: PGLITE_EXTENSIONS });
  } catch (error) {
    await releaseLock();
    throw error;
  }
  return {
    ...queryable(db),
    transaction: (work) => db.transaction((tx) => work(queryable(tx))),
    close: async () => {
      try {
        await db.close();
      } finally {
        await releaseLock();
      }
    },
  };
}

/** The database itself and a transaction on it answer queries the same way. */
function queryable(target: PGlite | Transaction): SqlQueryable {
  return {
    query: async <Row>(sql: string, params?: unknown[]) => (await target.query<Row>(sql, params)).rows,
    exec: async (sql) => {
      await target.exec(sql);
    },
  };
}

/**
 * Takes `<dataDir>.lock` (beside the folder, which PGlite owns), holding this
 * process's pid. A lock left by a process that no longer runs (killed, crashed)
 * is taken over. Returns the function that releases it.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockFile = `${path.resolve(dataDir)}.lock`;
  await fs.mkdir(path.dirname(lockFile), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(lockFile, String(process.pid), { flag: 'wx' });
      return async () => {
        await fs.rm(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await fs.readFile(lockFile, 'utf8').catch(() => '')).trim());
      if (owner && owner !== process.pid && isRunning(owner)) {
        throw new DataDirInUseError(
          `The embedded database in ${dataDir} is in use by process ${owner}. PGlite serves one process at a time: ` +
            'stop that process first, or give this one another DATA_DIR.',
        );
      }
      await fs.rm(lockFile, { force: true }); // stale: its owner is gone
    }
  }
  throw new DataDirInUseError(`Could not lock the embedded database in ${dataDir}.`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
