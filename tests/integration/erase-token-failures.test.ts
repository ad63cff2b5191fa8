/**
 * Wrong session tokens on DELETE /api/v1/chat/conversation/:session_id count
 * against the caller's address like wrong agent keys (AUTH_FAILURES_PER_CLIENT per
 * AUTH_FAILURE_WINDOW_MS, in the database): past the limit the caller is refused
 * (429) before its token is even checked, and the conversation's owner elsewhere
 * is not locked out of anything.
 */
import { startTestService, type TestService } from '../support/test-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { AUTH_FAILURES_PER_CLIENT: '2', AUTH_FAILURE_WINDOW_MS: '60000' } });
}, 60_000);
afterAll(async () => {
  await service?.close();
});

const erase = (sessionId: string, token: string) =>
  fetch(`${service.baseURL}/api/v1/chat/conversation/${sessionId}`, { method: 'DELETE', headers: { 'x-session-token': token } });

it('two wrong tokens are 403, the third try is 429 even with the right token, and nothing was erased', async () => {
  const own = await service.postChat({ message: 'How long does a refund take?', session_id: 'guessed' });
  const token = own.body.session_token as string;
  for (const attempt of ['guess-1', 'guess-2']) {
    const refused = await erase('guessed', attempt);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe('session_token_invalid');
  }
  const limited = await erase('guessed', token);
  expect(limited.status).toBe(429);
  expect(((await limited.json()) as any).error.code).toBe('too_many_failed_tokens');
  expect((await service.getHistory('guessed')).status).toBe(200);
  const [row] = await service.db.query<{ hits: number }>(`select sum(hits)::int as hits from rate_limit_counters where key like 'session-token-failures:%'`);
  expect(row!.hits).toBe(2);
  // An agent is not held up by the customer-side counter.
  expect((await service.request('DELETE', '/api/v1/chat/conversation/guessed')).status).toBe(200);
});
