/**
 * Retention on a real PostgreSQL server (TEST_DATABASE_URL): one instance sweeps at
 * a time (the advisory lock), two sweeps racing erase every expired conversation
 * exactly once, batch by batch, and `npm run data:retention` counts (--dry-run)
 * and erases from the command line, printing its progress.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '../../src/observability/logger';
import { CustomerDataStore } from '../../src/privacy/customer-data';
import { ErasureService } from '../../src/privacy/erasure';
import { CustomerPseudonyms } from '../../src/privacy/pseudonym';
import { sweepExpiredConversations } from '../../src/privacy/retention';
import { TraceDeletion } from '../../src/privacy/trace-deletion';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { SqlStore } from '../../src/store/sql-store';
import { createTestDatabase, describeOnTestServer, migrateTestDatabase, testServerHasPgvector } from '../support/postgres';
import { REPO_ROOT } from '../support/test-service';
import { erasureDataCases } from './erasure-data.cases';

const hasPgvector = testServerHasPgvector();
const run = promisify(execFile);

describeOnTestServer('retention (PostgreSQL server)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const pools: SqlDatabase[] = [];
  let store: SqlStore;

  const sweeperOver = (db: SqlDatabase) => {
    const data = new CustomerDataStore(db);
    const logger = createLogger('silent');
    const erasure = new ErasureService({ data, pseudonyms: new CustomerPseudonyms('x'.repeat(32)), traces: new TraceDeletion(null, data, logger, 60_000), touch: () => {}, logger });
    return { data, erasure, langfuse: false };
  };
  const seedExpired = async (prefix: string, count: number) => {
    for (let i = 0; i < count; i++) {
      await store.appendTurn({
        sessionId: `${prefix}-${i}`,
        userId: null,
        agentType: 'support',
        messages: [
          { role: 'user', content: 'old question', tokenCount: 2 },
          { role: 'assistant', content: 'old answer', tokenCount: 2 },
        ],
      });
    }
    await pools[0]!.query(`update chat_sessions set updated_at = now() - interval '10 days' where session_id like $1`, [`${prefix}-%`]);
  };
  const countSessions = async (prefix: string) =>
    (await pools[0]!.query<{ n: number }>(`select count(*)::int as n from chat_sessions where session_id like $1`, [`${prefix}-%`]))[0]!.n;

  beforeAll(async () => {
    database = await createTestDatabase();
    for (const _ of [0, 1, 2]) pools.push(openPostgresDatabase({ connectionString: database.url, poolMax: 3 }));
    await migrateTestDatabase(pools[0]!, hasPgvector);
    store = new SqlStore(pools[0]!);
  }, 60_000);
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await database?.drop();
  });

  it('while another instance holds the retention lock, a sweep erases nothing and says so; afterwards it erases', async () => {
    await seedExpired('lock', 3);
    const settings = { retentionDays: 1, batchSize: 10 };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = pools[2]!.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock(7172839202)');
      locked();
      await held;
    });
    await lockTaken;
    const busy = await sweepExpiredConversations(sweeperOver(pools[1]!), settings);
    expect(busy).toMatchObject({ busy: true, batches: 0, counts: { conversations: 0 } });
    expect(await countSessions('lock')).toBe(3);
    release();
    await holder;
    const swept = await sweepExpiredConversations(sweeperOver(pools[1]!), settings);
    expect(swept).toMatchObject({ busy: false, batches: 1, counts: { conversations: 3, messages: 6 } });
    expect(await countSessions('lock')).toBe(0);
  });

  it('two instances sweeping at once erase every expired conversation exactly once, in batches, and keep the recent one', async () => {
    await seedExpired('race', 30);
    await store.appendTurn({ sessionId: 'race-recent', userId: null, agentType: 'support', messages: [{ role: 'user', content: 'new', tokenCount: 1 }] });
    const settings = { retentionDays: 1, batchSize: 4 };
    const outcomes = await Promise.all([sweepExpiredConversations(sweeperOver(pools[0]!), settings), sweepExpiredConversations(sweeperOver(pools[1]!), settings)]);
    // One sweeps (the other stops at the lock), or both take turns: either way, each conversation once.
    const erased = outcomes.reduce((sum, o) => sum + o.counts.conversations, 0);
    let leftover = 0;
    if (erased < 30) leftover = (await sweepExpiredConversations(sweeperOver(pools[0]!), settings)).counts.conversations;
    expect(erased + leftover).toBe(30);
    expect(await countSessions('race')).toBe(1);
    const audited = await pools[0]!.query<{ n: number; batches: number }>(
      `select coalesce(sum((counts->>'conversations')::int), 0)::int as n, count(*)::int as batches from erasure_audit where actor = 'retention'`,
    );
    expect(audited[0]!.n).toBe(30 + 3);
    expect(audited[0]!.batches).toBeGreaterThanOrEqual(8 + 1);
  });

  it('npm run data:retention counts with --dry-run (erasing nothing), then erases, printing each batch and the totals', async () => {
    await seedExpired('cli', 5);
    const env = { ...process.env, DATABASE_URL: database.url, AGENT_API_KEY: 'cli-test-agent-key', RETENTION_BATCH_SIZE: '2', LOG_LEVEL: 'warn', KNOWLEDGE_SEED_DIR: 'none' };
    const script = path.join(REPO_ROOT, 'scripts/retention.ts');
    const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
    const dry = await run(tsx, [script, '--dry-run', '--days=1'], { env, cwd: REPO_ROOT });
    expect(dry.stdout).toContain('dry run');
    expect(dry.stdout).toContain('Would erase 5 conversation(s) with 10 message(s).');
    expect(await countSessions('cli')).toBe(5);
    // npm's own flag (`npm run data:retention --dry-run` passes it as npm_config_dry_run) counts too.
    const viaNpm = await run(tsx, [script, '--days=1'], { env: { ...env, npm_config_dry_run: 'true' }, cwd: REPO_ROOT });
    expect(viaNpm.stdout).toContain('Would erase 5 conversation(s)');

    const real = await run(tsx, [script, '--days=1'], { env, cwd: REPO_ROOT });
    expect(real.stdout).toMatch(/batch 1: 2 conversation\(s\), 4 message\(s\) erased/);
    expect(real.stdout).toMatch(/batch 3: 1 conversation\(s\), 2 message\(s\) erased/);
    expect(real.stdout).toContain('Erased 5 conversation(s) in 3 batch(es)');
    expect(await countSessions('cli')).toBe(0);
  }, 60_000);

  describe('sessions never stored, tombstones and dropped answers', () => {
    erasureDataCases(() => ({ db: pools[0]!, store }));
  });
});
