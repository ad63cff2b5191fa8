/**
 * Langfuse and customer data, against a stand-in Langfuse on loopback that takes
 * what the real SDK and Langfuse's public API get: traces carry a pseudonymous user
 * id by default (a keyed hash, the same for a customer on every trace, never the
 * id); erasing a customer or a conversation deletes its traces through
 * DELETE /api/public/traces; a Langfuse outage does not hold the erasure up, is
 * recorded in the audit, and is retried until it succeeds.
 */
import { startLangfuseReceiver, type LangfuseReceiver } from '../support/langfuse-receiver';
import { customerTokenHeader, startTestService, type TestService } from '../support/test-service';

let receiver: LangfuseReceiver;
let service: TestService;

beforeAll(async () => {
  receiver = await startLangfuseReceiver();
  service = await startTestService({
    env: {
      LANGFUSE_PUBLIC_KEY: 'pk-lf-test',
      LANGFUSE_SECRET_KEY: 'sk-lf-test',
      LANGFUSE_BASE_URL: receiver.baseUrl,
      LANGFUSE_FLUSH_TIMEOUT_MS: '2000',
      TRACE_DELETION_RETRY_SECONDS: '0.3',
      OFFLINE_STREAM_DELAY_MS: '0',
    },
  });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await receiver?.close();
});

async function traceIdsOf(sessionId: string): Promise<string[]> {
  const rows = await service.db.query<{ trace_id: string }>(
    "select metadata->>'trace_id' as trace_id from chat_messages where session_id = $1 and metadata ? 'trace_id' order by seq",
    [sessionId],
  );
  return rows.map((r) => r.trace_id);
}

async function auditRecord(id: number) {
  const audit = await service.request('GET', '/api/v1/audit/erasures?limit=200');
  return audit.body.erasures.find((r: any) => Number(r.id) === id);
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("traces carry the customer's pseudonym by default, the same on each of their traces, never the id; erasing the customer deletes those traces", async () => {
  const lukas = await customerTokenHeader('lukas@example.com');
  const first = await service.postChat({ message: 'Where is my order?', session_id: 'lf-erase-1' }, lukas);
  const second = await service.postChat({ message: 'Do you sell kettles?', session_id: 'lf-erase-2' }, { ...(await customerTokenHeader('Lukas@Example.com')) });
  expect([first.status, second.status]).toEqual([200, 200]);
  const traceIds = [...(await traceIdsOf('lf-erase-1')), ...(await traceIdsOf('lf-erase-2'))];
  expect(traceIds).toHaveLength(2);
  await service.deps.tracing.flush();
  await receiver.waitFor(() => traceIds.every((id) => receiver.spans.some((s) => s.traceId === id && s.parentSpanId === null)));

  const userIds = new Set(receiver.spans.filter((s) => traceIds.includes(s.traceId)).map((s) => s.attributes['user.id']));
  expect(userIds.size).toBe(1);
  const [pseudonym] = [...userIds] as string[];
  expect(pseudonym).toMatch(/^c_[0-9a-f]{32}$/);
  expect(JSON.stringify(receiver.spans.map((s) => s.attributes))).not.toContain('lukas@example.com');
  // The audit names the customer by the same pseudonym, so a dashboard and the audit line up.
  expect(pseudonym).toBe(service.deps.erasure.pseudonymOf('lukas@example.com'));

  const erased = await service.request('DELETE', '/api/v1/customers/lukas%40example.com');
  expect(erased.status).toBe(200);
  await receiver.waitFor(() => traceIds.every((id) => receiver.deletedTraceIds.includes(id)));
  const deletion = receiver.requests.find((r) => r.method === 'DELETE');
  expect(deletion).toMatchObject({ path: '/api/public/traces', authorization: `Basic ${Buffer.from('pk-lf-test:sk-lf-test').toString('base64')}` });
  await until(async () => (await auditRecord(erased.body.erasure_id))?.langfuse.status === 'deleted');
  expect((await auditRecord(erased.body.erasure_id)).langfuse).toMatchObject({ status: 'deleted', traces: 2, attempts: 1, error: null });
});

it('a Langfuse outage does not hold an erasure up: the audit says it failed, and it is retried until Langfuse takes it', async () => {
  const answer = await service.postChat({ message: 'How long does a refund take?', session_id: 'lf-outage' });
  const [traceId] = await traceIdsOf('lf-outage');
  receiver.setStatus(503);
  expect((await service.request('DELETE', '/api/v1/chat/conversation/lf-outage', undefined, null)).status).toBe(401);
  const byCustomer = await fetch(`${service.baseURL}/api/v1/chat/conversation/lf-outage`, { method: 'DELETE', headers: { 'x-session-token': answer.body.session_token } });
  expect(byCustomer.status).toBe(200);
  const { erasure_id: erasureId } = (await byCustomer.json()) as { erasure_id: number };
  expect((await service.getHistory('lf-outage')).status).toBe(404);

  await until(async () => (await auditRecord(erasureId))?.langfuse.attempts >= 2);
  const failed = (await auditRecord(erasureId)).langfuse;
  expect(failed).toMatchObject({ status: 'failed', traces: 1 });
  expect(failed.error).toContain('503');
  expect(receiver.deletedTraceIds).not.toContain(traceId);

  receiver.setStatus(null);
  await until(async () => (await auditRecord(erasureId))?.langfuse.status === 'deleted');
  expect(receiver.deletedTraceIds).toContain(traceId);
  expect((await auditRecord(erasureId)).langfuse.error).toBeNull();
});
