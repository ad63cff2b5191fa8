/**
 * The logs name routes, not paths: a request about a customer or a conversation
 * leaves neither the raw customer id (in any spelling: as typed, URL-encoded) nor
 * the session id in any log line, on captured output of the real service (PGlite).
 * The access line names the route's pattern and the customer's pseudonym.
 */
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger';
import { customerTokenHeader, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

let service: TestService;
/** The service's log lines, as written. */
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...String(chunk).split('\n').filter((line) => line.trim() !== ''));
    done();
  },
});

beforeAll(async () => {
  service = await startTestService({ logger: createLogger('info', logSink) });
}, 60_000);
afterAll(async () => {
  await service?.close();
});

const CUSTOMER = 'Zoë.Quinn+vip@example.com';
const SESSION = 'log-zoe-conversation-7f3a';
const agent = { authorization: `Bearer ${TEST_AGENT_KEY}` };

/** Every spelling of the customer id and the session id a log line might carry. */
const SECRETS = [
  CUSTOMER,
  encodeURIComponent(CUSTOMER),
  encodeURI(CUSTOMER),
  'zoë.quinn',
  'zo%c3%ab.quinn',
  'quinn+vip',
  'quinn%2bvip',
  SESSION,
].map((s) => s.toLowerCase());

/** Sends a request and returns its status and the log lines written for it (by its X-Request-Id), once its access line is there. */
async function requestLogged(method: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.baseURL}${path}`, { method, headers });
  await response.arrayBuffer();
  const requestId = response.headers.get('x-request-id')!;
  const lines = () => logLines.map((l) => JSON.parse(l)).filter((l) => l.request_id === requestId);
  const until = Date.now() + 3000;
  while (!lines().some((l) => l.req) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return { status: response.status, lines: lines() };
}

it('requests about a customer and their conversation leave no raw customer id (nor its encoded forms) or session id in any log line', async () => {
  await service.db.query('select bind_session_customer($1, $2)', [SESSION, CUSTOMER]);
  await service.db.query(`select count(*) from append_turn($1, $2, 'support', $3::jsonb)`, [
    SESSION,
    CUSTOMER,
    JSON.stringify([
      { role: 'user', content: 'Where is my order?', token_count: 5 },
      { role: 'assistant', content: 'It ships tomorrow.', token_count: 5 },
    ]),
  ]);
  const encoded = encodeURIComponent(CUSTOMER);

  const agentExport = await requestLogged('GET', `/api/v1/customers/${encoded}/export`, agent);
  expect(agentExport.status).toBe(200);
  const ownExport = await requestLogged('GET', '/api/v1/me/export', await customerTokenHeader(CUSTOMER));
  expect(ownExport.status).toBe(200);
  const wrongKey = await requestLogged('DELETE', `/api/v1/customers/${encoded}`, { authorization: 'Bearer not-the-key' });
  expect(wrongKey.status).toBe(401);
  const unknownRoute = await requestLogged('GET', `/api/v1/customers/${encoded}/exports`, agent);
  expect(unknownRoute.status).toBe(404);
  const wrongToken = await requestLogged('DELETE', `/api/v1/chat/conversation/${SESSION}`, { 'x-session-token': 'not-its-token' });
  expect(wrongToken.status).toBe(403);
  const unknownConversation = await requestLogged('GET', `/api/v1/chat/history/${SESSION}-gone`, agent);
  expect(unknownConversation.status).toBe(404);
  // As typed, `@` and `+` not encoded (the path still reaches the route).
  const erased = await requestLogged('DELETE', `/api/v1/customers/${CUSTOMER.replace('ë', '%C3%AB')}?include_labelled=true`, agent);
  expect(erased.status).toBe(200);

  // Every line, not only these requests' own.
  expect(logLines.length).toBeGreaterThan(10);
  for (const line of logLines) {
    const text = line.toLowerCase();
    for (const secret of SECRETS) expect({ secret, line: text.includes(secret) ? line : null }).toEqual({ secret, line: null });
  }

  // The access lines name the route pattern and the customer's pseudonym, the same one the erasure's event names.
  const access = (r: { lines: any[] }) => r.lines.find((l) => l.req)!;
  const event = erased.lines.find((l) => l.event === 'customer_data_erased')!;
  expect(event.customer).toMatch(/^c_[0-9a-f]{32}$/);
  expect(access(erased)).toMatchObject({ req: { method: 'DELETE', path: '/api/v1/customers/:user_id' }, customer: event.customer, msg: 'DELETE /api/v1/customers/:user_id 200' });
  expect(access(agentExport)).toMatchObject({ req: { path: '/api/v1/customers/:user_id/export' }, customer: event.customer });
  expect(access(ownExport)).toMatchObject({ req: { path: '/api/v1/me/export' }, customer: event.customer });
  expect(access(unknownRoute).req.path).toBe('/api/…');
  expect(access(unknownConversation).req.path).toBe('/api/v1/chat/history/:session_id');

  // The security events say where, by route.
  expect(wrongKey.lines.find((l) => l.security_event === 'agent_key_rejected')).toMatchObject({ path: '/api/v1/customers/:user_id', method: 'DELETE' });
  expect(wrongToken.lines.find((l) => l.security_event === 'session_token_rejected')).toMatchObject({ path: '/api/v1/chat/conversation/:session_id' });
  expect(access(wrongToken)).toMatchObject({ req: { path: '/api/v1/chat/conversation/:session_id' }, res: { status: 403 } });
});
