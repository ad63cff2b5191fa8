/**
 * npm run bench:load: the service under load on Postgres, against a bare Express endpoint.
 *
 * Starts the service as its own process (`tsx src/index.ts`, DATABASE_URL) with an
 * instant model (the loopback OpenAI-compatible stub of the tests), drives
 * POST /api/v1/chat with autocannon at rising concurrency, and in the same run
 * drives a bare Express endpoint (JSON in, JSON out, its own process) as the
 * ceiling of this machine. Prints, and records in BENCHMARKS.md: requests/s,
 * p50/p99 latency, the ratio to the bare endpoint, and the service's own time per
 * request by stage, read from the Server-Timing header of every answer.
 *
 * The database: DATABASE_URL when set (turns are written there), else a scratch
 * database on TEST_DATABASE_URL; either only if it has pgvector, which every answer
 * needs for retrieval. Otherwise PGlite served over the Postgres wire protocol, as
 * the tests do: one statement at a time, so it caps throughput well below a server.
 *
 * The knowledge base: the service seeds its help center on its first start. With
 * --knowledge-chunks N, before the service starts, the help center is ingested as the
 * service would and a synthetic knowledge base of N chunks is loaded beside it (the
 * articles of bench:retrieval, embedded by the service's own embedder: the stub's
 * vectors under OPENAI_EMBEDDING_MODEL's name), so retrieval searches N more chunks;
 * the service, finding a knowledge base, seeds nothing. It needs a scratch database
 * (TEST_DATABASE_URL or PGlite), not DATABASE_URL. Its table goes in a section of its own.
 *
 *   npm run bench:load [-- --seconds 10 --levels 1,4,16,64 --knowledge-chunks 10000 --no-write]
 *
 * Progress goes to stderr; the tables to stdout and the file (not with --no-write).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Pool } from 'pg';
import { loadConfig } from '../src/config';
import { createEmbedder } from '../src/knowledge/embeddings';
import { findSourceFiles, ingestFiles } from '../src/knowledge/ingest';
import { applyMigrations } from '../src/store/migrations';
import { openPostgresDatabase } from '../src/store/postgres';
import { SqlStore } from '../src/store/sql-store';
import { startOpenAIStub } from '../tests/support/openai-stub';
import { startPgliteServer } from '../tests/support/postgres';
import { seededRandom } from '../tests/support/seeded-random';
import { writeMarkedSection } from './lib/benchmarks-file';
import { CHUNKS_PER_ARTICLE, loadSyntheticKnowledge, syntheticKnowledge, WORDS_PER_CHUNK, type SyntheticLoad } from './lib/synthetic-knowledge';

const REPO_ROOT = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO_ROOT, 'BENCHMARKS.md');
const SEED_DIR = path.join(REPO_ROOT, 'knowledge/help-center');
const AGENT_KEY = 'bench-agent-key';
const POOL_MAX = 10;
/** Requests spread over this many sessions, so they queue on no single session row. */
const SESSIONS = 32;
/** The question every request asks (the help center answers it). */
const QUESTION = 'How long does a refund take?';
const STAGES = ['session', 'window', 'rewrite', 'retrieval', 'memory', 'model', 'tools', 'persist', 'total'] as const;

