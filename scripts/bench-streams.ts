/**
 * npm run bench:streams: what thousands of open conversations cost one instance.
 *
 * Starts one service process (`src/index.ts`, as `npm run dev` runs it) on a scratch
 * database on the PostgreSQL server at TEST_DATABASE_URL (or DATABASE_URL; start one
 * with `.ci/postgres-server start DIR`), with the stream caps raised to the number of
 * streams. Creates that many conversations (offline model), opens one customer event
 * stream on each (default 2,000), and reports:
 *
 * - the service process's memory per open stream: resident set (VmRSS from /proc) and
 *   V8 heap used (from /metrics), before and after opening them;
 * - the database connections the service holds (pg_stat_activity on the scratch
 *   database): the same with 0 and with every stream open, not one per stream;
 * - the delay from a person's reply (POST …/replies) to its arrival on the customer's
 *   stream while every stream is open (p50, p95, max);
 * - that the instance refuses streams beyond its cap (503) and keeps answering.
 *
 * Progress goes to stderr; the table to stdout and into BENCHMARKS.md's own section.
 *
 *   TEST_DATABASE_URL=postgres://… npm run bench:streams [-- --streams 2000 --replies 100]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { openPostgresDatabase } from '../src/store/postgres';
import { openEventStream, type EventStreamClient } from '../tests/support/event-stream';
import { startServiceProcess, stopServiceProcess, waitUntilServing, type ServiceProcess } from '../tests/support/processes';
import { TEST_AGENT_KEY } from '../tests/support/test-service';
import { writeMarkedSection } from './lib/benchmarks-file';

const REPO_ROOT = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO_ROOT, 'BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-streams:start -->', end: '<!-- bench-streams:end -->' };

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}
const STREAMS = Number(option('streams', '2000'));
const REPLIES = Number(option('replies', '100'));
/** Conversations a person replies in (each taken over once), spread over the open streams. */
const REPLY_SESSIONS = Math.min(20, STREAMS);
/** Beyond the cap: this many more streams are tried and must all be refused. */
const OVER_CAP = 50;
const POOL_MAX = 10;

function progress(message: string): void {
  process.stderr.write(`[bench:streams] ${message}\n`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const agent = { authorization: `Bearer ${TEST_AGENT_KEY}` };

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

/** Runs `task` over `items` with at most `concurrency` at once. */
async function inParallel<T>(items: T[], concurrency: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        await task(items[index]!, index);
      }
    }),
  );
}

/** The service process's resident set (bytes), from /proc. */
function residentBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error('no VmRSS in /proc status');
  return Number(kb[1]) * 1024;
}

