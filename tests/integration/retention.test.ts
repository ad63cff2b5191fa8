/**
 * Retention on the embedded default (PGlite): the in-process sweep, on its own
 * timer, erases a conversation idle for longer than CONVERSATION_RETENTION_DAYS and
 * leaves an active one; each batch is audited as the retention's. The lock, the
 * batches and the command line run on the real server (retention-postgres.test.ts).
 */
import { loadConfig } from '../../src/config';
import { startTestService, type TestService } from '../support/test-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { CONVERSATION_RETENTION_DAYS: '0.5', RETENTION_SWEEP_INTERVAL_SECONDS: '0.3', RETENTION_BATCH_SIZE: '1' } });
}, 60_000);
afterAll(async () => {
  await service?.close();
});

it('reads the retention settings: days with decimals, unset keeps everything, nonsense is refused naming the variable', () => {
  expect(loadConfig({ CONVERSATION_RETENTION_DAYS: '0.25' }).privacy).toMatchObject({ retentionDays: 0.25, sweepIntervalMs: 3_600_000, retentionBatchSize: 200 });
  expect(loadConfig({}).privacy.retentionDays).toBeNull();
  expect(() => loadConfig({ CONVERSATION_RETENTION_DAYS: '-1' })).toThrow(/CONVERSATION_RETENTION_DAYS/);
  expect(() => loadConfig({ RETENTION_SWEEP_INTERVAL_SECONDS: 'soon' })).toThrow(/RETENTION_SWEEP_INTERVAL_SECONDS/);
});

it('the sweep erases idle conversations (every one, a batch at a time) and keeps the active one', async () => {
  for (const sessionId of ['ret-idle-1', 'ret-idle-2', 'ret-active']) {
    expect((await service.postChat({ message: 'How long does a refund take?', session_id: sessionId })).status).toBe(200);
  }
  // Two idle for a day, one active an hour ago: the retention period is half a day.
  await service.db.query(`update chat_sessions set updated_at = now() - interval '1 day' where session_id like 'ret-idle-%'`);
  await service.db.query(`update chat_sessions set updated_at = now() - interval '1 hour' where session_id = 'ret-active'`);

  const until = Date.now() + 10_000;
  while ((await service.getHistory('ret-idle-2')).status !== 404 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  expect((await service.getHistory('ret-idle-1')).status).toBe(404);
  expect((await service.getHistory('ret-idle-2')).status).toBe(404);
  expect((await service.getHistory('ret-active')).status).toBe(200);

  const audit = await service.request('GET', '/api/v1/audit/erasures');
  const retention = audit.body.erasures.filter((r: any) => r.actor === 'retention');
  // RETENTION_BATCH_SIZE=1: one audited batch per conversation.
  expect(retention).toHaveLength(2);
  for (const record of retention) expect(record).toMatchObject({ scope: 'retention', customer: null, counts: { conversations: 1, messages: 2 } });
});
