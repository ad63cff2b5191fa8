/**
 * npm run bench:adversarial: what one message of each adversarial class costs a
 * whole turn on the embedded default (PGlite, offline model, the help center
 * seeded), and how long the event loop stalls meanwhile: the time other
 * requests (and /health/live) wait. Each class is sent as the longest message
 * allowed: MESSAGE_MAX_CHARS=4000 (the default), then 100000 (its largest).
 *
 * Per class and size: the slowest of TURNS turns (each in a new session) over
 * HTTP (POST /api/v1/chat; the JSON body limit follows MESSAGE_MAX_CHARS, so
 * every message goes through the body parser); the largest event-loop delay
 * seen meanwhile (perf_hooks.monitorEventLoopDelay, 10 ms resolution); and the
 * slowest /health/live answer while the turns ran (probed every 50 ms over
 * HTTP). The target: the worst class within 2x of an ordinary message.
 *
 * Writes its table into BENCHMARKS.md (section bench-adversarial).
 *
 * Then one hostile knowledge write at a time (scripts/lib/ingest-stall.ts: 260 KB of Thai or
 * Chinese, one 260,000-character word, a crawl of three such pages) and the longest stall of
 * `/health/live` meanwhile, on PGlite, or on the PostgreSQL server of `--database <url>` (a new
 * database, dropped afterwards); its own section per backend. `--ingest-only` skips the chat part,
 * `--cases thai,word` runs only those (ordinary, thai, chinese, word, crawl).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp, jsonBodyLimit } from '../src/app';
import { loadConfig } from '../src/config';
import { createDependencies } from '../src/dependencies';
import { createLogger } from '../src/observability/logger';
import { openPgliteDatabase } from '../src/store/pglite';
import { ADVERSARIAL_CLASSES, ADVERSARIAL_CLASS_NAMES, randomWhitespace } from '../tests/support/adversarial-text';
import { writeMarkedSection } from './lib/benchmarks-file';
import { measureIngestStalls, renderIngestStalls } from './lib/ingest-stall';

const TURNS = Number(process.env['BENCH_TURNS'] ?? 3);
const SIZES = [4000, 100_000];
const BENCHMARKS_FILE = path.resolve(__dirname, '../BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-adversarial:start -->', end: '<!-- bench-adversarial:end -->' };

const progress = (line: string) => process.stderr.write(`${line}\n`);

interface Row {
  size: number;
  kind: string;
  via: 'http' | 'direct';
  turnMs: number;
  loopDelayMs: number;
  healthMs: number;
  status: number;
}

async function startService(messageMaxChars: number) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-adversarial-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AGENT_API_KEY: 'bench-adversarial-agent-key-0123456789abcdef',
    KNOWLEDGE_SEED_DIR: path.resolve(__dirname, '../knowledge/help-center'),
    MESSAGE_MAX_CHARS: String(messageMaxChars),
    OFFLINE_STREAM_DELAY_MS: '0',
    RATE_LIMIT_PER_CLIENT: '1000000',
    RATE_LIMIT_PER_SESSION: '1000000',
  });
  const db = await openPgliteDatabase();
  const deps = await createDependencies(config, createLogger('silent'), db);
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps.appParts).listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseURL,
    deps,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await deps.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Probes /health/live every 50 ms until stopped; returns the slowest answer. */