function progress(message: string): void {
  process.stderr.write(`[bench:load] ${message}\n`);
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

const SECONDS = Number(option('seconds', '10'));
const LEVELS = option('levels', '1,4,16,64').split(',').map(Number);
/** Synthetic chunks loaded beside the help center; 0: the help center alone. */
const KNOWLEDGE_CHUNKS = Number(option('knowledge-chunks', '0'));
const WRITE = !process.argv.includes('--no-write');
/** Each knowledge base its own section of BENCHMARKS.md, so a run of one keeps the other's table. */
const MARKERS =
  KNOWLEDGE_CHUNKS > 0
    ? { start: '<!-- bench-load-synthetic-knowledge:start -->', end: '<!-- bench-load-synthetic-knowledge:end -->' }
    : { start: '<!-- bench-load:start -->', end: '<!-- bench-load:end -->' };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function hasPgvector(url: string): Promise<boolean> {
  const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5000 });
  try {
    const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from pg_available_extensions where name = 'vector'`);
    return rows[0]!.n === 1;
  } finally {
    await pool.end();
  }
}

interface Database {
  url: string;
  description: string;
  /** A PostgreSQL server (not PGlite). */
  server: boolean;
  /** Made for this run and dropped after it. */
  scratch: boolean;
  close(): Promise<void>;
}

/** The database the service runs on, and what to say about it. */
async function openDatabase(): Promise<Database> {
  const configured = process.env.DATABASE_URL;
  if (configured && (await hasPgvector(configured))) {
    return { url: configured, description: `PostgreSQL from DATABASE_URL (${new URL(configured).host})`, server: true, scratch: false, close: async () => {} };
  }
  if (configured) progress('DATABASE_URL has no pgvector: not using it');
  const testServer = process.env.TEST_DATABASE_URL;
  if (testServer && (await hasPgvector(testServer))) {
    const name = `support_bench_${Date.now().toString(36)}`;
    const admin = new Pool({ connectionString: testServer, max: 1 });
    await admin.query(`create database ${name}`);
    const url = new URL(testServer);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      description: `PostgreSQL server from TEST_DATABASE_URL (scratch database ${name})`,
      server: true,
      scratch: true,
      close: async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  if (testServer) progress('TEST_DATABASE_URL has no pgvector (every answer needs it for retrieval): using PGlite over the wire instead');
  const server = await startPgliteServer(POOL_MAX + 2);
  return {
    url: server.url,
    description:
      'PGlite (in-memory, with pgvector) served over the Postgres wire protocol on loopback, in the benchmark process: ' +
      'no PostgreSQL server with pgvector was available. PGlite runs one statement at a time, so the database is a serial bottleneck here',
    server: false,
    scratch: true,
    close: () => server.close(),
  };
}

/**
 * Before the service starts: the help center, ingested as the service's own seed would
 * (same files, same source names, same embedder), then `chunks` synthetic chunks beside it,
 * embedded by the service's embedder so hybrid_search accepts the query's model. The index
 * build gets INDEX_BUILD_MEMORY on a server (the graph of 10,000 chunks outgrows its 64 MB default).
 */
async function loadKnowledge(database: Database, serviceEnv: NodeJS.ProcessEnv, chunks: number): Promise<SyntheticLoad & { model: string }> {
  const db = openPostgresDatabase({ connectionString: database.url, poolMax: 1 });
  try {
    await applyMigrations(db);
    const store = new SqlStore(db);
    const embedder = createEmbedder(loadConfig(serviceEnv));
    const seed = await ingestFiles(await findSourceFiles([SEED_DIR], REPO_ROOT), store, embedder);
    progress(`help center: ${seed.files} files, ${seed.chunks} chunks (${embedder.model})`);
    const knowledge = syntheticKnowledge(store, embedder, seededRandom(chunks));
    const load = await loadSyntheticKnowledge(db, knowledge, chunks, {
      progress: (message) => progress(`synthetic knowledge base: ${message}`),
      server: database.server,
    });
    return { ...load, model: embedder.model };
  } finally {
    await db.close();
  }
}

/** The knowledge base the service answers from: its chunks, and how many are synthetic. */
async function countKnowledge(url: string): Promise<{ chunks: number; synthetic: number }> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await pool.query<{ chunks: number; synthetic: number }>(
      `select count(*)::int as chunks, (count(*) filter (where source like 'synthetic/%'))::int as synthetic from documents`,
    );
    return rows[0]!;
  } finally {
    await pool.end();
  }
}

/** The sources the service cites for the benchmark's question: what its retrieval found. */
async function sourcesOf(baseURL: string): Promise<string[]> {
  const response = await fetch(`${baseURL}/api/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
    body: JSON.stringify({ message: QUESTION, session_id: 'sources' }),
  });
  if (!response.ok) throw new Error(`POST /api/v1/chat answered ${response.status}: ${await response.text()}`);
  const { sources } = (await response.json()) as { sources: { source: string }[] };
  return sources.map((s) => s.source);
}

