/**
 * Fuzzing the HTTP API of the real service (startTestService: the real app over
 * PGlite, the offline model) with hostile input on every endpoint: malformed and
 * deep JSON, wrong types for every field, huge strings, unknown fields, bad memory
 * strategies, weird unicode in session ids, wrong content types and encodings,
 * huge headers, slow and stalled clients.
 *
 * The rule: a request the client got wrong is answered 4xx with the API's JSON error
 * `{"error": {"code", "message"}}`, never 5xx; a request that happens to be valid is
 * answered as usual; and after every batch a normal question is still answered.
 * That holds for what Node's HTTP parser refuses before the app sees it, too
 * (headers over 16 KB → 431, a malformed request line or header → 400): the
 * server's clientError handler answers those with the same JSON error and closes
 * the connection.
 *
 * Bodies come from fast-check (fc.json(), fc.jsonValue(), fc.anything(), binary
 * strings, one field of a valid body replaced by anything) and from a fixed table of
 * nasty cases. Every failure is collected (not only the first); the counts and one
 * shortest example per distinct failure are written to
 * test-artifacts/fuzz-http-api.json. FUZZ_SEED replays a run, FUZZ_RUNS scales it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';
import { httpRequest, parseSse, rawRequest } from './raw-http';

const SEED = process.env.FUZZ_SEED === undefined ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.FUZZ_SEED);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

const AUTH = { authorization: `Bearer ${TEST_AGENT_KEY}` };
const JSON_TYPE = { 'content-type': 'application/json' };

// ── the service ───────────────────────────────────────────────────────────────

let service: TestService;
let port: number;
let baseSession: { id: string; token: string };

beforeAll(async () => {
  service = await startTestService({
    env: {
      // The limits would answer most of this run with 429 (a 4xx with the JSON error: fine,
      // but it would hide what the endpoints do with the input). Unknown names are ignored.
      RATE_LIMIT_PER_CLIENT: '1000000',
      RATE_LIMIT_PER_SESSION: '1000000',
      // Wrong agent keys are this run's business too (every credential case): count them, never stop them.
      AUTH_FAILURES_PER_CLIENT: '10000',
      OFFLINE_STREAM_DELAY_MS: '0',
    },
  });
  port = Number(new URL(service.baseURL).port);
  const first = await service.postChat({ message: 'How long does a refund take?', session_id: 'fuzz-base' });
  expect(first.status).toBe(200);
  baseSession = { id: 'fuzz-base', token: first.body.session_token };
}, 120_000);

afterAll(async () => {
  writeArtifact();
  await service?.close();
});

// ── sending and judging ───────────────────────────────────────────────────────

interface Sent {
  method: string;
  path: string;
  /** What kind of input this is, when the endpoint alone does not say (groups failures). */
  label?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

interface Received {
  status: number;
  contentType: string;
  text: string;
  networkError?: string;
}