function probeHealth(baseURL: string): { stop(): Promise<number> } {
  let slowest = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${baseURL}/health/live`).then((r) => r.arrayBuffer());
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return slowest;
    },
  };
}

async function measure(service: Awaited<ReturnType<typeof startService>>, size: number, kind: string, text: string): Promise<Row> {
  const via = Buffer.byteLength(JSON.stringify({ message: text })) <= jsonBodyLimit(size) ? 'http' : 'direct';
  const times: number[] = [];
  let status = 0;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const health = probeHealth(service.baseURL);
  delay.enable();
  for (let turn = 0; turn < TURNS; turn++) {
    // A new random text each turn: the token counter remembers pieces it has seen, so a repeat would be cheaper.
    if (kind === 'random_whitespace') text = randomWhitespace(size);
    const body = JSON.stringify({ message: text });
    const started = performance.now();
    if (via === 'http') {
      const response = await fetch(`${service.baseURL}/api/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await response.arrayBuffer();
      status = response.status;
    } else {
      await service.deps.appParts.chat.chatService.answer({ message: text.trim() });
      status = 200;
    }
    times.push(performance.now() - started);
  }
  // The monitor records a stall when its timer next fires: give it that chance before stopping it.
  await new Promise((resolve) => setTimeout(resolve, 25));
  delay.disable();
  const healthMs = await health.stop();
  // The slowest turn: the first of a class is the one that pays for pieces not seen before.
  return { size, kind, via, turnMs: Math.max(...times), loopDelayMs: delay.max / 1e6, healthMs, status };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  if (!process.argv.includes('--ingest-only')) await measureTurns();
  const databaseUrl = arg('--database');
  const backend = databaseUrl ? 'postgres' : 'pglite';
  progress(`One hostile knowledge write at a time, on ${backend}:`);
  const rows = await measureIngestStalls(databaseUrl, progress, arg('--cases')?.split(',') ?? []);
  const markers = { start: `<!-- bench-ingest-stall-${backend}:start -->`, end: `<!-- bench-ingest-stall-${backend}:end -->` };
  const section = renderIngestStalls(rows, databaseUrl ? 'PostgreSQL server' : 'PGlite', markers);
  console.log(section);
  writeMarkedSection(BENCHMARKS_FILE, markers, section);
  progress(`recorded in ${path.relative(process.cwd(), BENCHMARKS_FILE)}`);
}

async function measureTurns(): Promise<void> {
  const rows: Row[] = [];
  for (const size of SIZES) {
    progress(`MESSAGE_MAX_CHARS=${size}: starting the service…`);
    const service = await startService(size);
    try {
      // One ordinary turn first, so the encoder, the graph and PGlite are warm for every class.
      await measure(service, size, 'warm-up', ADVERSARIAL_CLASSES.ordinary(200));
      const texts: Array<[string, string]> = [
        ...ADVERSARIAL_CLASS_NAMES.map((k): [string, string] => [k, ADVERSARIAL_CLASSES[k](size)]),
        ['random_whitespace', randomWhitespace(size)],
      ];
      for (const [kind, text] of texts) {
        const row = await measure(service, size, kind, text);
        rows.push(row);
        progress(`  ${String(size).padStart(6)} ${kind.padEnd(24)} ${row.via.padEnd(6)} status ${row.status}  turn ${row.turnMs.toFixed(0)} ms  loop delay ${row.loopDelayMs.toFixed(0)} ms  /health/live ${row.healthMs.toFixed(0)} ms`);
      }
    } finally {
      await service.close();
    }
  }
  const section = render(rows);
  console.log(section);
  writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
  progress(`recorded in ${path.relative(process.cwd(), BENCHMARKS_FILE)}`);
}

function render(rows: Row[]): string {
  const lines = [
    MARKERS.start,
    '## `npm run bench:adversarial` (scripts/bench-adversarial.ts)',
    '',
    `One message of each adversarial class (tests/support/adversarial-text.ts), as long as allowed, on the embedded default`,
    `(PGlite, offline model, help center seeded): the slowest whole turn of ${TURNS} (each a new session; random_whitespace a new text each time), the largest`,
    'event-loop delay meanwhile (`monitorEventLoopDelay`) and the slowest `/health/live` answer (probed every 50 ms).',
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    'The JSON body limit follows `MESSAGE_MAX_CHARS`, so every message is sent over HTTP.',
    '',
  ];
  for (const size of SIZES) {
    const forSize = rows.filter((r) => r.size === size);
    const ordinary = forSize.find((r) => r.kind === 'ordinary')!;
    const worst = forSize.reduce((a, b) => (b.turnMs > a.turnMs ? b : a));
    lines.push(
      `### MESSAGE_MAX_CHARS=${size}: worst class ${worst.kind}, ${(worst.turnMs / ordinary.turnMs).toFixed(2)}× an ordinary message (target ≤ 2×)`,
      '',
      '| class | via | status | whole turn (ms) | × ordinary | event-loop delay max (ms) | /health/live max (ms) |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
      ...forSize.map(
        (r) =>
          `| ${r.kind} | ${r.via} | ${r.status} | ${r.turnMs.toFixed(0)} | ${(r.turnMs / ordinary.turnMs).toFixed(2)} | ${r.loopDelayMs.toFixed(0)} | ${r.healthMs.toFixed(0)} |`,
      ),
      '',
    );
  }
  lines.push(MARKERS.end);
  return lines.join('\n');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
