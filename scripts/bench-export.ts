/**
 * npm run bench:export [-- --sizes 500,5000 --messages 6 --chars 400]
 *
 * Whether a customer's export streams with bounded memory: the service (real
 * wiring, in this process) on a fresh database, a customer with N conversations
 * bound to them (each with `--messages` messages of `--chars` characters), a
 * cross-session summary on every 5th, a rating on every 10th and N/5 orders,
 * written through the migrations' functions (scripts/lib/bulk-customer.ts). Then
 * GET /api/v1/customers/:user_id/export over HTTP, the body read and dropped as it
 * arrives, while this process's memory is sampled every 10 ms: the peak growth of
 * the V8 heap and of the resident set over the level before the export (after a
 * full garbage collection), the heap still held after it, the time and the size.
 * A second, buffered export checks the document is whole (every conversation and
 * message). Memory that does not grow from 500 to 5,000 conversations is what
 * bounded means.
 *
 * On PGlite (in memory) and, when TEST_DATABASE_URL is set, on a scratch database
 * of that PostgreSQL server. Progress goes to stderr; the table to stdout and into
 * BENCHMARKS.md's own section.
 *
 *   [TEST_DATABASE_URL=postgres://…] npm run bench:export
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { loadConfig } from '../src/config';
import { createDependencies } from '../src/dependencies';
import { createLogger } from '../src/observability/logger';
import type { SqlDatabase } from '../src/store/database';
import { openPgliteDatabase } from '../src/store/pglite';
import { openPostgresDatabase } from '../src/store/postgres';
import { createTestDatabase, migrateTestDatabaseForService, testServerHasPgvector } from '../tests/support/postgres';
import { closeAppInstances, listenApp, TEST_AGENT_KEY, TEST_CUSTOMER_SECRET } from '../tests/support/test-service';
import { writeMarkedSection } from './lib/benchmarks-file';
import { seedBulkCustomer, type BulkCustomerCounts } from './lib/bulk-customer';

const REPO_ROOT = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO_ROOT, 'BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-export:start -->', end: '<!-- bench-export:end -->' };
const CUSTOMER = 'bench-export@example.com';
const MB = 1024 * 1024;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}
const SIZES = option('sizes', '500,5000').split(',').map(Number);
const MESSAGES = Number(option('messages', '6'));
const CHARS = Number(option('chars', '400'));

function progress(message: string): void {
  process.stderr.write(`[bench:export] ${message}\n`);
}

/** A full garbage collection (the flag is set at run time, so `tsx` needs no node option). */
const collectGarbage: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

