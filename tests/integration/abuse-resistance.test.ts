/**
 * Abuse resistance on the embedded default (PGlite), the real service answering
 * through the loopback OpenAI-compatible stub: the operator's ceiling on one
 * model call (checked against the stub's recorded requests), public callers'
 * memory strategies, ids that display as something else, paging cursors that
 * would reach SQL as impossible values, /metrics, weak agent keys in production,
 * the session-token secret and its rotation, and Idempotency-Keys in the logs.
 * (Wrong session tokens and wrong agent keys, counted in the database, are in
 * rate-limits-postgres.test.ts, on a real PostgreSQL server with two instances.)
 */
import { Writable } from 'node:stream';
import { createHmac } from 'node:crypto';
import { describeError } from '../../src/http/error-handler';
import { encodeCursor } from '../../src/http/schemas';
import { TokenCounter } from '../../src/memory/tokens';
import { createLogger } from '../../src/observability/logger';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startServiceProcess, stopServiceProcess } from '../support/processes';
import { makeTempDir, openAIStubEnv, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const CEILING = 9000;
const AGENT = { authorization: `Bearer ${TEST_AGENT_KEY}` };
const counter = new TokenCounter('gpt-4o-mini');

/** A logger whose JSON lines the test reads. */
function logCollector() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter((l) => l.trim() !== ''));
      done();
    },
  });
  return { lines, logger: createLogger('debug', sink) };
}

/** 3,900 characters of a customer's words, different each turn. */
function longMessage(turn: number): string {
  const sentence = `Turn ${turn}: my parcel ZX-${String(10000 + turn)} is late and the tracking page shows nothing new. `;
  return sentence.repeat(Math.ceil(3900 / sentence.length)).slice(0, 3900);
}

/** Tokens of what one recorded request sends the model (every message, as the service counts them). */
function recordedInputTokens(body: { messages: Array<{ content: unknown }> }): number {
  return body.messages.reduce((sum, m) => sum + counter.countMessage({ content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) }), 0);
}

let stub: OpenAIStub;
let service: TestService;
const logs = logCollector();

beforeAll(async () => {
  stub = await startOpenAIStub();
  service = await startTestService({ env: openAIStubEnv(stub.baseURL, { MODEL_INPUT_MAX_TOKENS: String(CEILING), METRICS_TOKEN: 'metrics-token-for-tests' }), logger: logs.logger });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await stub?.close();
});

describe('the operator’s ceiling on one model call', () => {
  const strategy = { mode: 'none', context_window_tokens: 10_000_000 };

  it('refuses a widget caller’s `none` with a 10,000,000-token window (403 memory_strategy_not_allowed), storing nothing', async () => {
    const before = await service.countRows('chat_messages');
    stub.requests.length = 0;
    for (let turn = 0; turn < 60; turn++) {
      const refused = await service.postChat({ message: longMessage(turn), session_id: 'widget-none', memory_strategy: strategy });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('memory_strategy_not_allowed');
    }
    expect(await service.countRows('chat_messages')).toBe(before);
    expect(stub.chatRequests()).toHaveLength(0);
    // Budgets over the ceiling are refused too; within it they are the caller's choice.
    const tooBig = await service.postChat({ message: 'Hi', memory_strategy: { mode: 'window', token_budget: CEILING + 1 } });
    expect(tooBig.status).toBe(403);
    expect(tooBig.body.error.message).toContain('token_budget');
    expect((await service.postChat({ message: 'Hi', memory_strategy: { mode: 'summarize', context_window_tokens: CEILING } })).status).toBe(200);
  });

  it('with the agent key, 60 turns of 3,900 characters in mode none never send the model more than the ceiling, and the report says when it cut', async () => {
    stub.requests.length = 0;
    logs.lines.length = 0;
    const reports = [];
    for (let turn = 0; turn < 60; turn++) {
      const answer = await service.postChat({ message: longMessage(turn), session_id: 'agent-none', memory_strategy: strategy }, AGENT);
      expect(answer.status).toBe(200);
      reports.push(answer.body.memory);
    }
    const sent = stub.chatRequests().map((r) => recordedInputTokens(r.body));
    expect(sent).toHaveLength(60);
    expect(Math.max(...sent)).toBeLessThanOrEqual(CEILING);
    // Early turns fit whole; later ones are cut, oldest turns first, and say so.
    expect(reports[0].input_ceiling).toMatchObject({ max_tokens: CEILING, dropped_turns: 0 });
    expect(reports[0].input_ceiling.history_cut).toBe(false);
    // The ceiling cut: by loading a bounded window of the session, then by dropping whole turns if the prompt still overflowed.
    const cut = reports.findIndex((r) => r.input_ceiling.history_cut || r.input_ceiling.dropped_turns > 0);
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThan(10);
    expect(reports[59].input_ceiling.history_cut).toBe(true);
    expect(reports[59].tokens_after).toBeLessThanOrEqual(CEILING);
    expect(reports[59].tokens_before).toBeGreaterThan(50 * 900);
    // History loading is bounded by the ceiling as well: never the whole session.
    const loaded = logs.lines.map((l) => JSON.parse(l)).filter((l) => l.history_tokens !== undefined && l.session_id === 'agent-none');
    expect(loaded).toHaveLength(60);
    expect(Math.max(...loaded.map((l) => l.history_tokens))).toBeLessThanOrEqual(CEILING);
    expect(Math.max(...loaded.map((l) => l.history_messages))).toBeLessThan(2 * 10);

    // `window` with a 10,000,000-token budget: the window is loaded up to the ceiling at most, and what is sent stays within it.
    // (Dropping whole turns after the strategy is tested on its own in tests/unit/input-ceiling.test.ts.)
    stub.requests.length = 0;
    const windowed = await service.postChat({ message: longMessage(60), session_id: 'agent-none', memory_strategy: { mode: 'window', token_budget: 10_000_000 } }, AGENT);
    expect(windowed.status).toBe(200);
    expect(windowed.body.memory.tokens_after).toBeLessThanOrEqual(CEILING);
    expect(recordedInputTokens(stub.chatRequests()[0]!.body)).toBeLessThanOrEqual(CEILING);
  }, 120_000);
});