async function send(request: Sent): Promise<Received> {
  try {
    const response = await fetch(`${service.baseURL}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return { status: 0, contentType: '', text: '', networkError: `${(error as Error).message}${cause ? `: ${cause}` : ''}` };
  }
}

/** What the answer must be: any client error (the default), a documented status and code, or possibly a success. */
interface Expectation {
  status?: number;
  code?: string;
  /** The input may be valid (generated bodies): 2xx is fine too, in the endpoint's usual shape. */
  mayBeValid?: boolean;
}

/** The problem with an answer, or null when it is as the API promises. */
function problemWith(request: Sent, received: Received, expectation: Expectation): string | null {
  const { status } = received;
  if (status === 0) return `no answer (${received.networkError})`;
  if (status >= 500) return `${status} for a client mistake`;
  const isStream = request.path.startsWith('/api/v1/chat/stream');
  if (status >= 200 && status < 300) {
    if (!expectation.mayBeValid) return `${status}: accepted`;
    if (status === 204) return null;
    if (isStream) {
      if (!received.contentType.startsWith('text/event-stream')) return `stream answered ${received.contentType}`;
      const last = parseSse(received.text).at(-1);
      if (last?.event === 'done') return null;
      const code = (last?.data as { code?: unknown } | undefined)?.code;
      return last?.event === 'error' ? `stream ended with error event ${String(code)}` : 'stream ended without done';
    }
    if (!received.contentType.includes('application/json')) return `${status} answered ${received.contentType}`;
    return null;
  }
  if (status < 400) return `${status}`;
  if (!received.contentType.includes('application/json')) return `${status} answered ${received.contentType || 'no content type'}`;
  let body: unknown;
  try {
    body = JSON.parse(received.text);
  } catch {
    return `${status} with a body that is not JSON`;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string' || error.code === '' || typeof error.message !== 'string' || error.message === '') {
    return `${status} without {error:{code,message}}`;
  }
  if (expectation.status !== undefined && status !== expectation.status) return `${status} ${error.code} (expected ${expectation.status})`;
  if (expectation.code !== undefined && error.code !== expectation.code) return `${status} ${error.code} (expected ${expectation.code})`;
  return null;
}

// ── counting ──────────────────────────────────────────────────────────────────

interface Failure {
  category: string;
  endpoint: string;
  problem: string;
  /** How many inputs failed this way. */
  count: number;
  /** The shortest input that did. */
  example: { method: string; path: string; headers?: Record<string, string>; body?: string };
  answer: string;
}

const categories: Record<string, { inputs: number; failures: number; ms: number }> = {};
const failures = new Map<string, Failure>();
const notes: Record<string, unknown> = {};

/** The route, with the names (not values) of any query parameters. */
function endpointOf(p: string): string {
  const [pathname = '', query] = p.split(/\?(.*)/s);
  const route = pathname
    .replace(/^(\/api\/v1\/chat\/(?:history|conversation))\/.+$/, '$1/:id')
    .replace(/^(\/api\/v1\/conversations)\/.+(\/memory)$/, '$1/:id$2');
  const names = query ? [...new Set(query.split('&').map((pair) => pair.split('=')[0]))].sort().join('&') : '';
  return names ? `${route}?${names}` : route;
}

function shown(value: string | Buffer | undefined, max = 300): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : `<${value.length} bytes>`;
  return text.length > max ? `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)` : JSON.stringify(text);
}

function record(category: string, request: Sent, received: Received, problem: string | null): void {
  const c = (categories[category] ??= { inputs: 0, failures: 0, ms: 0 });
  c.inputs++;
  if (problem === null) return;
  c.failures++;
  const endpoint = `${request.method} ${endpointOf(request.path)}${request.label ? ` [${request.label}]` : ''}`;
  // One entry per endpoint and kind of failure (the error code, not the message, which names fields).
  let errorCode = '';
  try {
    errorCode = JSON.parse(received.text)?.error?.code ?? '';
  } catch {
    // not JSON
  }
  const key = `${category}|${endpoint}|${problem.replace(/\(.*\)$/, '')}|${errorCode}`;
  const size = (request.body?.length ?? 0) + request.path.length;
  const existing = failures.get(key);
  const example = { method: request.method, path: request.path.slice(0, 300), headers: request.headers, body: shown(request.body) };
  if (!existing) {
    failures.set(key, { category, endpoint, problem, count: 1, example, answer: received.text.slice(0, 300) });
  } else {
    existing.count++;
    const existingSize = (existing.example.body?.length ?? 0) + existing.example.path.length;
    if (size < existingSize) Object.assign(existing, { example, problem, answer: received.text.slice(0, 300) });
  }
}

/** Sessions an accepted chat request of this run opened: a path naming one may be answered ("constructor" is a valid id). */
const openedSessions = new Set<string>(['fuzz-base']);

async function check(category: string, request: Sent, expectation: Expectation = {}): Promise<Received> {
  const received = await send(request);
  record(category, request, received, problemWith(request, received, expectation));
  if (request.method === 'POST' && request.path.startsWith('/api/v1/chat') && received.status === 200 && typeof request.body === 'string') {
    try {
      const sessionId = JSON.parse(request.body)?.session_id;
      if (typeof sessionId === 'string') openedSessions.add(sessionId);
    } catch {
      // a body that is no JSON opens no session
    }
  }
  return received;
}

function failuresIn(category: string): string[] {
  return [...failures.values()]
    .filter((f) => f.category === category)
    .map((f) => `${f.endpoint}: ${f.problem} ×${f.count}, e.g. ${f.example.method} ${f.example.path} ${f.example.body ?? ''} → ${f.answer}`);
}

/** A normal question and /health are still answered. */
async function expectStillServing(): Promise<void> {
  const chat = await service.postChat({ message: 'Can I pay with Klarna?' });
  expect(chat.status).toBe(200);
  expect(typeof chat.body.response).toBe('string');
  const health = await send({ method: 'GET', path: '/health' });
  expect(health.status).toBe(200);
}

async function runCategory(category: string, work: () => Promise<void>): Promise<void> {
  const started = Date.now();
  categories[category] ??= { inputs: 0, failures: 0, ms: 0 };
  await work();
  categories[category]!.ms += Date.now() - started;
  await expectStillServing();
  expect(failuresIn(category)).toEqual([]);
}

function writeArtifact(): void {
  const dir = path.resolve(__dirname, '../../test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  const totals = Object.values(categories).reduce((t, c) => ({ inputs: t.inputs + c.inputs, failures: t.failures + c.failures }), { inputs: 0, failures: 0 });
  fs.writeFileSync(
    path.join(dir, 'fuzz-http-api.json'),
    `${JSON.stringify({ seed: SEED, scale: SCALE, totals: { ...totals, distinctFailures: failures.size }, categories, failures: [...failures.values()], notes }, null, 2)}\n`,
  );
}

// ── inputs ────────────────────────────────────────────────────────────────────

/** Lone surrogates replaced by U+FFFD (String.prototype.toWellFormed, which lib ES2023 does not declare). */
const wellFormed = (text: string) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const BODY_ENDPOINTS = [
  { method: 'POST', path: '/api/v1/chat', headers: {} as Record<string, string> },
  { method: 'POST', path: '/api/v1/chat/stream', headers: {} as Record<string, string> },
  { method: 'PATCH', path: '/api/v1/conversations/fuzz-base/memory', headers: AUTH as Record<string, string> },
];
const CHAT_ENDPOINTS = BODY_ENDPOINTS.slice(0, 2);

/** Strings to put anywhere: unicode edge cases and the characters Postgres and JSON care about. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a\udfffb',
  '\u200b',
  '\u200b\u200c\u200d\ufeff',
  '\u202eevil\u202c',
  'مرحبا',
  '👨‍👩‍👧‍👦',
  '\r\n',
  '\\',
  '"',
  "'; drop table chat_messages; --",
  '%',
  '_',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'x'.repeat(129),
  'x'.repeat(4001),
] as const;

const nastyString = fc.constantFrom(...NASTY_STRINGS);
const anyJsonValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), nastyString, fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, [], {}, ['hi'], { text: 'hi' }));

const CHAT_FIELDS = ['message', 'session_id', 'user_id', 'agent_type', 'memory_strategy', 'memory_injection'] as const;
const validChatBody = { message: 'Where is my order ZX-14440?', user_id: 'fuzz@example.com', agent_type: 'support', memory_strategy: { mode: 'window' }, memory_injection: false };

const STRATEGY_KEYS = [
  'mode',
  'compact_keep',
  'compact_trigger_turns',
  'context_limit',
  'token_budget',
  'token_soft_budget',
  'context_window_tokens',
  'token_remaining_pct',
  'token_soft_remaining_pct',
  'compact_clear_tool_inputs',
  'compact_exclude_tools',
  'compact_include_tools',
  'max_turns',
  'keep_last_n_turns',
  'summary_token_budget',
] as const;
const strategyValue = fc.oneof(
  fc.constantFrom('none', 'window', 'trim', 'summarize', 'compact', 'bogus', 'WINDOW', ''),
  fc.integer({ min: -10, max: 200 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constantFrom(['lookup_order'], ['bad name!'], Array.from({ length: 51 }, (_, i) => `t${i}`), ['x'.repeat(65)], 'lookup_order'),
  anyJsonValue,
);
const memoryStrategyArb = fc.oneof(
  fc.dictionary(fc.constantFrom(...STRATEGY_KEYS), strategyValue, { maxKeys: 6 }),
  fc.dictionary(fc.oneof(fc.constantFrom(...STRATEGY_KEYS), fc.string({ maxLength: 10 })), strategyValue, { maxKeys: 4 }),
  anyJsonValue,
);

/** Percent-encoded path segments: UTF-8 of any string, or any bytes (invalid UTF-8 included). */
const pathSegment = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((s) => encodeURIComponent(wellFormed(s))),
  fc.uint8Array({ minLength: 1, maxLength: 20 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')),
  fc.constantFrom('%', '%%', '%G1', '%00', '%FF', '%C0%AF', '%ED%A0%80', 'a%2Fb', '%2e%2e', '..', '.', 'x'.repeat(129), 'fuzz-base', 'no-such-session'),
);

// ── the tests ─────────────────────────────────────────────────────────────────

describe(`HTTP API fuzz (seed ${SEED})`, () => {
  it('a fixed table of malformed bodies on every body endpoint: 4xx with the JSON error, documented codes where documented', async () => {
    await runCategory('malformed bodies (table)', async () => {
      const category = 'malformed bodies (table)';
      const invalidJson = ['{', '}', '{"message":', '{"message": "hi",}', "{'message': 'hi'}", '{"message": NaN}', '{"message": Infinity}', '{"message":"hi"} trailing', '{"message":"hi"}{"message":"hi"}', '[1,]', '\u0000', '{"message": "\\x41"}', '{"message": "\\ud83d"', '{"message": "a\nb"}'];
      const notAnObject = ['null', 'true', '0', '"hi"', '[]', '[{"message":"hi"}]', '1e999'];
      for (const endpoint of BODY_ENDPOINTS) {
        const base = { method: endpoint.method, path: endpoint.path, headers: { ...JSON_TYPE, ...endpoint.headers } };
        for (const body of invalidJson) await check(category, { ...base, body }, { status: 400, code: 'invalid_json' });
        for (const body of notAnObject) await check(category, { ...base, body }, { status: 400 });
        // Empty bodies: express.json leaves the body undefined; it is not an object either.
        await check(category, { ...base, body: '' }, { status: 400 });
        await check(category, { ...base, body: ' \n ' }, { status: 400 });
        // Deep JSON: 10k levels of arrays and objects, and ~50k (just under the body limit).
        await check(category, { ...base, body: `${'['.repeat(10_000)}${']'.repeat(10_000)}` }, { status: 400 });
        await check(category, { ...base, body: `${'['.repeat(49_000)}${']'.repeat(49_000)}` }, { status: 400 });
        await check(category, { ...base, body: `{"message":"hi","memory_strategy":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}` }, { status: 400 });
        await check(category, { ...base, body: `{"message":"hi","mode":"none","x":${'['.repeat(20_000)}${']'.repeat(20_000)}}` }, { status: 400 });
        // Too large: just over 100 kb, 1 MB, 10 MB (the server may close the upload early; it must answer 413 or close, and stay up).
        for (const size of [100 * 1024 + 1, 1024 * 1024]) {
          await check(category, { ...base, body: JSON.stringify({ message: 'x'.repeat(size) }) }, { status: 413, code: 'payload_too_large' });
        }
        const huge = await send({ ...base, body: JSON.stringify({ message: 'x'.repeat(10 * 1024 * 1024) }) });
        record(category, { ...base, body: '<10 MB JSON>' }, huge, huge.status === 0 ? null : problemWith(base, huge, { status: 413 }));
        // Prototype keys: refused as unknown fields, never merged into anything.
        for (const body of [
          '{"message":"hi","__proto__":{"polluted":true}}',
          '{"message":"hi","constructor":{"prototype":{"polluted":true}}}',
          '{"mode":"none","__proto__":{"mode":"bogus"}}',
          '{"message":"hi","memory_strategy":{"mode":"none","__proto__":{"x":1}}}',
        ]) {
          await check(category, { ...base, body }, { status: 400 });
        }
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      }
      // Chat fields, one at a time: wrong types, out of range, unknown fields.
      const chatCases: Array<[string, unknown]> = [
        ['message missing', { session_id: 'fuzz-x' }],
        ...[null, 1, true, [], {}, ['hi'], { text: 'hi' }, '', '   ', '\n\t', 'x'.repeat(4001), `  ${'x'.repeat(4001)}  `, 'x'.repeat(99_000)].map((m): [string, unknown] => ['message', { message: m }]),
        ...[null, 1, true, [], {}, '', ' ', 'a b', 'é', '😀', '../x', 'x'.repeat(129), '\u0000', 'a\nb', '%00', '\ud800'].map((id): [string, unknown] => ['session_id', { message: 'hi', session_id: id }]),
        ...[null, 1, true, [], {}, '', 'x'.repeat(129), '\u0000', '\n', 'a\u0007b'].map((u): [string, unknown] => ['user_id', { message: 'hi', user_id: u }]),
        ...[null, 1, true, [], {}, '', 'bogus', 'SUPPORT', 'support ', '__proto__', 'constructor', 'toString', 'hasOwnProperty'].map((a): [string, unknown] => ['agent_type', { message: 'hi', agent_type: a }]),
        ...[null, 'true', 1, 0, [], {}].map((v): [string, unknown] => ['memory_injection', { message: 'hi', memory_injection: v }]),
        ...[{ foo: 1 }, { Message: 'x' }, { session_Id: 'x' }, { messages: ['hi'] }, { stream: true }, { model: 'gpt-4o' }].map((extra): [string, unknown] => ['unknown field', { message: 'hi', ...extra }]),
      ];
      /** Refused inside memory_strategy (a strict object), valid as a PATCH …/memory body. */
      const WINDOW_WITH_INJECTION = { mode: 'window', memory_injection: true };
      const strategies: unknown[] = [
        null, 'window', 1, [], {}, { mode: 'bogus' }, { mode: null }, { mode: '' }, { mode: 'WINDOW' }, { mode: '__proto__' }, { mode: 'toString' },
        { mode: 'window', extra: 1 }, { mode: 'compact', compact_keep: -1 }, { mode: 'compact', compact_keep: 1.5 }, { mode: 'compact', compact_keep: '2' },
        { mode: 'compact', compact_keep: 1e308 }, { mode: 'compact', compact_keep: 1001 }, { mode: 'trim', keep_last_n_turns: 5, max_turns: 2 },
        { mode: 'summarize', token_budget: 99 }, { mode: 'summarize', token_budget: 10_000_001 }, { mode: 'window', token_remaining_pct: 0 },
        { mode: 'window', token_remaining_pct: 1 }, { mode: 'window', token_remaining_pct: -0.5 }, { mode: 'window', token_soft_remaining_pct: 0.1, token_remaining_pct: 0.5 },
        { mode: 'window', token_soft_budget: 500, token_budget: 400 }, { mode: 'compact', compact_include_tools: ['bad name!'] },
        { mode: 'compact', compact_include_tools: 'lookup_order' }, { mode: 'compact', compact_exclude_tools: Array.from({ length: 51 }, (_, i) => `t${i}`) },
        { mode: 'compact', compact_exclude_tools: ['x'.repeat(65)] }, { mode: 'compact', compact_exclude_tools: [null] }, { mode: 'compact', compact_clear_tool_inputs: 'yes' },
        { mode: 'summarize', summary_token_budget: 49 }, { mode: 'summarize', context_limit: 0 }, { mode: 'summarize', keep_last_n_turns: 3, context_limit: 2 },
        { mode: 'window', context_window_tokens: 999 }, WINDOW_WITH_INJECTION,
      ];
      for (const strategy of strategies) chatCases.push(['memory_strategy', { message: 'hi', memory_strategy: strategy }]);
      for (const endpoint of CHAT_ENDPOINTS) {
        for (const [, body] of chatCases) {
          await check(category, { method: endpoint.method, path: endpoint.path, headers: JSON_TYPE, body: JSON.stringify(body) }, { status: 400, code: 'invalid_request' });
        }
      }
      // The same strategies (and non-strategies) on PATCH …/memory.
      for (const strategy of [...strategies, { memory_injection: true }, { mode: 'window', memory_injection: 'yes' }, { mode: 'window', message: 'hi' }]) {
        if (strategy === WINDOW_WITH_INJECTION) continue;
        // (A top-level null, number or string is refused by express.json's strict parser, as invalid_json.)
        const topLevelObject = strategy !== null && typeof strategy === 'object';
        await check(category, { method: 'PATCH', path: '/api/v1/conversations/fuzz-base/memory', headers: { ...JSON_TYPE, ...AUTH }, body: JSON.stringify(strategy) }, { status: 400, ...(topLevelObject && { code: 'invalid_request' }) });
      }
    });
  });

  it('texts Postgres and JSON care about (NUL, lone surrogates, RTL, zero-width) in every text field: answered 200 or 4xx, never 500', async () => {
    await runCategory('unicode in text fields', async () => {
      const category = 'unicode in text fields';
      const texts = ['a\u0000b', '\u0000', 'a\ud800b', '\udfff', '\ud83d\ude00\ud83d', 'a\u202eb', '\u200bhi\u200b', 'שלום مرحبا', '\ufeffhi', '\u2028\u2029', 'hi\u0085', '<|endoftext|>'];
      for (const text of texts) {
        const fields: Array<[string, Record<string, unknown>]> = [
          ['message', { message: text, session_id: `fuzz-u-${texts.indexOf(text)}` }],
          ['user_id', { message: 'hi', user_id: text }],
          ['session_id', { message: 'hi', session_id: text }],
        ];
        const kind = JSON.stringify(text);
        for (const [field, body] of fields) {
          for (const endpoint of CHAT_ENDPOINTS) {
            await check(category, { method: endpoint.method, path: endpoint.path, label: `${field} ${kind}`, headers: JSON_TYPE, body: JSON.stringify(body) }, { mayBeValid: true });
          }
        }
        // q as UTF-8, and as raw bytes (UTF-16LE: NUL bytes and invalid UTF-8).
        await check(category, { method: 'GET', path: `/api/v1/chat/sessions?q=${encodeURIComponent(wellFormed(text))}`, label: `q ${kind}`, headers: AUTH }, { mayBeValid: true });
        await check(category, { method: 'GET', path: `/api/v1/chat/sessions?q=${Buffer.from(text, 'utf16le').toString('hex').replace(/(..)/g, '%$1')}`, label: 'q as UTF-16 bytes', headers: AUTH }, { mayBeValid: true });
      }
    });
  });

  it('fast-check bodies on every body endpoint: fc.json(), fc.jsonValue(), fc.anything(), binary strings, and one field of a valid body replaced by anything', async () => {
    await runCategory('generated bodies (fast-check)', async () => {
      const category = 'generated bodies (fast-check)';
      const bodies = fc.oneof(
        fc.json({ maxDepth: 4 }),
        fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
        fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }).map((v) => {
          try {
            return JSON.stringify(v) ?? 'undefined';
          } catch {
            return String(v);
          }
        }),
        fc.string({ unit: 'binary', maxLength: 200 }),
        // A valid chat body with one field replaced by anything, or an unknown field added.
        fc.record({ field: fc.constantFrom(...CHAT_FIELDS, 'extra'), value: anyJsonValue }).map(({ field, value }) => JSON.stringify({ ...validChatBody, [field]: value })),
        memoryStrategyArb.map((s) => JSON.stringify({ message: 'hi', memory_strategy: s })),
        memoryStrategyArb.map((s) => JSON.stringify(s)),
      );
      const samples = fc.sample(fc.tuple(fc.constantFrom(...BODY_ENDPOINTS), bodies), { numRuns: runs(700), seed: SEED });
      for (const [endpoint, body] of samples) {
        await check(category, { method: endpoint.method, path: endpoint.path, headers: { ...JSON_TYPE, ...endpoint.headers }, body }, { mayBeValid: true });
      }
    });
  });

  it('wrong content types and encodings on every body endpoint: 415 (or 400), never 500', async () => {
    await runCategory('content types and encodings', async () => {
      const category = 'content types and encodings';
      const body = JSON.stringify({ message: 'hi', mode: 'none' });
      const types = [
        undefined,
        'text/plain',
        'text/plain; charset=utf-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/octet-stream',
        'application/merge-patch+json',
        'application/vnd.api+json',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/json; charset=bogus',
        'application/json; charset=',
        'application/json;;;',
        'application/',
        '*/*',
        'application/*',
        'json',
        ';',
        'a'.repeat(1000),
      ];
      for (const endpoint of BODY_ENDPOINTS) {
        for (const type of types) {
          await check(category, { method: endpoint.method, path: endpoint.path, headers: { ...(type !== undefined && { 'content-type': type }), ...endpoint.headers }, body: type === undefined ? Buffer.from(body) : body });
        }
        const json = { ...JSON_TYPE, ...endpoint.headers };
        for (const encoding of ['gzip', 'deflate', 'br', 'x-foo', 'gzip, gzip', 'identity, x-foo']) {
          await check(category, { method: endpoint.method, path: endpoint.path, headers: { ...json, 'content-encoding': encoding }, body: 'not compressed' });
        }
        // A gzip bomb: 50 MB of zeros in 50 kB; the limit counts the inflated bytes.
        await check(category, { method: endpoint.method, path: endpoint.path, headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20)) }, { status: 413 });
        // Well-formed gzip of a valid body is a valid request.
        const valid = endpoint.method === 'PATCH' ? '{"mode":"none"}' : '{"message":"hi"}';
        await check(category, { method: endpoint.method, path: endpoint.path, headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(Buffer.from(valid)) }, { mayBeValid: true });
      }
    });
  });

  it('weird session ids in every path with one, and bad query strings: 4xx (or 404), never 500', async () => {
    await runCategory('paths and query strings', async () => {
      const category = 'paths and query strings';
      const segments = fc.sample(pathSegment, { numRuns: runs(120), seed: SEED });
      for (const segment of segments) {
        const requests: Sent[] = [
          { method: 'GET', path: `/api/v1/chat/history/${segment}`, headers: AUTH },
          { method: 'GET', path: `/api/v1/chat/conversation/${segment}`, headers: { 'x-session-token': baseSession.token } },
          { method: 'GET', path: `/api/v1/conversations/${segment}/memory`, headers: AUTH },
          { method: 'PATCH', path: `/api/v1/conversations/${segment}/memory`, headers: { ...AUTH, ...JSON_TYPE }, body: '{"mode":"none"}' },
          { method: 'DELETE', path: `/api/v1/conversations/${segment}/memory`, headers: AUTH },
        ];
        for (const request of requests) await check(category, request, { mayBeValid: openedSessions.has(segment) });
      }
      // [query, may it be valid?] Lenient number parsing (" 5", "0x10") and unknown parameters are accepted.
      const queries: Array<[string, boolean]> = [
        ...['0', '-1', '501', '1.5', 'abc', '1e3', '', '%00', 'Infinity', 'NaN', '9'.repeat(400)].map((v): [string, boolean] => [`/api/v1/chat/history/fuzz-base?limit=${v}`, false]),
        ...['0x10', '%205', 'limit[]=1'].map((v): [string, boolean] => [`/api/v1/chat/history/fuzz-base?limit=${v}`, true]),
        ['/api/v1/chat/history/fuzz-base?limit=1&limit=2', false],
        ...['0', '101', 'abc', '%00', '1&limit=2'].map((v): [string, boolean] => [`/api/v1/chat/sessions?limit=${v}`, false]),
        ...['%00', 'a%00b', 'x'.repeat(201), 'a&q=b'].map((v): [string, boolean] => [`/api/v1/chat/sessions?q=${v}`, false]),
        // Invalid UTF-8 and an encoded lone surrogate decode to U+FFFD: a search like any other.
        ...['%FF', '%ED%A0%80', '%25', '_', "'", '%5C'].map((v): [string, boolean] => [`/api/v1/chat/sessions?q=${v}`, true]),
        ...['yes', 'TRUE', '1', '%00', 'true&escalated=false'].map((v): [string, boolean] => [`/api/v1/chat/sessions?escalated=${v}`, false]),
        ...['junk', '%00%FF', 'x'.repeat(5000)].map((v): [string, boolean] => [`/api/v1/chat/sessions?cursor=${v}`, false]),
        // Cursors that decode to something date-like that Postgres does not take.
        ...[['1', 'x'], ['2026', 'x'], ['+275760-09-13T00:00:00.000Z', 'x'], ['2026-02-30', 'x'], ['Tue, 31 Feb 2026', 'x'], ['2026-11-22T00:00:00Z', 5], [null, null], 'not an array']
          .map((c): [string, boolean] => [`/api/v1/chat/sessions?cursor=${Buffer.from(JSON.stringify(c)).toString('base64url')}`, false]),
      ];
      for (const [query, mayBeValid] of queries) await check(category, { method: 'GET', path: query, headers: AUTH }, { mayBeValid });
      // Generated query strings on both listing endpoints.
      const generated = fc.sample(
        fc.dictionary(fc.oneof(fc.constantFrom('limit', 'q', 'cursor', 'escalated'), fc.string({ maxLength: 6 })), fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.integer().map(String)), { maxKeys: 4 }),
        { numRuns: runs(150), seed: SEED },
      );
      for (const params of generated) {
        const query = Object.entries(params)
          .map(([k, v]) => `${encodeURIComponent(wellFormed(k))}=${encodeURIComponent(wellFormed(v))}`)
          .join('&');
        await check(category, { method: 'GET', path: `/api/v1/chat/sessions?${query}`, headers: AUTH }, { mayBeValid: true });
        await check(category, { method: 'GET', path: `/api/v1/chat/history/fuzz-base?${query}`, headers: AUTH }, { mayBeValid: true });
      }
    });
  });

  it('generated cursors and query strings on the agent endpoints, generated bodies on every body endpoint, public and with the agent key: never 5xx, and a 4xx writes nothing', async () => {
    await runCategory('generated input, nothing written on 4xx', async () => {
      const category = 'generated input, nothing written on 4xx';
      // Everything a request could write: messages, sessions (with their memory settings and summaries), keys, ratings.
      const written = async () =>
        JSON.stringify(
          await service.db.query(`select
            (select count(*)::int from chat_messages) as messages,
            (select count(*)::int from idempotency_keys) as keys,
            (select count(*)::int from answer_feedback) as ratings,
            (select coalesce(string_agg(session_id || '|' || coalesce(memory_strategy::text, '') || '|' || coalesce(summary, '') || '|' || message_count, ',' order by session_id), '') from chat_sessions) as sessions`),
        );
      // Cursors that decode to date-like text with every field possibly out of range, and any session id.
      const cursorParts = fc.tuple(
        fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }), fc.oneof(fc.constant('session-1'), fc.string({ maxLength: 10 })),
      );
      const pad = (n: number, width = 2) => String(n).padStart(width, '0');
      for (const [y, mo, d, h, mi, sec, off, id] of fc.sample(cursorParts, { numRuns: runs(150), seed: SEED })) {
        const cursor = Buffer.from(JSON.stringify([`${pad(y, 4)}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(sec)}+${pad(off)}`, id])).toString('base64url');
        await check(category, { method: 'GET', path: `/api/v1/chat/sessions?cursor=${cursor}`, headers: AUTH }, { mayBeValid: true });
      }
      const bodies = fc.oneof(
        fc.json({ maxDepth: 3 }),
        fc.record({ field: fc.constantFrom(...CHAT_FIELDS, 'extra'), value: anyJsonValue }).map(({ field, value }) => JSON.stringify({ ...validChatBody, [field]: value })),
        memoryStrategyArb.map((s) => JSON.stringify({ message: 'hi', session_id: 'fuzz-base', memory_strategy: s })),
        memoryStrategyArb.map((s) => JSON.stringify(s)),
      );
      const callers = fc.constantFrom<Record<string, string>>({}, AUTH, { 'x-session-token': baseSession.token }, { authorization: 'Bearer wrong-key' });
      for (const [endpoint, body, caller] of fc.sample(fc.tuple(fc.constantFrom(...BODY_ENDPOINTS), bodies, callers), { numRuns: runs(250), seed: SEED })) {
        const before = await written();
        const request = { method: endpoint.method, path: endpoint.path, headers: { ...JSON_TYPE, ...endpoint.headers, ...caller }, body };
        const received = await check(category, request, { mayBeValid: true });
        if (received.status >= 400 && received.status < 500 && (await written()) !== before) {
          record(category, { ...request, label: 'wrote on 4xx' }, received, `${received.status} but something was written`);
        }
      }
    });
  });

  it('missing, wrong and hostile credentials, and wrong methods: 401/404/405, JSON, never 500', async () => {
    await runCategory('credentials and methods', async () => {
      const category = 'credentials and methods';
      const authValues = ['', 'Bearer', 'Bearer ', `Bearer  ${TEST_AGENT_KEY}x`, `Basic ${Buffer.from(`a:${TEST_AGENT_KEY}`).toString('base64')}`, `Bearer ${TEST_AGENT_KEY} extra`, `Bearer ${'x'.repeat(10_000)}`, 'Bearer \u00e9\u00ff'];
      const protectedRequests: Sent[] = [
        { method: 'GET', path: '/api/v1/chat/history/fuzz-base' },
        { method: 'GET', path: '/api/v1/chat/sessions' },
        { method: 'GET', path: '/api/v1/conversations/fuzz-base/memory' },
        { method: 'PATCH', path: '/api/v1/conversations/fuzz-base/memory', headers: JSON_TYPE, body: '{"mode":"none"}' },
        { method: 'DELETE', path: '/api/v1/conversations/fuzz-base/memory' },
      ];
      for (const request of protectedRequests) {
        for (const auth of authValues) {
          await check(category, { ...request, headers: { ...request.headers, ...(auth !== '' && { authorization: auth }) } }, { status: 401 });
        }
      }
      for (const token of ['', 'x', baseSession.token.slice(0, -1), `${baseSession.token}x`, 'x'.repeat(10_000), '\u00e9']) {
        await check(category, { method: 'GET', path: '/api/v1/chat/conversation/fuzz-base', headers: token === '' ? {} : { 'x-session-token': token } }, { status: 401 });
      }
      for (const method of ['PUT', 'DELETE', 'PATCH', 'GET']) {
        for (const p of ['/api/v1/chat', '/api/v1/chat/stream']) {
          await check(category, { method, path: p, headers: JSON_TYPE, ...(method !== 'GET' && { body: '{"message":"hi"}' }) }, { status: 404 });
        }
      }
      for (const p of ['/api/v1/chat/history', '/api/v1/chat/history/', '/api/v1/nope', '/api/v2/chat', '/api/v1/chat/sessions/x', '/%FF', '/api/v1/%00']) {
        await check(category, { method: 'GET', path: p, headers: AUTH }, { status: 404 });
      }
    });
  });

  /** The body as JSON, or undefined when it is not JSON. */
  const parseJson = (text: string): any => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };

  it("what Node's HTTP parser refuses (headers over 16 KB: 431; malformed requests: 400) is answered with the JSON error too, and the server stays up", async () => {
    const category = "Node's parser (raw sockets)";
    const started = Date.now();
    const cases: Array<{ label: string; request: Buffer; expect: number[] }> = [
      { label: 'one 20 KB header', request: httpRequest('GET', '/health', { 'x-big': 'a'.repeat(20_000) }), expect: [431] },
      { label: '400 headers of 100 bytes', request: httpRequest('GET', '/health', Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, 'b'.repeat(100)]))), expect: [431] },
      { label: 'a 20 KB URL', request: httpRequest('GET', `/api/v1/chat/history/${'x'.repeat(20_000)}`, AUTH), expect: [431, 414] },
      { label: 'a 20 KB Authorization header', request: httpRequest('GET', '/api/v1/chat/sessions', { authorization: `Bearer ${'k'.repeat(20_000)}` }), expect: [431] },
      { label: 'a 20 KB header on a chat POST', request: httpRequest('POST', '/api/v1/chat', { ...JSON_TYPE, 'x-session-token': 't'.repeat(20_000) }, '{"message":"hi"}'), expect: [431] },
      { label: 'an unknown method', request: Buffer.from('FOO /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), expect: [400] },
      { label: 'a malformed request line', request: Buffer.from('GET\r\n\r\n'), expect: [400] },
      { label: 'HTTP/9.9', request: Buffer.from('GET /health HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n'), expect: [400, 505] },
      { label: 'a header with a NUL byte', request: Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\nConnection: close\r\n\r\n'), expect: [400] },
      { label: 'a header without a colon', request: Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nnocolon\r\nConnection: close\r\n\r\n'), expect: [400] },
      { label: 'Content-Length and Transfer-Encoding together', request: Buffer.from('POST /api/v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n'), expect: [400] },
      { label: 'two Content-Length headers that differ', request: Buffer.from('POST /api/v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 16\r\nConnection: close\r\n\r\n{"message":"hi"}'), expect: [400] },
      { label: 'a negative Content-Length', request: Buffer.from('POST /api/v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\nConnection: close\r\n\r\n'), expect: [400] },
      // These reach the app: answered by it.
      { label: 'UTF-8 bytes in the Authorization header (reaches the app)', request: httpRequest('GET', '/api/v1/chat/sessions', { authorization: 'Bearer ключ🔑' }), expect: [401] },
      { label: 'UTF-8 bytes in X-Session-Token (reaches the app)', request: httpRequest('GET', '/api/v1/chat/conversation/fuzz-base', { 'x-session-token': 'токен\u202e' }), expect: [401] },
      { label: 'a chunked chat body (reaches the app)', request: Buffer.from('POST /api/v1/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\n{"m\r\n0\r\n\r\n'), expect: [400] },
      { label: 'HTTP/1.0 without Host (reaches the app)', request: Buffer.from('GET /api/v1/chat/sessions HTTP/1.0\r\n\r\n'), expect: [401] },
    ];
    const results: Array<{ label: string; status: number; json: boolean }> = [];
    for (const c of cases) {
      const response = await rawRequest(port, c.request, { timeoutMs: 10_000 });
      const isJson = (response.headers['content-type'] ?? '').includes('application/json');
      results.push({ label: c.label, status: response.status, json: isJson });
      const ok = c.expect.includes(response.status) && isJson && typeof parseJson(response.body)?.error?.code === 'string';
      const received: Received = { status: response.status, contentType: response.headers['content-type'] ?? '', text: response.body };
      record(category, { method: 'RAW', path: c.label }, received, ok ? null : `${response.status || 'no answer'} (expected ${c.expect.join(' or ')} as JSON)`);
    }
    notes['parser responses'] = results;
    categories[category]!.ms = Date.now() - started;
    await expectStillServing();
    expect(failuresIn(category)).toEqual([]);
  });

  it('slow and stalled clients on every endpoint do not hold up anyone else, and get their answers', async () => {
    const category = 'slow clients';
    const started = Date.now();
    const slow = { bytesPerWrite: 1, delayMs: 100, timeoutMs: 30_000 };
    /** Bytes per write for one write every 100 ms to take about three seconds. */
    const over3s = (request: Buffer) => ({ ...slow, bytesPerWrite: Math.max(1, Math.ceil(request.length / 30)) });
    const slowRequests: Array<{ label: string; request: Buffer; expect: number }> = [
      { label: 'GET /health, headers a few bytes at a time', request: httpRequest('GET', '/health'), expect: 200 },
      { label: 'GET history, headers a few bytes at a time', request: httpRequest('GET', '/api/v1/chat/history/fuzz-base', AUTH), expect: 200 },
      { label: 'POST chat, body a few bytes at a time', request: httpRequest('POST', '/api/v1/chat', JSON_TYPE, '{"message":"How long does a refund take?"}'), expect: 200 },
      { label: 'POST chat, invalid body a few bytes at a time', request: httpRequest('POST', '/api/v1/chat', JSON_TYPE, '{"message": "refund", oops}'), expect: 400 },
      { label: 'POST stream, body a few bytes at a time', request: httpRequest('POST', '/api/v1/chat/stream', JSON_TYPE, '{"message":"Can I pay with Klarna?"}'), expect: 200 },
      { label: 'PATCH memory, body a few bytes at a time', request: httpRequest('PATCH', '/api/v1/conversations/fuzz-base/memory', { ...JSON_TYPE, ...AUTH }, '{"mode":"window","token_budget":4000}'), expect: 200 },
      { label: 'GET conversation, headers a few bytes at a time', request: httpRequest('GET', '/api/v1/chat/conversation/fuzz-base', { 'x-session-token': baseSession.token }), expect: 200 },
      { label: 'GET /health, one byte every 100 ms', request: Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), expect: 200 },
    ];
    // Twenty connections that send part of a request and then nothing (slowloris), closed by the test at the end.
    const stalled: Array<() => void> = [];
    const stalledDone = Array.from({ length: 20 }, (_, i) =>
      rawRequest(port, httpRequest('POST', '/api/v1/chat', JSON_TYPE, JSON.stringify({ message: `stalled ${i}` })), {
        stopAfterBytes: i % 2 === 0 ? 30 : 90, // mid-headers, or mid-body
        timeoutMs: 60_000,
        onStart: (destroy) => stalled.push(destroy),
      }),
    );

    let slowFinished = 0;
    let firstSlowFinishedAt = Infinity;
    const slowDone = slowRequests.map((r) =>
      rawRequest(port, r.request, r.label.includes('one byte') ? slow : over3s(r.request)).then((response) => {
        firstSlowFinishedAt = Math.min(firstSlowFinishedAt, Date.now());
        slowFinished++;
        return { ...r, response, ms: Date.now() - started };
      }),
    );

    // Meanwhile, ordinary clients: every answer must come, and come while the slow ones are still sending.
    const ordinary: Array<{ status: number; at: number }> = [];
    while (ordinary.length < 20 && slowFinished === 0) {
      const [chat, health] = await Promise.all([
        service.postChat({ message: `Do you ship to Ireland? (${ordinary.length})` }),
        send({ method: 'GET', path: '/health' }),
      ]);
      ordinary.push({ status: chat.status, at: Date.now() }, { status: health.status, at: Date.now() });
    }
    const answeredMeanwhile = ordinary.filter((o) => o.status === 200 && o.at < firstSlowFinishedAt).length;

    const slowResults = await Promise.all(slowDone);
    stalled.forEach((destroy) => destroy());
    await Promise.all(stalledDone);

    for (const { label, response, expect: status } of slowResults) {
      const received: Received = { status: response.status, contentType: response.headers['content-type'] ?? '', text: response.body };
      const sent: Sent = { method: 'SLOW', path: label };
      let problem = response.status === status ? null : `${response.status || 'no answer'} (expected ${status})`;
      if (!problem && status >= 400) problem = problemWith(sent, received, { status });
      if (!problem && label.includes('stream')) problem = parseSse(response.body).at(-1)?.event === 'done' ? null : 'stream without done';
      record(category, sent, received, problem);
    }
    for (const o of ordinary) record(category, { method: 'GET', path: 'ordinary request during slow clients' }, { status: o.status, contentType: 'application/json', text: '' }, o.status === 200 ? null : `${o.status}`);
    notes['slow clients'] = {
      slowClients: slowRequests.length,
      stalledConnections: stalledDone.length,
      ordinaryRequestsAnsweredWhileSlowClientsWereSending: answeredMeanwhile,
      slowClientMs: Object.fromEntries(slowResults.map((r) => [r.label, r.ms])),
    };
    categories[category]!.ms = Date.now() - started;
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(10);
    await expectStillServing();
    expect(failuresIn(category)).toEqual([]);
  });

  it('a message that is one long run of symbols does not stall the server while its tokens are counted', async () => {
    // js-tiktoken's merge is quadratic in the length of a run without whitespace: a
    // 4,000-character message of "!" (or 2,000 emoji, or CJK text without spaces)
    // costs seconds of CPU per count, on the event loop. Meanwhile /health must answer
    // (within a second: a generous bound for a liveness probe, not a benchmark).
    const category = 'long runs (token counting)';
    const started = Date.now();
    categories[category] ??= { inputs: 0, failures: 0, ms: 0 };
    let answered = false;
    const hostile = service.postChat({ message: '!'.repeat(4000), session_id: 'fuzz-long-run' }).finally(() => {
      answered = true;
    });
    // /health/live every 100 ms while the message is being answered. The service runs in
    // this process, so a blocked event loop holds up the asking too: the longest round
    // (ask, answer, 100 ms pause) is what a probe from outside would have waited.
    const waits: number[] = [];
    while (!answered) {
      const asked = Date.now();
      let health = await send({ method: 'GET', path: '/health/live' });
      // A kept-alive connection the server closed while it was blocked: ask again on a new one.
      if (health.status === 0) health = await send({ method: 'GET', path: '/health/live' });
      await new Promise((r) => setTimeout(r, 100));
      waits.push(health.status === 200 || health.status === 404 ? Date.now() - asked - 100 : Infinity);
    }
    const chat = await hostile;
    const longestWait = Math.max(...waits);
    notes['long run of symbols'] = { chatStatus: chat.status, chatMs: Date.now() - started, healthChecks: waits.length, longestHealthWaitMs: longestWait };
    record(category, { method: 'POST', path: '/api/v1/chat', body: '{"message":"!"×4000}' }, { status: chat.status, contentType: 'application/json', text: JSON.stringify(chat.body) }, chat.status === 200 ? null : `${chat.status}`);
    record(category, { method: 'GET', path: '/health/live while it is answered' }, { status: 200, contentType: 'application/json', text: '' }, longestWait <= 1000 ? null : `answered after ${longestWait} ms (the event loop was blocked)`);
    categories[category]!.ms = Date.now() - started;
    expect(failuresIn(category)).toEqual([]);
  });
});
