/**
 * How long one knowledge write stops the service (issue 42, finding 2): the service on the
 * default setup (offline sentence encoder, no API key) on PGlite, or on a PostgreSQL server
 * (`database`), ingests one hostile document through `PUT /api/v1/knowledge/sources/…` (260 KB
 * of Thai, 260 KB of Chinese, one 260,000-character word) or crawls three such pages through
 * `POST /api/v1/knowledge/syncs`, while a worker thread asks `/health/live` every 10 ms. A worker
 * has its own event loop, so its clock keeps running while the service's is stopped: the
 * slowest answer it sees is the service's longest stall.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Pool } from 'pg';
import { spacelessArticle, unbrokenWord } from '../../tests/support/adversarial-text';
import { closeAppInstances, HELP_CENTER_DIR, listenApp, TEST_AGENT_KEY } from '../../tests/support/test-service';
import { loadConfig } from '../../src/config';
import { createDependencies } from '../../src/dependencies';
import { createLogger } from '../../src/observability/logger';
import { openPgliteDatabase } from '../../src/store/pglite';
import { pageInSiteChrome, sitemapXml, startLoopbackSite } from './loopback-site';

const DOCUMENT_BYTES = 260_000;
const CRAWL_PAGE_BYTES = 240_000;
const PROBE_EVERY_MS = 10;

export interface IngestStallRow {
  case: string;
  status: number | string;
  chunks: number;
  seconds: number;
  /** The slowest /health/live answer while it ran. */
  stallMs: number;
  probes: number;
}

