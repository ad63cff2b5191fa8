/**
 * An operator who raises MESSAGE_MAX_CHARS gets messages of that length through: the JSON
 * body limit follows it (a CJK character is 3 bytes of UTF-8, 6 as a JSON escape), and the
 * turn is answered and stored whole.
 */
import { startTestService, type TestService } from '../support/test-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { MESSAGE_MAX_CHARS: '100000' } });
});
afterAll(async () => {
  await service?.close();
});

async function post(body: string) {
  const res = await fetch(`${service.baseURL}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: (await res.json()) as { session_id: string; error: { code: string } } };
}

it('answers a 100,000-character message in a non-Latin script, written as JSON escapes, and stores it whole', async () => {
  const message = `退款${'\u9000'.repeat(99_990)}多久`;
  const escaped = JSON.stringify({ message }).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  expect(escaped.length).toBeGreaterThan(500_000);
  const { status, body } = await post(escaped);
  expect(status).toBe(200);
  const stored = await service.db.query<{ content: string }>("select content from chat_messages where session_id = $1 and role = 'user'", [body.session_id]);
  expect(stored.map((row) => row.content)).toEqual([message]);
});

it('still refuses a message over the configured length, and a body far over what it allows', async () => {
  expect((await post(JSON.stringify({ message: 'a'.repeat(100_001) }))).body.error.code).toBe('invalid_request');
  const huge = await post(JSON.stringify({ message: 'a'.repeat(700_000) }));
  expect(huge.status).toBe(413);
});
