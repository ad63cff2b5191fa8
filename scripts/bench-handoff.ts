/**
 * npm run bench:handoff: how long a person's reply takes to reach a customer's
 * event stream on another instance, by delivery (LISTEN/NOTIFY or polling).
 *
 * Two instances of the service (two apps in this process, each with its own `pg`
 * pool and its own LISTEN connection or poller) on a scratch database on the
 * PostgreSQL server at TEST_DATABASE_URL (migrated like the tests do: without
 * pgvector the knowledge base is an empty stand-in, which a handoff does not
 * need). A customer's stream is open on instance B; a person replies through
 * instance A, one reply at a time; the time is from sending the reply to the
 * event arriving on B's stream. Same-instance delivery (reply and stream on A)
 * is measured too. Prints a table and records it in BENCHMARKS.md.
 *
 *   TEST_DATABASE_URL=postgres://… npm run bench:handoff [-- --replies 40]
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createDependencies, type Dependencies } from '../src/dependencies';
import { createLogger } from '../src/observability/logger';
import { openPostgresDatabase } from '../src/store/postgres';
import { openEventStream } from '../tests/support/event-stream';
import { createTestDatabase, migrateTestDatabaseForService, testServerHasPgvector } from '../tests/support/postgres';
import { writeMarkedSection } from './lib/benchmarks-file';

const REPO_ROOT = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO_ROOT, 'BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-handoff:start -->', end: '<!-- bench-handoff:end -->' };
const AGENT_KEY = 'bench-agent-key';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}
const REPLIES = Number(option('replies', '40'));

function progress(message: string): void {
  process.stderr.write(`[bench:handoff] ${message}\n`);
}

interface Instance {
  baseURL: string;
  server: Server;
  deps: Dependencies;
}

async function startInstance(url: string, env: Record<string, string>): Promise<Instance> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: url,
    DATABASE_POOL_MAX: '4',
    AGENT_API_KEY: AGENT_KEY,
    KNOWLEDGE_SEED_DIR: 'none',
    RATE_LIMIT_STORE: 'memory',
    RATE_LIMIT_PER_CLIENT: '1000000',
    RATE_LIMIT_PER_SESSION: '1000000',
    OFFLINE_STREAM_DELAY_MS: '0',
    ...env,
  });
  const deps = await createDependencies(config, createLogger('silent'));
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps.appParts).listen(0, '127.0.0.1', () => resolve(s));
  });
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, deps };
}

async function stopInstance(instance: Instance): Promise<void> {
  instance.deps.endStreams();
  instance.server.closeAllConnections();
  await new Promise((resolve) => instance.server.close(resolve));
  await instance.deps.close();
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Replies through `writer`, one at a time, and measures each one's arrival on a stream on `reader`. */
async function measure(writer: Instance, reader: Instance, label: string): Promise<number[]> {
  const agent = { authorization: `Bearer ${AGENT_KEY}` };
  const sessionId = `bench-handoff-${label.replace(/\W+/g, '-')}-${Date.now().toString(36)}`;
  const first = await post(`${writer.baseURL}/api/v1/chat`, { session_id: sessionId, message: 'I want to talk to a person.' });
  if (first.status !== 200) throw new Error(`chat answered ${first.status}: ${JSON.stringify(first.body)}`);
  const stream = await openEventStream(`${reader.baseURL}/api/v1/chat/conversation/${sessionId}/events`, { 'x-session-token': first.body.session_token });
  await stream.waitFor((e) => e.event === 'ready');
  await post(`${writer.baseURL}/api/v1/conversations/${sessionId}/takeover`, { agent_name: 'Maria' }, agent);
  await stream.waitFor((e) => e.event === 'handler', 5000);
  const times: number[] = [];
  try {
    for (let i = 0; i < REPLIES; i++) {
      // A random pause, so replies do not fall into step with a poller's interval.
      await new Promise((r) => setTimeout(r, Math.random() * 600));
      const sentAt = Date.now();
      const reply = await post(`${writer.baseURL}/api/v1/conversations/${sessionId}/replies`, { content: `reply ${i}` }, agent);
      const event = await stream.waitFor((e) => e.data?.id === reply.body.id, 5000);
      times.push(event.at - sentAt); // the event's arrival is stamped with Date.now() too
    }
  } finally {
    stream.close();
  }
  progress(`${label}: ${times.length} replies measured`);
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) {
    console.error('Set TEST_DATABASE_URL to a PostgreSQL server (see .ci/postgres-server); the benchmark makes a scratch database on it.');
    process.exit(1);
  }
  const database = await createTestDatabase();
  const db = openPostgresDatabase({ connectionString: database.url, poolMax: 1 });
  const rows: string[] = [];
  try {
    progress('migrating a scratch database');
    await migrateTestDatabaseForService(db, testServerHasPgvector());
    for (const [delivery, env] of [
      ['LISTEN/NOTIFY', { EVENTS_DELIVERY: 'listen' }],
      ['poll every 500 ms (default)', { EVENTS_DELIVERY: 'poll', EVENTS_POLL_MS: '500' }],
      ['poll every 100 ms', { EVENTS_DELIVERY: 'poll', EVENTS_POLL_MS: '100' }],
    ] as const) {
      progress(`starting two instances (${delivery})`);
      const [a, b] = [await startInstance(database.url, env), await startInstance(database.url, env)];
      try {
        for (const [where, reader] of [
          ['other instance', b],
          ['same instance', a],
        ] as const) {
          const times = await measure(a!, reader!, `${delivery}, ${where}`);
          const fmt = (ms: number) => ms.toFixed(1);
          rows.push(`| ${delivery} | ${where} | ${times.length} | ${fmt(percentile(times, 50))} | ${fmt(percentile(times, 95))} | ${fmt(times.at(-1)!)} |`);
        }
      } finally {
        await stopInstance(a!);
        await stopInstance(b!);
      }
    }
  } finally {
    await db.close();
    await database.drop();
  }

  const table = [
    '| delivery | stream on | replies | p50 ms | p95 ms | max ms |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
  console.log(table);
  const section = [
    MARKERS.start,
    '## `npm run bench:handoff` (scripts/bench-handoff.ts)',
    '',
    `A person's reply, from sending it to instance A (POST …/replies) until the customer's event stream has it, on instance B`,
    `(through the database) or on A itself. Two app instances in one process, each with its own pool and LISTEN connection or`,
    `poller, on one PostgreSQL server (TEST_DATABASE_URL, loopback); ${REPLIES} replies one after another per row; ${new Date().toISOString().slice(0, 10)}, ${process.platform} ${process.arch}, Node ${process.version}.`,
    '',
    table,
    '',
    'The time includes the reply request itself; replies are sent after a random pause (0–600 ms), so they do not fall into',
    'step with a poller. With polling, an instance learns of another\'s message at its next poll, so the delay to the other',
    'instance is spread over one interval; on the same instance the write wakes its streams at once. The machine has 2 cores',
    'shared with other work: single slow outliers are its noise.',
    MARKERS.end,
  ].join('\n');
  writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
  progress(`recorded in ${path.relative(REPO_ROOT, BENCHMARKS_FILE)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