function settledMemory(): { heap: number; rss: number } {
  collectGarbage();
  collectGarbage();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

interface Measured {
  bytes: number;
  ms: number;
  peakHeapGrowth: number;
  peakRssGrowth: number;
  heldAfter: number;
}

/**
 * Streams the export, dropping the body as it comes, while sampling memory every
 * 10 ms; with `collecting`, every 200 ms after a full garbage collection instead,
 * so the peak is what the export holds live (slower: not the run that is timed).
 */
function measureExport(baseURL: string, collecting = false): Promise<Measured> {
  const before = settledMemory();
  let peakHeap = before.heap;
  let peakRss = before.rss;
  const sample = () => {
    if (collecting) collectGarbage();
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const sampler = setInterval(sample, collecting ? 200 : 10);
  const startedAt = performance.now();
  let bytes = 0;
  let reported = startedAt;
  return new Promise<Measured>((resolve, reject) => {
    const request = http.get(`${baseURL}/api/v1/customers/${encodeURIComponent(CUSTOMER)}/export`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`export answered ${response.statusCode}`));
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (performance.now() - reported > 1000) {
          reported = performance.now();
          progress(`  … ${(bytes / MB).toFixed(1)} MB received`);
        }
      });
      response.on('end', () => {
        const ms = performance.now() - startedAt;
        clearInterval(sampler);
        sample();
        const after = settledMemory();
        resolve({ bytes, ms, peakHeapGrowth: peakHeap - before.heap, peakRssGrowth: peakRss - before.rss, heldAfter: after.heap - before.heap });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** The whole document once more, buffered, to check nothing is missing. */
async function checkWhole(baseURL: string, seeded: BulkCustomerCounts): Promise<void> {
  const response = await fetch(`${baseURL}/api/v1/customers/${encodeURIComponent(CUSTOMER)}/export`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
  const doc = (await response.json()) as { conversations: Array<{ messages: unknown[] }>; orders: unknown[]; memory: unknown[] };
  const messages = doc.conversations.reduce((n, c) => n + c.messages.length, 0);
  const found = { conversations: doc.conversations.length, messages, orders: doc.orders.length, memory: doc.memory.length };
  const expected = { conversations: seeded.conversations, messages: seeded.messages, orders: seeded.orders, memory: seeded.summaries };
  if (JSON.stringify(found) !== JSON.stringify(expected)) throw new Error(`the export is not whole: ${JSON.stringify(found)} instead of ${JSON.stringify(expected)}`);
}

/** One row: seed a fresh database with `size` conversations, serve it, export it. */
async function run(backend: 'pglite' | 'postgres', size: number): Promise<string> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-export-'));
  const common = {
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AGENT_API_KEY: TEST_AGENT_KEY,
    CUSTOMER_IDENTITY_SECRET: TEST_CUSTOMER_SECRET,
    KNOWLEDGE_SEED_DIR: 'none',
    OFFLINE_EMBEDDER: 'hashing',
  };
  let scratch: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
  let db: SqlDatabase;
  let deps;
  if (backend === 'pglite') {
    db = await openPgliteDatabase();
    deps = await createDependencies(loadConfig(common), createLogger('silent'), db);
  } else {
    scratch = await createTestDatabase();
    db = openPostgresDatabase({ connectionString: scratch.url, poolMax: 2 });
    await migrateTestDatabaseForService(db, testServerHasPgvector());
    deps = await createDependencies(loadConfig({ ...common, DATABASE_URL: scratch.url, DATABASE_POOL_MAX: '4' }), createLogger('silent'));
  }
  const instance = await listenApp(deps);
  try {
    progress(`${backend}, ${size} conversations: seeding`);
    const seedStart = performance.now();
    const seeded = await seedBulkCustomer(
      db,
      {
        customerId: CUSTOMER,
        prefix: 'bench-export-',
        conversations: size,
        messagesPerConversation: MESSAGES,
        messageChars: CHARS,
        summaryEvery: 5,
        feedbackEvery: 10,
        orders: Math.min(9999, Math.ceil(size / 5)),
      },
      (done) => progress(`  … ${done} / ${size} conversations`),
    );
    progress(`  seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; exporting`);
    // A first export warms the code paths and the database's caches; the second is measured.
    await measureExport(instance.baseURL);
    const m = await measureExport(instance.baseURL);
    progress(`  ${(m.bytes / MB).toFixed(1)} MB in ${(m.ms / 1000).toFixed(2)} s; peak heap +${(m.peakHeapGrowth / MB).toFixed(1)} MB; once more, collecting garbage as it goes`);
    const live = await measureExport(instance.baseURL, true);
    await checkWhole(instance.baseURL, seeded);
    const fmt = (bytes: number) => {
      const mb = Math.round((bytes / MB) * 10) / 10;
      return `${mb < 0 ? '−' : '+'}${Math.abs(mb).toFixed(1)} MB`;
    };
    return (
      `| ${backend === 'pglite' ? 'PGlite (in memory)' : 'PostgreSQL 15 (loopback)'} | ${size.toLocaleString('en')} | ${seeded.messages.toLocaleString('en')} | ` +
      `${seeded.summaries.toLocaleString('en')} / ${seeded.orders.toLocaleString('en')} | ${(m.bytes / MB).toFixed(1)} MB | ${(m.ms / 1000).toFixed(2)} s | ` +
      `${(m.bytes / MB / (m.ms / 1000)).toFixed(1)} MB/s | ${fmt(m.peakHeapGrowth)} | ${fmt(m.peakRssGrowth)} | ${fmt(live.peakHeapGrowth)} | ${fmt(live.heldAfter)} |`
    );
  } finally {
    await closeAppInstances([instance]);
    if (backend === 'postgres') await db.close();
    await scratch?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const backends: Array<'pglite' | 'postgres'> = ['pglite'];
  if (process.env.TEST_DATABASE_URL) backends.push('postgres');
  else progress('TEST_DATABASE_URL is not set: PGlite only');
  const rows: string[] = [];
  for (const backend of backends) for (const size of SIZES) rows.push(await run(backend, size));

  const table = [
    '| backend | conversations | messages | summaries / orders | export | time | rate | peak heap growth | peak RSS growth | peak live heap growth | heap held after |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
  console.log(table);
  const section = [
    MARKERS.start,
    '## `npm run bench:export` (scripts/bench-export.ts)',
    '',
    `A customer's export (GET /api/v1/customers/:user_id/export) streamed over HTTP from the service in the benchmark's own process,`,
    `the body dropped as it arrives, memory sampled every 10 ms against the level before the export (after a full GC). Each`,
    `conversation is bound to the customer and has ${MESSAGES} messages of ${CHARS} characters; a summary on every 5th, a rating on every`,
    `10th, one order per 5 conversations. The second of two exports is timed (memory sampled every 10 ms); a third samples every`,
    `200 ms after a full garbage collection ("live"); a fourth, buffered, checks the document is whole.`,
    `${new Date().toISOString().slice(0, 10)}, ${process.platform} ${process.arch}, ${os.cpus().length} cores shared with other work, Node ${process.version}.`,
    '',
    table,
    '',
    'Peak heap and RSS growth count garbage not yet collected (what the pages allocate between collections: V8 lets the heap',
    'grow for a while before a full collection, longer on a longer export); "peak live heap growth" is what the export holds',
    'at any moment, which is what must not follow the size of the export; "heap held after" is what stays once it is over.',
    'On PGlite the database runs in the same process, so its WebAssembly memory is in the resident set too.',
    MARKERS.end,
  ].join('\n');
  writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
  progress(`recorded in ${path.relative(REPO_ROOT, BENCHMARKS_FILE)}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
