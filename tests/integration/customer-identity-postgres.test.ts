/**
 * Customer identity on the real PostgreSQL server (TEST_DATABASE_URL): the attacks
 * of customer-identity.suite.ts against two in-process services on one database,
 * then the wrong-proof limit enforced by two service processes (`src/index.ts`)
 * together: the counts live in the database, so the 6th wrong proof is refused
 * with 429 whichever process it reaches. The server has no pgvector, so the
 * knowledge base is an empty stand-in (every answer without passages); what is
 * tested is who may see what.
 */
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import type { SqlDatabase } from '../../src/store/database';
import { openPostgresDatabase } from '../../src/store/postgres';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { createTestDatabase, describeOnTestServer, migrateTestDatabaseForService, testServerHasPgvector } from '../support/postgres';
import { startServiceProcess, stopServiceProcess, waitUntilServing, type ServiceProcess } from '../support/processes';
import { type AppInstance, closeAppInstances, listenApp, openAIStubEnv, TEST_AGENT_KEY } from '../support/test-service';
import { describeIdentityAttacks, IDENTITY_ENV } from './customer-identity.suite';

const hasPgvector = testServerHasPgvector();

describeOnTestServer('customer identity on a PostgreSQL server', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: SqlDatabase;
  let stub: OpenAIStub;
  const instances: AppInstance[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: database.url, poolMax: 2 });
    await migrateTestDatabaseForService(db, hasPgvector);
    stub = await startOpenAIStub();
    const base = { LOG_LEVEL: 'silent', DATABASE_URL: database.url, DATABASE_POOL_MAX: '3', AGENT_API_KEY: TEST_AGENT_KEY, KNOWLEDGE_SEED_DIR: 'none', ...IDENTITY_ENV };
    for (const env of [{ ...base, OFFLINE_STREAM_DELAY_MS: '0' }, { ...base, ...openAIStubEnv(stub.baseURL, IDENTITY_ENV) }]) {
      const deps = await createDependencies(loadConfig(env), createLogger('silent'));
      instances.push(await listenApp(deps));
    }
  }, 60_000);
  afterAll(async () => {
    await closeAppInstances(instances);
    await stub?.close();
    await db?.close();
    await database?.drop();
  });

  describeIdentityAttacks(() => ({
    offline: { baseURL: instances[0]!.baseURL, db },
    online: { baseURL: instances[1]!.baseURL, db },
    stub,
  }));

  describe('two service processes', () => {
    let processes: ServiceProcess[] = [];
    beforeAll(async () => {
      const env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: '3', LOG_LEVEL: 'warn', KNOWLEDGE_SEED_DIR: 'none', OFFLINE_STREAM_DELAY_MS: '0', ...IDENTITY_ENV };
      processes = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
      await Promise.all(processes.map((p) => waitUntilServing(p)));
    }, 120_000);
    afterAll(async () => {
      await Promise.all(processes.map((p) => stopServiceProcess(p)));
    });

    async function post(process: number, body: Record<string, unknown>, headers: Record<string, string>) {
      const response = await fetch(`${processes[process]!.baseURL}/api/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any };
    }

    it('refuses the 6th wrong proof of one session with 429, though the five before it went to the two processes in turn', async () => {
      let sessionHeaders: Record<string, string> = { 'x-forwarded-for': '192.0.2.10' };
      let session: { session_id?: string } = {};
      const statuses: number[] = [];
      for (let i = 1; i <= 5; i++) {
        const reply = await post(i % 2, { ...session, message: `Where is ZX-14440? postcode 2000${i}` }, { ...sessionHeaders, 'x-forwarded-for': `192.0.2.${10 + i}` });
        statuses.push(reply.status);
        expect(reply.body.response).toContain('cannot be matched');
        session = { session_id: reply.body.session_id };
        sessionHeaders = { 'x-session-token': reply.body.session_token };
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      for (const process of [0, 1]) {
        const refused = await post(process, { ...session, message: 'Where is ZX-14440? email lukas@example.com' }, { ...sessionHeaders, 'x-forwarded-for': '192.0.2.30' });
        expect({ status: refused.status, code: refused.body.error?.code, retryAfter: Number(refused.retryAfter) > 0 }).toEqual({
          status: 429,
          code: 'order_proof_limited',
          retryAfter: true,
        });
        expect(JSON.stringify(refused.body)).not.toContain('Cork');
      }
    });

    it('refuses the 6th wrong proof of one client with 429 across new sessions on both processes', async () => {
      const client = { 'x-forwarded-for': '192.0.2.99' };
      for (let i = 1; i <= 5; i++) {
        const reply = await post(i % 2, { message: `Where is ZX-59197? email guess${i}@example.com` }, client);
        expect(reply.status).toBe(200);
      }
      const refused = [await post(0, { message: 'Where is ZX-59197? email lukas@example.com' }, client), await post(1, { message: 'Where is ZX-59197? postcode T12 RX38' }, client)];
      expect(refused.map((r) => [r.status, r.body.error?.code])).toEqual([
        [429, 'order_proof_limited'],
        [429, 'order_proof_limited'],
      ]);
      // A client with its own address is not held back.
      const other = await post(1, { message: 'Where is ZX-59197? email lukas@example.com' }, { 'x-forwarded-for': '192.0.2.100' });
      expect(other.status).toBe(200);
      expect(other.body.response).toContain('Order ZX-59197 is delivered');
    });
  });
});
