/**
 * The `pg` backend's own promises on a real PostgreSQL server: transactions on
 * one connection, given back whatever happens, and migrations that several
 * instances can start together. Plus `npm run db:migrate` over the wire.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SqlDatabase } from '../../src/store/database';
import { MigrationError, applyMigrations, readMigrations } from '../../src/store/migrations';
import { openPostgresDatabase } from '../../src/store/postgres';
import {
  createTestDatabase,
  describeOnTestServer,
  migrateTestDatabase,
  startPgliteServer,
  testServerHasPgvector,
} from '../support/postgres';
import { REPO_ROOT, makeTempDir } from '../support/test-service';

const hasPgvector = testServerHasPgvector();
const run = promisify(execFile);

/** Runs `npm run db:migrate` (the script itself) in an empty folder, so no .env is read. */
async function dbMigrate(databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, DATABASE_URL: databaseUrl };
  try {
    const { stdout, stderr } = await run(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), [path.join(REPO_ROOT, 'scripts/migrate.ts')], {
      cwd: await makeTempDir(),
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describeOnTestServer('the pg backend on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await db.exec('create table probe (n integer not null)');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    await db.query('truncate probe');
  });

  const probe = async () => (await db.query<{ n: number }>('select n from probe order by n')).map((r) => r.n);

  describe('transactions', () => {
    it('commit what the work did when it resolves, and roll all of it back when it throws', async () => {
      expect(await db.transaction(async (tx) => (await tx.query<{ n: number }>('insert into probe values (1) returning n'))[0]!.n)).toBe(1);
      await expect(
        db.transaction(async (tx) => {
          await tx.query('insert into probe values (2)');
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await probe()).toEqual([1]);
    });

    it('run on one connection from begin to commit, unseen by other statements until committed', async () => {
      let seenOutside: number[] = [];
      const pids = await db.transaction(async (tx) => {
        const pid = async () => (await tx.query<{ pid: number }>('select pg_backend_pid() as pid'))[0]!.pid;
        const first = await pid();
        await tx.query('insert into probe values (7)');
        seenOutside = await probe(); // through the pool's other connection
        return [first, await pid()];
      });
      expect(pids[0]).toBe(pids[1]);
      expect(seenOutside).toEqual([]);
      expect(await probe()).toEqual([7]);
    });

    it('give their connection back after failing, so a pool of two keeps serving', async () => {
      for (let i = 0; i < 6; i++) {
        await expect(db.transaction((tx) => tx.query('insert into probe values (null)'))).rejects.toThrow(/null value/);
      }
      await Promise.all([3, 4].map((n) => db.transaction((tx) => tx.query('insert into probe values ($1)', [n]))));
      expect(await probe()).toEqual([3, 4]);
      const [open] = await db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
      );
      expect(open!.n).toBe(0);
    });
  });

  describe('migrations', () => {
    it('apply each file once when four instances start together', async () => {
      const fresh = await createTestDatabase();
      const instances = [1, 2, 3, 4].map(() => openPostgresDatabase({ connectionString: fresh.url, poolMax: 2 }));
      try {
        const applied = await Promise.all(instances.map((instance) => migrateTestDatabase(instance, hasPgvector)));
        const ledger = await instances[0]!.query<{ version: string }>('select version from schema_migrations order by version');
        expect(applied.flat().sort()).toEqual(ledger.map((r) => r.version));
        expect(applied.filter((versions) => versions.length > 0)).toHaveLength(1);
        expect(ledger.length).toBeGreaterThanOrEqual(4);
      } finally {
        for (const instance of instances) await instance.close();
        await fresh.drop();
      }
    });

    (hasPgvector ? it.skip : it)('stop at the first file on a server without pgvector, name it, and leave nothing behind', async () => {
      const fresh = await createTestDatabase();
      const instance = openPostgresDatabase({ connectionString: fresh.url, poolMax: 1 });
      try {
        const failure = await applyMigrations(instance).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(MigrationError);
        expect((failure as Error).message).toMatch(/20261122000100_extensions .*pgvector/s);
        const [tables] = await instance.query<{ n: number }>(`select count(*)::int as n from pg_tables where schemaname = 'public'`);
        expect(tables!.n).toBe(0);

        const script = await dbMigrate(fresh.url);
        expect(script.code).toBe(1);
        expect(script.stderr).toMatch(/Migrating failed: Migration 20261122000100_extensions failed.*pgvector/);
      } finally {
        await instance.close();
        await fresh.drop();
      }
    });
  });
});

describe('npm run db:migrate over the wire (PGlite served on loopback, with pgvector)', () => {
  it('applies every migration, says which, and finds nothing to do the second time', async () => {
    const server = await startPgliteServer(1);
    try {
      const files = await readMigrations();
      const first = await dbMigrate(server.url);
      expect(first).toMatchObject({ code: 0 });
      expect(first.stdout.split('\n').filter((line) => line.startsWith('applied '))).toEqual(
        files.map((f) => `applied ${f.version}_${f.name}`),
      );
      expect(first.stdout).toMatch(new RegExp(`Applied ${files.length} of ${files.length} migrations to postgres \\(127\\.0\\.0\\.1:\\d+/postgres\\)`));

      const second = await dbMigrate(server.url);
      expect(second).toMatchObject({ code: 0 });
      expect(second.stdout).toMatch(/is up to date/);
      expect(second.stdout).not.toMatch(/^applied/m);
    } finally {
      await server.close();
    }
  });
});