interface Child {
  baseURL: string;
  child: ChildProcess;
  output: string[];
}

function startChild(command: string, args: string[], env: NodeJS.ProcessEnv, port: number): Child {
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  return { baseURL: `http://127.0.0.1:${port}`, child, output };
}

async function waitUntilServing(service: Child, url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`process exited with ${service.child.exitCode}:\n${service.output.join('')}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms:\n${service.output.join('')}`);
}

async function stop(service: Child): Promise<void> {
  if (service.child.exitCode !== null) return;
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGTERM');
  await exited;
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuMsOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks of 1/100 s (USER_HZ on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The service's node process: tsx runs the code in a child of the process spawned. */
function serverPidOf(service: Child): number {
  const pid = service.child.pid!;
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return children.length > 0 ? Number(children[0]) : pid;
  } catch {
    return pid;
  }
}

/** The bare endpoint: Express parsing a JSON body and answering JSON, nothing else. */
const BARE_SERVER = `
  const express = require('express');
  const app = express();
  app.use(express.json());
  app.get('/health', (_req, res) => res.json({ status: 'ok' }));
  app.post('/bare', (req, res) => res.json({ session_id: req.body.session_id, response: 'ok' }));
  app.listen(Number(process.env.PORT), '127.0.0.1');`;

interface LevelResult {
  connections: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  /** Mean ms per stage over the answers of this level (service only). */
  stages?: Record<string, number>;
  /** CPU ms per request: the service's process, and this one (database, model stub, load generator). */
  cpu?: { service: number | null; bench: number };
}

async function drive(url: string, connections: number, withStages: boolean): Promise<LevelResult> {
  let next = 0;
  const sums: Record<string, number> = {};
  let timed = 0;
  const result = await autocannon({
    url,
    connections,
    duration: SECONDS,
    method: 'POST',
    // As a support agent's tool would post: the agent key may continue any session (a
    // customer's browser would send each session's own token instead).
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ message: QUESTION, session_id: `load-${connections}-${next++ % SESSIONS}` }),
        }),
        onResponse: (status, _body, _context, headers) => {
          // autocannon keeps the raw header names' case.
          const entry = Object.entries(headers as Record<string, string>).find(([name]) => name.toLowerCase() === 'server-timing');
          const header = entry?.[1];
          if (!withStages || status !== 200 || !header) return;
          timed++;
          for (const part of header.split(', ')) {
            const [name, dur] = part.split(';dur=');
            sums[name!] = (sums[name!] ?? 0) + Number(dur);
          }
        },
      },
    ],
  });
  return {
    connections,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    stages: withStages ? Object.fromEntries(STAGES.map((s) => [s, timed ? (sums[s] ?? 0) / timed : 0])) : undefined,
  };
}

/** One line per level: the stage that took most of the service's time, and its share. */
function dominantStages(levels: LevelResult[]): string {
  return levels
    .map((level) => {
      const { total, ...parts } = level.stages as Record<(typeof STAGES)[number], number>;
      const [stage, ms] = Object.entries(parts).sort((a, b) => b[1] - a[1])[0]!;
      return `- ${level.connections} connection(s): ${stage} took most of the service's time, ${((ms / total) * 100).toFixed(0)}% of ${total.toFixed(1)} ms.`;
    })
    .join('\n');
}

