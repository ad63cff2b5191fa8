/**
 * Human takeover on the embedded default (PGlite), answering through the real
 * OpenAI client against the loopback stub. Every answer is escalated
 * (ESCALATION_CONFIDENCE_THRESHOLD=1), so each conversation starts out waiting
 * for a person. The same cases run on the PostgreSQL server in handoff-postgres.test.ts.
 */
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';
import { describeHours } from '../../src/chat/support-hours';
import { handoffCases } from './handoff.cases';

describe('human takeover (PGlite)', () => {
  let stub: OpenAIStub;
  let service: TestService;

  beforeAll(async () => {
    stub = await startOpenAIStub();
    service = await startTestService({
      env: openAIStubEnv(stub.baseURL, { ESCALATION_CONFIDENCE_THRESHOLD: '1', STREAM_HEARTBEAT_MS: '200', EVENTS_POLL_MS: '100' }),
    });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await stub?.close();
  });

  handoffCases(() => ({
    baseURLs: [service.baseURL],
    stub,
    query: (sql, params) => service.db.query(sql, params),
    endStreams: () => service.deps.endStreams(),
  }));
});

describe('escalation outside support hours (PGlite, offline model)', () => {
  let service: TestService;
  // Hours on a day two days from now: nobody answers today, whatever the time.
  const day = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][(new Date().getUTCDay() + 2) % 7]!;

  beforeAll(async () => {
    service = await startTestService({ env: { SUPPORT_HOURS: `${day} 09:00-17:00`, SUPPORT_TIMEZONE: 'UTC' } });
  }, 60_000);
  afterAll(() => service?.close());

  it('does not promise a person now: the answer and the read-back say when the team answers', async () => {
    const answer = await service.postChat({ message: 'Do you sell telescopes for stargazing on Mars?' });
    expect(answer.body.escalated).toBe(true);
    // The hours as the reader's locale writes them (English here), not as configured.
    const hours = describeHours({ time_zone: 'UTC', weekly: [{ days: day, hours: '09:00-17:00' }] }, 'en')!;
    expect(hours).toMatch(/^\w{3} 9:00\sAM\s–\s5:00\sPM \(Coordinated Universal Time\)$/);
    expect(answer.body.response).toContain(`They are not available right now; they answer ${hours} and will see your question`);
    expect(answer.body.response).not.toContain('a human agent can take over');

    const readBack = await service.request('GET', `/api/v1/chat/conversation/${answer.body.session_id}`, undefined, null);
    expect(readBack.status).toBe(401); // the read-back needs the session token, not nothing
    const response = await fetch(`${service.baseURL}/api/v1/chat/conversation/${answer.body.session_id}`, {
      headers: { 'x-session-token': answer.body.session_token },
    });
    expect(((await response.json()) as any).support).toEqual({
      open: false,
      hours: `${day} 09:00-17:00 UTC`,
      schedule: { time_zone: 'UTC', weekly: [{ days: day, hours: '09:00-17:00' }] },
    });
  });
});