// The probe's own thread: fetch, time, wait 10 ms, again, until told to stop; then report.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let running = true, slowest = 0, probes = 0;
parentPort.on('message', () => { running = false; });
(async () => {
  while (running) {
    const started = performance.now();
    try { await (await fetch(workerData.url)).arrayBuffer(); } catch {}
    slowest = Math.max(slowest, performance.now() - started);
    probes += 1;
    await new Promise((resolve) => setTimeout(resolve, workerData.every));
  }
  parentPort.postMessage({ slowest, probes });
})();
`;

/** Runs `work` while a worker probes `${baseURL}/health/live` every 10 ms; the slowest answer and the count of probes. */
async function whileProbing<T>(baseURL: string, work: () => Promise<T>): Promise<{ result: T; stallMs: number; probes: number; seconds: number }> {
  const worker = new Worker(PROBE, { eval: true, workerData: { url: `${baseURL}/health/live`, every: PROBE_EVERY_MS } });
  const report = new Promise<{ slowest: number; probes: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // Let the probe start before the work does.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 50));
  worker.postMessage('stop');
  const { slowest, probes } = await report;
  await worker.terminate();
  return { result, stallMs: slowest, probes, seconds };
}

/** The service that a hostile write is sent to: its address and the database it writes to. */
export interface StallService {
  baseURL: string;
  close(): Promise<void>;
}

/**
 * The real service on the default embedder (the offline sentence encoder) unless `env` says
 * otherwise, help center seeded unless `env` says otherwise: on PGlite in memory, or, with
 * `databaseUrl`, on a new database of that PostgreSQL server (dropped on close).
 */
export async function startStallService(databaseUrl: string | undefined, env: Record<string, string> = {}): Promise<StallService> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-stall-'));
  let database: { url: string; drop(): Promise<void> } | null = null;
  if (databaseUrl) {
    const name = `ingest_stall_${process.pid}_${Date.now().toString(36)}`;
    const admin = new Pool({ connectionString: databaseUrl, max: 1 });
    await admin.query(`create database ${name}`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    database = {
      url: url.toString(),
      drop: async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AGENT_API_KEY: TEST_AGENT_KEY,
    KNOWLEDGE_SEED_DIR: HELP_CENTER_DIR,
    RATE_LIMIT_PER_CLIENT: '1000000',
    OFFLINE_EMBEDDER: 'use-lite',
    ...(database && { DATABASE_URL: database.url }),
    ...env,
  });
  // Without a database URL, PGlite in memory; with one, the service opens its own pool.
  const deps = await createDependencies(config, createLogger('silent'), database ? undefined : await openPgliteDatabase());
  const app = await listenApp(deps);
  return {
    baseURL: app.baseURL,
    close: async () => {
      try {
        await closeAppInstances([app]);
      } finally {
        await database?.drop();
        await fs.rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export async function putDocument(service: StallService, source: string, text: string): Promise<{ status: number; chunks: number }> {
  const response = await fetch(`${service.baseURL}/api/v1/knowledge/sources/${encodeURIComponent(source)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TEST_AGENT_KEY}`, 'content-type': `${source.endsWith('.md') ? 'text/markdown' : 'text/plain'}; charset=utf-8` },
    body: text,
  });
  const body = (await response.json()) as { chunk_count?: number };
  return { status: response.status, chunks: body.chunk_count ?? 0 };
}

async function agentRequest(service: StallService, method: string, requestPath: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.baseURL}${requestPath}`, {
    method,
    headers: { authorization: `Bearer ${TEST_AGENT_KEY}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Syncs a loopback site of three 240 KB Thai pages through the API and waits for the run to end. */
async function crawlThreePages(service: StallService): Promise<{ status: string; chunks: number }> {
  let origin = '';
  const pages = [1, 2, 3].map((n) => `/help/thai-${n}`);
  const site = await startLoopbackSite(
    {},
    {
      logRequests: false,
      generate: (requestPath) => {
        if (requestPath === '/sitemap.xml') return { contentType: 'application/xml', body: sitemapXml(pages.map((p) => ({ loc: `${origin}${p}` }))) };
        const n = pages.indexOf(requestPath);
        if (n < 0) return undefined;
        const paragraphs = spacelessArticle('thai', CRAWL_PAGE_BYTES, n + 10).split('\n\n').map((p) => `<p>${p}</p>`);
        return { body: pageInSiteChrome({ title: `บทความ ${n + 1}`, articleHtml: paragraphs.join('\n') }) };
      },
    },
  );
  origin = site.origin;
  try {
    const started = await agentRequest(service, 'POST', '/api/v1/knowledge/syncs', { site: `${origin}/sitemap.xml`, allow_private_network: true });
    if (started.status !== 202) return { status: `sync refused ${started.status}`, chunks: 0 };
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      // A stalled service drops idle keep-alive connections: a failed poll is asked again.
      const runs = await agentRequest(service, 'GET', `/api/v1/knowledge/syncs?site=${encodeURIComponent(`${origin}/sitemap.xml`)}`).catch(() => null);
      const run = runs?.body.syncs?.[0];
      if (run && run.status !== 'running') {
        const listed = await agentRequest(service, 'GET', '/api/v1/knowledge/sources?limit=100');
        const chunks = (listed.body.sources as { source: string; chunk_count: number }[]).filter((s) => s.source.startsWith(origin)).reduce((n, s) => n + s.chunk_count, 0);
        return { status: run.status, chunks };
      }
    }
  } finally {
    await site.close();
  }
}

/** Each hostile write on a fresh service, its longest /health/live stall. */
export async function measureIngestStalls(
  databaseUrl: string | undefined,
  progress: (line: string) => void,
  only: readonly string[] = [],
): Promise<IngestStallRow[]> {
  const cases: Array<[key: string, name: string, run: (service: StallService) => Promise<{ status: number | string; chunks: number }>]> = [
    ['ordinary', 'ordinary article (help center, 13 KB)', (s) => putDocument(s, 'ordinary.md', ordinaryArticle())],
    ['thai', '260 KB of Thai', (s) => putDocument(s, 'thai.txt', spacelessArticle('thai', DOCUMENT_BYTES))],
    ['chinese', '260 KB of Chinese', (s) => putDocument(s, 'chinese.txt', spacelessArticle('chinese', DOCUMENT_BYTES))],
    ['word', 'one 260,000-character word', (s) => putDocument(s, 'word.txt', unbrokenWord(260_000))],
    ['crawl', 'crawl of three 240 KB Thai pages', (s) => crawlThreePages(s)],
  ];
  const rows: IngestStallRow[] = [];
  for (const [key, name, run] of cases) {
    if (only.length > 0 && !only.includes(key)) continue;
    const service = await startStallService(databaseUrl);
    try {
      // Load the sentence encoder first (its one-time load is not what is measured).
      await putDocument(service, 'warm-up.md', '# Warm up\n\nThe encoder loads once per process.');
      const { result, stallMs, probes, seconds } = await whileProbing(service.baseURL, () => run(service));
      const row = { case: name, status: result.status, chunks: result.chunks, seconds, stallMs, probes };
      rows.push(row);
      progress(`  ${name.padEnd(40)} ${String(row.status).padEnd(10)} ${String(row.chunks).padStart(5)} chunks  ${seconds.toFixed(1)} s  longest /health/live ${stallMs.toFixed(0)} ms`);
    } finally {
      await service.close();
    }
  }
  return rows;
}

/** The help center's articles joined: what an ordinary write costs, for comparison. */
function ordinaryArticle(): string {
  const dir = path.resolve(__dirname, '../../knowledge/help-center');
  const files = readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
  return files.map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n\n');
}

export function renderIngestStalls(rows: IngestStallRow[], database: string, markers: { start: string; end: string }): string {
  return [
    markers.start,
    `### One knowledge write against the service's event loop (${database})`,
    '',
    'Issue 42, finding 2. The service on the default setup (offline sentence encoder, no API key) ingests one document through',
    '`PUT /api/v1/knowledge/sources/…` or syncs three pages through `POST /api/v1/knowledge/syncs`, while a worker thread asks',
    `\`/health/live\` every ${PROBE_EVERY_MS} ms; "longest stall" is its slowest answer (target ≤ 300 ms). Each case on a fresh service.`,
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| write | status | chunks | took (s) | longest `/health/live` stall (ms) | probes |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.case} | ${r.status} | ${r.chunks} | ${r.seconds.toFixed(1)} | ${r.stallMs.toFixed(0)} | ${r.probes} |`),
    markers.end,
  ].join('\n');
}