function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const database = await openDatabase();
  progress(`database: ${database.description}`);
  if (KNOWLEDGE_CHUNKS > 0 && !database.scratch) {
    await database.close();
    throw new Error('--knowledge-chunks loads synthetic articles, which would stay in DATABASE_URL: unset it (TEST_DATABASE_URL gets a scratch database)');
  }
  const stub = await startOpenAIStub();
  const servicePort = await freePort();
  const barePort = await freePort();
  const serviceEnv: NodeJS.ProcessEnv = {
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: String(POOL_MAX),
    HOST: '127.0.0.1',
    PORT: String(servicePort),
    AGENT_API_KEY: AGENT_KEY,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: stub.baseURL,
    KNOWLEDGE_SEED_DIR: SEED_DIR,
    LOG_LEVEL: 'warn',
    // The limiter still counts every request in the database, as in production, but
    // never refuses one: the benchmark measures answers.
    RATE_LIMIT_PER_CLIENT: '1000000',
    RATE_LIMIT_PER_SESSION: '1000000',
  };
  let load: (SyntheticLoad & { model: string }) | undefined;
  if (KNOWLEDGE_CHUNKS > 0) {
    try {
      load = await loadKnowledge(database, serviceEnv, KNOWLEDGE_CHUNKS);
    } catch (error) {
      await stub.close();
      await database.close();
      throw error;
    }
  }
  const service = startChild(path.join(REPO_ROOT, 'node_modules/.bin/tsx'), [path.join(REPO_ROOT, 'src/index.ts')], serviceEnv, servicePort);
  const bare = startChild(process.execPath, ['-e', BARE_SERVER], { PORT: String(barePort), NODE_PATH: path.join(REPO_ROOT, 'node_modules') }, barePort);
  const results: Array<{ service: LevelResult; bare: LevelResult }> = [];
  let knowledge: { chunks: number; synthetic: number };
  let retrieved: string[];
  try {
    progress(load ? 'starting the service (the knowledge base is loaded: it seeds nothing)' : 'starting the service (migrations and the help-center seed on first start)');
    await Promise.all([waitUntilServing(service, `${service.baseURL}/health`), waitUntilServing(bare, `${bare.baseURL}/health`)]);
    knowledge = await countKnowledge(database.url);
    const expected = load ? load.articles * CHUNKS_PER_ARTICLE : 0;
    if (knowledge.synthetic !== expected) throw new Error(`${knowledge.synthetic} synthetic chunks once the service started, not ${expected}:\n${service.output.join('')}`);
    progress(`knowledge base: ${knowledge.chunks} chunks, ${knowledge.synthetic} of them synthetic`);
    progress('warming up');
    await autocannon({ url: `${service.baseURL}/api/v1/chat`, connections: 4, amount: 200, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` }, body: JSON.stringify({ message: 'Warm-up question about refunds', session_id: 'warm-up' }) });
    retrieved = await sourcesOf(service.baseURL);
    for (const connections of LEVELS) {
      progress(`${connections} connection(s), ${SECONDS} s each: bare endpoint`);
      const bareResult = await drive(`${bare.baseURL}/bare`, connections, false);
      progress(`${connections} connection(s): service`);
      const pid = serverPidOf(service);
      const [serviceCpu, benchCpu] = [cpuMsOf(pid), process.cpuUsage()];
      const serviceResult = await drive(`${service.baseURL}/api/v1/chat`, connections, true);
      const serviceCpuAfter = cpuMsOf(pid);
      const benchCpuUsed = process.cpuUsage(benchCpu);
      serviceResult.cpu = {
        service: serviceCpu !== null && serviceCpuAfter !== null ? (serviceCpuAfter - serviceCpu) / serviceResult.requests : null,
        bench: (benchCpuUsed.user + benchCpuUsed.system) / 1000 / serviceResult.requests,
      };
      progress(`  service ${serviceResult.rps.toFixed(0)} req/s, p99 ${serviceResult.p99} ms; bare ${bareResult.rps.toFixed(0)} req/s`);
      results.push({ service: serviceResult, bare: bareResult });
    }
  } finally {
    await Promise.all([stop(service), stop(bare)]);
    await stub.close();
    await database.close();
  }

  const cpus = os.cpus();
  const throughput = table(
    ['connections', 'service req/s', 'p50 ms', 'p99 ms', 'failed', 'bare req/s', 'bare p50 ms', 'bare p99 ms', 'service / bare'],
    results.map(({ service: s, bare: b }) => [s.connections, s.rps.toFixed(0), s.p50, s.p99, s.failures, b.rps.toFixed(0), b.p50, b.p99, `${((s.rps / b.rps) * 100).toFixed(1)}%`]),
  );
  const stages = table(
    ['connections', ...STAGES.map((s) => `${s} ms`), 'service CPU ms', 'benchmark process CPU ms'],
    results.map(({ service: s }) => [
      s.connections,
      ...STAGES.map((stage) => s.stages![stage]!.toFixed(2)),
      s.cpu?.service === null || s.cpu === undefined ? 'n/a' : s.cpu.service.toFixed(1),
      s.cpu ? s.cpu.bench.toFixed(1) : 'n/a',
    ]),
  );
  const section = [
    MARKERS.start,
    load
      ? `## \`npm run bench:load\` with ${knowledge.chunks.toLocaleString('en-US')} chunks: ${knowledge.synthetic.toLocaleString('en-US')} synthetic beside the help center (scripts/bench-load.ts)`
      : '## `npm run bench:load` (scripts/bench-load.ts)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, Node ${process.version}, ${os.platform()} ${os.arch()}`,
    `- Command: \`npm run bench:load${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\``,
    `- Database: ${database.description}.`,
    load
      ? `- Knowledge base: ${knowledge.chunks.toLocaleString('en-US')} chunks: the help center's ${knowledge.chunks - knowledge.synthetic} (knowledge/help-center, ingested as the service's seed would) and beside it a synthetic knowledge base of ${knowledge.synthetic.toLocaleString('en-US')} (--knowledge-chunks: bench:retrieval's articles of ${CHUNKS_PER_ARTICLE} chunks of ${WORDS_PER_CHUNK} Zipf-distributed made-up words, embedded by the service's own embedder, so the stub's vectors stored as ${load.model}), loaded before the service started at ${load.ingestPerSecond.toFixed(0)} chunks/s, the HNSW index built after the load in ${load.indexSeconds.toFixed(1)} s${load.indexBuildMemory ? ` (maintenance_work_mem ${load.indexBuildMemory})` : ''}, then analyzed.`
      : `- Knowledge base: the help center alone (knowledge/help-center, ${knowledge.chunks} chunks), seeded by the service on its first start; \`--knowledge-chunks N\` loads N synthetic chunks beside it (a section of its own).`,
    `- The question every request asks, "${QUESTION}", retrieved: ${retrieved.join(', ') || 'nothing'} (the sources of one answer after the warm-up).`,
    `- The service: its own process (\`tsx src/index.ts\`, LOG_LEVEL=warn, pool of ${POOL_MAX}), answering with the real OpenAI client against the loopback OpenAI-compatible stub (an instant model, embeddings included); requests spread over ${SESSIONS} sessions per level, so the window grows to its 20-message cap. The bare endpoint: Express parsing a JSON body and answering JSON, its own process. autocannon drives both from the benchmark process, ${SECONDS} s per level, on the same machine.`,
    '',
    '### Throughput and latency',
    '',
    throughput,
    '',
    '### The service\'s own time per request, by stage (mean ms, from Server-Timing)',
    '',
    'session: the session row; window: the history the memory strategy needs; rewrite: making the search query (a model call only for a follow-up that cannot stand alone; the benchmark\'s question stands alone); retrieval: embedding the search query and hybrid_search; memory: the strategy; model: the model calls; tools: tool rounds; persist: storing the turn; total: all of ChatService.answer (the rest of a request\'s latency is HTTP, validation and JSON, and waiting for a connection of the pool). CPU ms: CPU time per request of the service\'s process, and of the benchmark process, which runs the database (PGlite, when used), the model stub (its embeddings are computed) and autocannon.',
    '',
    stages,
    '',
    dominantStages(results.map((r) => r.service)),
    MARKERS.end,
  ].join('\n');
  console.log(section);
  if (!WRITE) return;
  writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
  progress(`recorded in ${path.relative(process.cwd(), BENCHMARKS_FILE)}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