describe('ids and labels that would display as something else', () => {
  it.each([
    ['a right-to-left override', 'admin\u202Egpj.exe@example.com'],
    ['a zero-width space', 'anna\u200B@example.com'],
    ['a zero-width joiner', 'anna\u200D@example.com'],
    ['a byte-order mark', '\uFEFFanna@example.com'],
  ])('refuses a user_id with %s (400), storing nothing', async (_name, userId) => {
    const before = await service.countRows('chat_sessions');
    const refused = await service.postChat({ message: 'Hi', user_id: userId });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('format characters') });
    expect(await service.countRows('chat_sessions')).toBe(before);
  });

  it('still takes a user id in any script', async () => {
    expect((await service.postChat({ message: 'Hi', user_id: 'مريم@example.com' })).status).toBe(200);
  });
});

describe('paging cursors and database data exceptions', () => {
  it.each([
    ['an impossible date', ['2020-13-45 99:99:99+00', 'session-1']],
    ['the 31st of February', ['2026-02-31 10:00:00+00', 'session-1']],
    ['year zero', ['0000-01-01 00:00:00+00', 'session-1']],
    ['an offset beyond any zone', ['2026-01-01 00:00:00+24', 'session-1']],
    ['a NUL in the session id', ['2026-01-01 00:00:00+00', 'a\u0000b']],
    ['an extra element', ['2026-01-01 00:00:00+00', 'session-1', 'more']],
  ])('answers a cursor with %s with 400, before SQL', async (_name, parts) => {
    const cursor = Buffer.from(JSON.stringify(parts)).toString('base64url');
    const response = await service.request('GET', `/api/v1/chat/sessions?cursor=${cursor}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
  });

  it('accepts the cursor it made', async () => {
    const cursor = encodeCursor({ updatedAt: '2026-11-22 10:15:30.123456+00', sessionId: 'session-1' });
    expect((await service.request('GET', `/api/v1/chat/sessions?cursor=${cursor}`)).status).toBe(200);
  });

  it('maps any SQLSTATE of class 22 (data exception) to 400, whatever the backend', () => {
    for (const code of ['22008', '22007', '22003', '22P02', '22021']) {
      expect(describeError(Object.assign(new Error('date/time field value out of range'), { code }))).toEqual({
        status: 400,
        code: 'invalid_value',
        message: expect.any(String),
      });
    }
    expect(describeError(Object.assign(new Error('deadlock'), { code: '40P01' })).status).toBe(500);
  });
});

describe('/metrics', () => {
  it('refuses a scrape without its token or with another, and serves it with METRICS_TOKEN', async () => {
    expect((await fetch(`${service.baseURL}/metrics`)).status).toBe(401);
    expect((await fetch(`${service.baseURL}/metrics`, { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(401);
    const served = await fetch(`${service.baseURL}/metrics`, { headers: { authorization: 'Bearer metrics-token-for-tests' } });
    expect(served.status).toBe(200);
    expect(await served.text()).toContain('http_request_duration_seconds');
  });

  it('is not served in production when METRICS_TOKEN is unset', async () => {
    const production = await startTestService({ env: { NODE_ENV: 'production', AGENT_API_KEY: 'k'.repeat(8) + 'Zq3-x9Lm2Pw7Rt5Yv1Bn6Hc4Jd8Gf0Ks' } });
    try {
      const refused = await fetch(`${production.baseURL}/metrics`);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('metrics_disabled');
    } finally {
      await production.close();
    }
  });
});

describe('the agent key in production', () => {
  it('stops `npm start` with a weak AGENT_API_KEY, naming the setting and how to make a good one', async () => {
    const started = await startServiceProcess({ NODE_ENV: 'production', AGENT_API_KEY: 'password' });
    try {
      const { code } = await started.exited;
      expect(code).toBe(1);
      expect(started.output()).toContain('AGENT_API_KEY is too weak for production');
      expect(started.output()).toContain('openssl rand -base64 32');
    } finally {
      await stopServiceProcess(started);
    }
  }, 60_000);
});

describe('session tokens have their own secret', () => {
  it('are not keyed by the agent key, survive a restart (the generated secret is kept in the database), and survive a rotation until its date', async () => {
    const dataDir = await makeTempDir();
    const first = await startTestService({ dataDir });
    const started = await first.postChat({ message: 'Hello', session_id: 'rotating' });
    await first.close();
    const token: string = started.body.session_token;
    const agentKeyed = createHmac('sha256', TEST_AGENT_KEY).update('session-token:rotating').digest('base64url');
    expect(token).not.toBe(agentKeyed);

    const restarted = await startTestService({ dataDir });
    try {
      expect((await restarted.postChat({ message: 'Still me', session_id: 'rotating' }, { 'x-session-token': token })).status).toBe(200);
    } finally {
      await restarted.close();
    }

    const [row] = await (async (): Promise<Array<{ value: string }>> => {
      const reader = await startTestService({ dataDir });
      try {
        return await reader.db.query<{ value: string }>(`select value from service_secrets where name = 'session_token_secret'`);
      } finally {
        await reader.close();
      }
    })();
    const oldSecret = row!.value;
    const newSecret = 'n'.repeat(10) + '-rotated-secret-0123456789abcdef';
    const rotated = (until: string) =>
      startTestService({ dataDir, env: { SESSION_TOKEN_SECRET: newSecret, SESSION_TOKEN_SECRET_PREVIOUS: oldSecret, SESSION_TOKEN_SECRET_PREVIOUS_UNTIL: until } });
    const inGrace = await rotated(new Date(Date.now() + 3_600_000).toISOString());
    try {
      const answer = await inGrace.postChat({ message: 'After the rotation', session_id: 'rotating' }, { 'x-session-token': token });
      expect(answer.status).toBe(200);
      // The answer carries a token of the new secret, so the conversation moves over.
      expect(answer.body.session_token).not.toBe(token);
    } finally {
      await inGrace.close();
    }
    const afterGrace = await rotated(new Date(Date.now() - 1000).toISOString());
    try {
      expect((await afterGrace.postChat({ message: 'Too late', session_id: 'rotating' }, { 'x-session-token': token })).status).toBe(403);
    } finally {
      await afterGrace.close();
    }
  }, 120_000);
});

describe('Idempotency-Keys', () => {
  it('never appear in the logs in clear (first use, replay, conflicting reuse), nor in the database', async () => {
    logs.lines.length = 0;
    const key = 'idem-secret-7f3a9c2e-41d8-4b6a-9e0f-c1d2e3f4a5b6';
    const headers = { 'idempotency-key': key };
    const first = await service.postChat({ message: 'Where is my order?' }, headers);
    expect(first.status).toBe(200);
    const replay = await service.postChat({ message: 'Where is my order?' }, headers);
    expect(replay.body.session_id).toBe(first.body.session_id);
    expect((await service.postChat({ message: 'Something else' }, headers)).status).toBe(422);
    expect(logs.lines.length).toBeGreaterThan(3);
    expect(logs.lines.join('\n')).not.toContain(key);
    expect(logs.lines.join('\n')).toContain('idempotency_key_hash');
    const stored = await service.db.query<{ key: string }>('select key from idempotency_keys');
    expect(stored.map((r) => r.key).join()).not.toContain(key);
  });

  it('are scoped to the caller: the same key from another session’s owner is a new request, never the other’s answer', async () => {
    const a = await service.postChat({ message: 'Start A', session_id: 'scope-a' });
    const b = await service.postChat({ message: 'Start B', session_id: 'scope-b' });
    expect([a.status, b.status]).toEqual([200, 200]);
    const headers = { 'idempotency-key': 'shared-key-1' };
    const fromA = await service.postChat({ message: 'Same words', session_id: 'scope-a' }, headers);
    const fromB = await service.postChat({ message: 'Same words', session_id: 'scope-b' }, headers);
    expect(fromB.status).toBe(200);
    expect(fromB.body.session_id).toBe('scope-b');
    expect(fromB.body.message_id).not.toBe(fromA.body.message_id);
    // The agent key is a caller of its own too.
    const fromAgent = await service.postChat({ message: 'Same words', session_id: 'scope-a' }, { ...headers, ...AGENT });
    expect(fromAgent.body.message_id).not.toBe(fromA.body.message_id);
  });
});