/** V8 heap used by the service process (bytes), from its /metrics (prom-client's default metrics). */
async function heapUsedBytes(service: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${service.baseURL}/metrics`)).text();
  const line = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  if (!line) throw new Error('no nodejs_heap_size_used_bytes in /metrics');
  return Number(line[1]);
}

/**
 * Memory after a full garbage collection (SIGUSR2, see lib/gc-on-signal.cjs): the
 * median of a few samples a little apart.
 */
async function settledMemory(service: ServiceProcess): Promise<{ rss: number; heap: number }> {
  const rss: number[] = [];
  const heap: number[] = [];
  for (let i = 0; i < 5; i++) {
    service.child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 400));
    rss.push(residentBytes(service.child.pid!));
    heap.push(await heapUsedBytes(service));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { rss: median(rss), heap: median(heap) };
}

/** Connections to the scratch database, other than the benchmark's own watcher. */
async function databaseConnections(watcher: Client, database: string): Promise<number> {
  const { rows } = await watcher.query<{ n: number }>(
    'select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [database],
  );
  return rows[0]!.n;
}

async function main(): Promise<void> {
  process.env.TEST_DATABASE_URL ||= process.env.DATABASE_URL;
  if (!process.env.TEST_DATABASE_URL) {
    console.error('Set TEST_DATABASE_URL (or DATABASE_URL) to a PostgreSQL server (see .ci/postgres-server); the benchmark makes a scratch database on it.');
    process.exit(1);
  }
  // After the URL is settled: the helpers read it when they load.
  const { createTestDatabase, migrateTestDatabaseForService, testServerHasPgvector } = await import('../tests/support/postgres.js');
  const database = await createTestDatabase();
  const databaseName = new URL(database.url).pathname.slice(1);
  const migrator = openPostgresDatabase({ connectionString: database.url, poolMax: 1 });
  const watcher = new Client({ connectionString: database.url.replace(/\/[^/?]+(\?|$)/, '/postgres$1') });
  let service: ServiceProcess | undefined;
  const streams: EventStreamClient[] = [];
  try {
    progress('migrating a scratch database');
    await migrateTestDatabaseForService(migrator, testServerHasPgvector());
    await migrator.close();
    await watcher.connect();

    const serviceEnv = {
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: String(POOL_MAX),
      KNOWLEDGE_SEED_DIR: 'none',
      OFFLINE_EMBEDDER: 'hashing',
      OFFLINE_STREAM_DELAY_MS: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_STORE: 'memory',
      RATE_LIMIT_PER_CLIENT: '1000000',
      RATE_LIMIT_PER_SESSION: '1000000',
      EVENT_STREAMS_PER_CLIENT: String(STREAMS),
      EVENT_STREAMS_PER_INSTANCE: String(STREAMS),
      EVENTS_DELIVERY: 'listen',
      // A full collection on SIGUSR2, so the heap is measured without garbage.
      NODE_OPTIONS: `--expose-gc --require ${path.join(__dirname, 'lib/gc-on-signal.cjs')}`,
    };
    progress('starting a service process to create the conversations');
    service = await startServiceProcess(serviceEnv);
    await waitUntilServing(service);

    progress(`creating ${STREAMS} conversations`);
    const sessions: { id: string; token: string }[] = [];
    const started = Date.now();
    await inParallel(Array.from({ length: STREAMS }), 8, async (_, i) => {
      const answer = await post(`${service!.baseURL}/api/v1/chat`, { message: `Where is my parcel number ${i}?` });
      if (answer.status !== 200) throw new Error(`chat answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      sessions[i] = { id: answer.body.session_id, token: answer.body.session_token };
      if ((i + 1) % 500 === 0) progress(`  ${i + 1} conversations (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    });

    // A fresh process for the measurement: creating the conversations grew the first one's
    // heap and resident set, which a collection shrinks only partly.
    progress(`restarting: one service process (caps raised to ${STREAMS} streams)`);
    await stopServiceProcess(service);
    service = await startServiceProcess(serviceEnv);
    await waitUntilServing(service);
    // One request of each kind the benchmark makes, so lazily loaded code is in before the baseline.
    await fetch(`${service.baseURL}/api/v1/chat/conversation/${sessions[0]!.id}/events`, { headers: { 'x-session-token': sessions[0]!.token } }).then((r) => r.body?.cancel());
    const before = await settledMemory(service);
    const connectionsBefore = await databaseConnections(watcher, databaseName);
    progress(`before: rss ${(before.rss / 2 ** 20).toFixed(1)} MB, heap ${(before.heap / 2 ** 20).toFixed(1)} MB, ${connectionsBefore} database connections`);

    progress(`opening ${STREAMS} event streams`);
    const openStarted = Date.now();
    await inParallel(sessions, 50, async (session, i) => {
      const stream = await openEventStream(`${service!.baseURL}/api/v1/chat/conversation/${session.id}/events`, { 'x-session-token': session.token });
      if (stream.status !== 200) throw new Error(`stream ${i} answered ${stream.status}: ${JSON.stringify(stream.json)}`);
      streams[i] = stream;
      await stream.waitFor((e) => e.event === 'ready', 30_000);
      if ((i + 1) % 500 === 0) progress(`  ${i + 1} streams open`);
    });
    const openSeconds = (Date.now() - openStarted) / 1000;
    const connectionsOpen = await databaseConnections(watcher, databaseName);
    const after = await settledMemory(service);
    progress(`after: rss ${(after.rss / 2 ** 20).toFixed(1)} MB, heap ${(after.heap / 2 ** 20).toFixed(1)} MB, ${connectionsOpen} database connections`);

    progress(`trying ${OVER_CAP} streams beyond the instance's cap`);
    const refusals = new Map<number, number>();
    await inParallel(sessions.slice(0, OVER_CAP), 10, async (session) => {
      const response = await fetch(`${service!.baseURL}/api/v1/chat/conversation/${session.id}/events`, { headers: { 'x-session-token': session.token } });
      refusals.set(response.status, (refusals.get(response.status) ?? 0) + 1);
      await response.body?.cancel();
    });
    const healthy = (await fetch(`${service.baseURL}/health`)).status === 200;

    progress(`a person replies ${REPLIES} times in ${REPLY_SESSIONS} conversations while every stream is open`);
    const step = Math.floor(STREAMS / REPLY_SESSIONS);
    const picked = Array.from({ length: REPLY_SESSIONS }, (_, k) => k * step);
    for (const i of picked) {
      const takeover = await post(`${service.baseURL}/api/v1/conversations/${sessions[i]!.id}/takeover`, { agent_name: 'Maria' }, agent);
      if (takeover.status !== 200) throw new Error(`takeover answered ${takeover.status}: ${JSON.stringify(takeover.body)}`);
      await streams[i]!.waitFor((e) => e.event === 'handler', 10_000);
    }
    let connectionsPeak = connectionsOpen;
    const delays: number[] = [];
    for (let r = 0; r < REPLIES; r++) {
      await new Promise((res) => setTimeout(res, Math.random() * 300));
      const i = picked[r % picked.length]!;
      const sentAt = Date.now();
      const reply = await post(`${service.baseURL}/api/v1/conversations/${sessions[i]!.id}/replies`, { content: `reply ${r}` }, agent);
      if (reply.status !== 201) throw new Error(`reply answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      const event = await streams[i]!.waitFor((e) => e.data?.id === reply.body.id, 10_000);
      delays.push(event.at - sentAt);
      if (r % 10 === 0) connectionsPeak = Math.max(connectionsPeak, await databaseConnections(watcher, databaseName));
    }
    delays.sort((a, b) => a - b);
    const stillOpen = streams.filter((s) => s.events.length > 0).length;

    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    const kbPer = (delta: number) => (delta / STREAMS / 1024).toFixed(1);
    const rows = [
      `| open event streams | ${STREAMS} (opened in ${openSeconds.toFixed(1)} s) |`,
      `| resident set (RSS), 0 → ${STREAMS} streams | ${mb(before.rss)} → ${mb(after.rss)} MB |`,
      `| **RSS per stream** | **${kbPer(after.rss - before.rss)} KB** |`,
      `| V8 heap used, 0 → ${STREAMS} streams | ${mb(before.heap)} → ${mb(after.heap)} MB |`,
      `| **heap per stream** | **${kbPer(after.heap - before.heap)} KB** |`,
      `| **database connections** (pg_stat_activity), 0 streams / ${STREAMS} open / peak while replying | **${connectionsBefore} / ${connectionsOpen} / ${connectionsPeak}** (pool max ${POOL_MAX} + 1 LISTEN) |`,
      `| reply → customer's stream, ${delays.length} replies: p50 / **p95** / max | ${percentile(delays, 50)} / **${percentile(delays, 95)}** / ${delays.at(-1)} ms |`,
      `| ${OVER_CAP} more streams beyond the cap | ${[...refusals].map(([status, n]) => `${n} × ${status}`).join(', ')}; /health ${healthy ? '200' : 'failed'} |`,
    ];
    const table = ['| measure | value |', '| --- | --- |', ...rows].join('\n');
    console.log(table);
    if (stillOpen !== STREAMS) progress(`warning: only ${stillOpen} of ${STREAMS} streams got events`);

    const section = [
      MARKERS.start,
      '## `npm run bench:streams` (scripts/bench-streams.ts)',
      '',
      `One service process (\`src/index.ts\`, LISTEN/NOTIFY delivery, pool of ${POOL_MAX}) on a scratch database on the`,
      `PostgreSQL server (loopback), ${STREAMS} conversations each with one customer event stream open from the benchmark`,
      `process; EVENT_STREAMS_PER_CLIENT and EVENT_STREAMS_PER_INSTANCE raised to ${STREAMS}. ${new Date().toISOString().slice(0, 10)},`,
      `${process.platform} ${process.arch}, Node ${process.version}, ${os.cpus().length} cores shared with other work (load average ${os.loadavg()[0]!.toFixed(1)} at the end).`,
      '',
      table,
      '',
      'Memory is the service process alone (RSS from /proc, heap from its /metrics), each the median of five samples, each',
      'after a full garbage collection (the process runs with --expose-gc and collects on SIGUSR2, scripts/lib/gc-on-signal.cjs).',
      'The conversations are created by one process, and measured in a fresh one started on the same database. A stream holds a socket,',
      'a heartbeat timer and a subscription, and no database connection: every stream is woken through one LISTEN',
      'connection and reads the database only when its conversation has news. Replies go one at a time after a random',
      `pause (0–300 ms) into ${REPLY_SESSIONS} conversations spread over the streams; the delay includes the reply request itself.`,
      MARKERS.end,
    ].join('\n');
    writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
    progress(`recorded in ${path.relative(REPO_ROOT, BENCHMARKS_FILE)}`);
  } finally {
    for (const stream of streams) stream?.close();
    await stopServiceProcess(service);
    await watcher.end().catch(() => {});
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
