/**
 * npm run bench:crawl [-- --sizes 1000,5000] [--database postgres://…]
 * npm run bench:crawl -- --recheck-only [--recheck-pages 1000] [--database postgres://…]
 *
 * What a site sync costs: a generated help center on loopback (each page a ~1.2 KB
 * article in full site chrome, listed by a sitemap index of 1,000-URL sitemaps) is
 * synced into an empty knowledge base with the offline embedder (no OPENAI_API_KEY),
 * then synced again with nothing changed (every page a conditional request answered
 * 304). Prints pages per second, the crawler's peak memory while it runs (JS heap and
 * resident set, sampled every 50 ms) at each size, so one sees whether memory grows
 * with the site, and the unchanged re-sync's time; records the table in BENCHMARKS.md.
 * On PGlite in memory by default; --database runs it on a PostgreSQL server (a new
 * database per size, dropped afterwards).
 *
 * Then a chat turn's latency while a sync runs against idle (issue 34, item 7): the service
 * in this process (offline model, PGlite), chat turns one after another over HTTP, first
 * idle, then while it syncs a site of --chat-pages pages (default 300) of which every 50th
 * is a hostile 1.5 MB page that costs seconds to convert; p50 and p95 of each, and their
 * ratio (target: p95 within 1.5× of idle).
 *
 * Then what the re-check of stored pages costs (issue 43, KNOWLEDGE_SYNC_RECHECK_HOURS): a
 * site of --recheck-pages pages (default 1,000) whose sitemap gives every page a lastmod,
 * synced once, then twice unchanged: within the recheck window (the lastmod spares every
 * page's request) and with the window at 0 (every page a conditional request, answered 304,
 * and one statement that marks them checked). Its own section of BENCHMARKS.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { NetworkGuard } from '../src/connectors/network-guard';
import { HashingEmbeddings, OFFLINE_EMBEDDING_MODEL } from '../src/knowledge/embeddings';
import { knowledgeBaseForSites } from '../src/knowledge/sources/site-knowledge';
import { syncSite, type SiteSyncParts, type SyncReport } from '../src/knowledge/sources/site-sync';
import type { SqlDatabase } from '../src/store/database';
import { KnowledgeAdminStore } from '../src/store/knowledge-admin-store';
import { applyMigrations } from '../src/store/migrations';
import { openPgliteDatabase } from '../src/store/pglite';
import { openPostgresDatabase } from '../src/store/postgres';
import { SiteSyncStore } from '../src/store/site-sync-store';
import { SqlStore } from '../src/store/sql-store';
import { startTestService } from '../tests/support/test-service';
import { writeMarkedSection } from './lib/benchmarks-file';
import { pageInSiteChrome, sitemapIndexXml, sitemapXml, startLoopbackSite, type LoopbackSite } from './lib/loopback-site';

const REPO_ROOT = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO_ROOT, 'BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-crawl:start -->', end: '<!-- bench-crawl:end -->' };
const RECHECK_MARKERS = { start: '<!-- bench-crawl-recheck:start -->', end: '<!-- bench-crawl-recheck:end -->' };
const PER_SITEMAP = 1000;
const WORDS = ['parcel', 'refund', 'exchange', 'voucher', 'courier', 'warranty', 'invoice', 'checkout', 'delivery', 'account', 'discount', 'return'];

const progress = (message: string) => console.error(`[bench:crawl] ${message}`);

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/**
 * A help-center site of `size` pages, generated on request (the server holds nothing per page).
 * `lastmod`: the sitemaps give every page this date. `onPage` is told of every page request.
 */
async function generatedSite(size: number, options: { lastmod?: string; onPage?: () => void } = {}): Promise<LoopbackSite> {
  let origin = '';
  const site = await startLoopbackSite(
    {},
    {
      logRequests: false,
      generate: (requestPath) => {
        if (requestPath === '/sitemap.xml') {
          const count = Math.ceil(size / PER_SITEMAP);
          return { contentType: 'application/xml', body: sitemapIndexXml(Array.from({ length: count }, (_, k) => `${origin}/sitemaps/${k}.xml`)) };
        }
        const sitemap = /^\/sitemaps\/(\d+)\.xml$/.exec(requestPath);
        if (sitemap) {
          const first = Number(sitemap[1]) * PER_SITEMAP;
          const urls = Array.from({ length: Math.min(PER_SITEMAP, size - first) }, (_, k) => ({ loc: `${origin}/help/article-${first + k}`, lastmod: options.lastmod }));
          return { contentType: 'application/xml', body: sitemapXml(urls) };
        }
        const page = /^\/help\/article-(\d+)$/.exec(requestPath);
        if (page && Number(page[1]) < size) {
          options.onPage?.();
          return { body: articlePage(Number(page[1])) };
        }
        return undefined;
      },
    },
  );
  origin = site.origin;
  return site;
}

function articlePage(n: number): string {
  const word = (k: number) => WORDS[(n * 7 + k) % WORDS.length]!;
  const paragraph = (k: number) =>
    `<p>Article ${n}, part ${k}: how a ${word(k)} for order group ${n} works, when the ${word(k + 1)} applies, and what the ${word(k + 2)} team needs from you (reference HC-${n}-${k}).</p>`;
  return pageInSiteChrome({
    title: `Help article ${n}: ${word(0)} and ${word(1)}`,
    articleHtml: `${paragraph(1)}<h2>Steps</h2><ol><li>Open your ${word(3)} page.</li><li>Choose the ${word(4)}.</li></ol>${paragraph(2)}${paragraph(3)}`,
    relatedLinks: [{ href: `/help/article-${n + 1}`, text: `Article ${n + 1}` }],
  });
}

/** Peak JS heap and resident set while `work` runs, sampled every 50 ms. */
async function withPeakMemory<T>(work: () => Promise<T>): Promise<{ result: T; peakHeapMb: number; peakRssMb: number }> {
  let peakHeap = 0;
  let peakRss = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  sample();
  const timer = setInterval(sample, 50);
  try {
    const result = await work();
    sample();
    return { result, peakHeapMb: peakHeap / 1e6, peakRssMb: peakRss / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

interface SizeResult {
  database: string;
  pages: number;
  first: SyncReport;
  firstSeconds: number;
  peakHeapMb: number;
  peakRssMb: number;
  resyncSeconds: number;
  resync: SyncReport;
}

/** What a sync into this database needs: the guard, its run records and the knowledge base with the offline embedder. */
function syncParts(db: SqlDatabase): SiteSyncParts {
  const store = new SqlStore(db);
  const admin = new KnowledgeAdminStore(db);
  const embedder = { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL };
  return {
    guard: new NetworkGuard(),
    store: new SiteSyncStore(db),
    knowledge: knowledgeBaseForSites(
      {
        listSourceChunks: (s) => store.listSourceChunks(s),
        findEmbeddingsByHash: (h, m) => store.findEmbeddingsByHash(h, m),
        replaceSourceChunks: (s, c) => admin.replaceSourceChunks(s, c),
      },
      (s) => admin.deleteSource(s),
      embedder,
    ),
  };
}

async function measure(database: string, db: SqlDatabase, size: number): Promise<SizeResult> {
  await applyMigrations(db);
  const parts = syncParts(db);
  const site = await generatedSite(size);
  try {
    const url = `${site.origin}/sitemap.xml`;
    const run = async (label: string) => {
      let done = 0;
      const startedAt = performance.now();
      const report = await syncSite(url, parts, {
        maxPages: size,
        allowPrivateNetwork: true, // the generated site is on loopback
        onProgress: (e) => {
          if (e.kind === 'sitemap' || e.kind === 'removed' || e.kind === 'held') return;
          done += 1;
          if (done % 500 === 0) progress(`  ${database} ${size}, ${label}: ${done} pages, ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
        },
      });
      if (report.status !== 'succeeded') throw new Error(`${label} sync ${report.status}: ${report.message}`);
      return { report, seconds: (performance.now() - startedAt) / 1000 };
    };
    global.gc?.();
    const first = await withPeakMemory(() => run('first sync'));
    if (first.result.report.counts.added !== size) throw new Error(`expected ${size} pages added, got ${JSON.stringify(first.result.report.counts)}`);
    const resync = await run('unchanged re-sync');
    if (resync.report.counts.unchanged !== size || resync.report.counts.embedded !== 0) throw new Error(`the re-sync changed something: ${JSON.stringify(resync.report.counts)}`);
    return {
      database,
      pages: size,
      first: first.result.report,
      firstSeconds: first.result.seconds,
      peakHeapMb: first.peakHeapMb,
      peakRssMb: first.peakRssMb,
      resync: resync.report,
      resyncSeconds: resync.seconds,
    };
  } finally {
    await site.close();
  }
}

interface RecheckResult {
  database: string;
  pages: number;
  /** Within the window: the lastmod spares every request. */
  trusted: { seconds: number; pageRequests: number };
  /** KNOWLEDGE_SYNC_RECHECK_HOURS=0: a conditional request per page, answered 304. */
  rechecked: { seconds: number; pageRequests: number; notModified: number };
}

/** An unchanged site with lastmod, synced within the recheck window, then re-checked whole. */
async function measureRecheck(database: string, db: SqlDatabase, size: number): Promise<RecheckResult> {
  await applyMigrations(db);
  const parts = syncParts(db);
  let pageRequests = 0;
  const site = await generatedSite(size, { lastmod: '2026-10-01', onPage: () => (pageRequests += 1) });
  try {
    const url = `${site.origin}/sitemap.xml`;
    const run = async (label: string, recheckAfterMs: number) => {
      const requestsBefore = pageRequests;
      const startedAt = performance.now();
      const report = await syncSite(url, parts, { maxPages: size, allowPrivateNetwork: true, recheckAfterMs });
      const seconds = (performance.now() - startedAt) / 1000;
      if (report.status !== 'succeeded') throw new Error(`${label} sync ${report.status}: ${report.message}`);
      progress(`  ${database} ${size}, ${label}: ${seconds.toFixed(1)} s, ${JSON.stringify(report.counts)}`);
      return { report, seconds, pageRequests: pageRequests - requestsBefore };
    };
    const day = 24 * 60 * 60 * 1000;
    const first = await run('first sync', day);
    if (first.report.counts.added !== size) throw new Error(`expected ${size} pages added, got ${JSON.stringify(first.report.counts)}`);
    const trusted = await run('within the recheck window', day);
    const rechecked = await run('re-check (KNOWLEDGE_SYNC_RECHECK_HOURS=0)', 0);
    for (const r of [trusted, rechecked]) {
      if (r.report.counts.unchanged !== size || r.report.counts.embedded !== 0) throw new Error(`an unchanged sync changed something: ${JSON.stringify(r.report.counts)}`);
    }
    // The loopback site counts a request whatever it answers; the 304s are the fetches that brought no body.
    const notModified = rechecked.pageRequests - rechecked.report.counts.fetched;
    return {
      database,
      pages: size,
      trusted: { seconds: trusted.seconds, pageRequests: trusted.pageRequests },
      rechecked: { seconds: rechecked.seconds, pageRequests: rechecked.pageRequests, notModified },
    };
  } finally {
    await site.close();
  }
}

/** Runs `work` on a new database of the PostgreSQL server at `url`, dropped afterwards. */
async function onServerDatabase<T>(url: string, name: string, work: (db: SqlDatabase) => Promise<T>): Promise<T> {
  const admin = new Pool({ connectionString: url, max: 1 });
  await admin.query(`create database ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = openPostgresDatabase({ connectionString: target.toString(), poolMax: 2 });
  try {
    return await work(db);
  } finally {
    await db.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** A page that costs seconds to convert: a short article among 25,000 chrome blocks (1.5 MB). */
function heavyPage(n: number): string {
  return `<!doctype html><html><head><title>Heavy ${n}</title></head><body><main><h1>Heavy page ${n}</h1><p>Heavy page ${n} is a short article about parcels.</p></main>${'<div class="share-box"><a href="/s">s</a> <span>x</span></div>'.repeat(25_000)}</body></html>`;
}

interface ChatDuringSync {
  pages: number;
  heavyPages: number;
  idle: number[];
  during: number[];
  syncSeconds: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Chat turns over HTTP against the service in this process: idle, then while it syncs a site. */
async function chatDuringSync(pages: number, idleTurns: number): Promise<ChatDuringSync> {
  const service = await startTestService();
  const questions = ['How do I return an item?', 'Where is my parcel?', 'Can I pay with Klarna?', 'How long does a refund take?'];
  let turn = 0;
  const chatTurn = async () => {
    const startedAt = performance.now();
    const { status } = await service.postChat({ message: questions[turn++ % questions.length] });
    if (status !== 200) throw new Error(`a chat turn answered ${status}`);
    return performance.now() - startedAt;
  };
  let origin = '';
  const site = await startLoopbackSite(
    {},
    {
      logRequests: false,
      generate: (requestPath) => {
        if (requestPath === '/sitemap.xml') return { contentType: 'application/xml', body: sitemapXml(Array.from({ length: pages }, (_, k) => ({ loc: `${origin}/help/article-${k}` }))) };
        const page = /^\/help\/article-(\d+)$/.exec(requestPath);
        if (page && Number(page[1]) < pages) return { body: Number(page[1]) % 50 === 49 ? heavyPage(Number(page[1])) : articlePage(Number(page[1])) };
        return undefined;
      },
    },
  );
  origin = site.origin;
  try {
    for (let k = 0; k < 5; k++) await chatTurn(); // warm-up
    const idle: number[] = [];
    for (let k = 0; k < idleTurns; k++) idle.push(await chatTurn());
    progress(`  idle: ${idleTurns} turns, p95 ${percentile(idle, 95).toFixed(0)} ms; now syncing ${pages} pages`);
    const store = new SqlStore(service.db);
    const admin = new KnowledgeAdminStore(service.db);
    const knowledge = knowledgeBaseForSites(
      {
        listSourceChunks: (s) => store.listSourceChunks(s),
        findEmbeddingsByHash: (h, m) => store.findEmbeddingsByHash(h, m),
        replaceSourceChunks: (s, c) => admin.replaceSourceChunks(s, c),
      },
      (s) => admin.deleteSource(s),
      { embeddings: new HashingEmbeddings(), model: OFFLINE_EMBEDDING_MODEL },
    );
    const syncStartedAt = performance.now();
    let syncing = true;
    const sync = syncSite(`${site.origin}/sitemap.xml`, { guard: new NetworkGuard(), store: new SiteSyncStore(service.db), knowledge }, { maxPages: pages, allowPrivateNetwork: true }).finally(() => (syncing = false));
    const during: number[] = [];
    while (syncing) during.push(await chatTurn());
    const report = await sync;
    if (report.status !== 'succeeded') throw new Error(`the sync ${report.status}: ${report.message}`);
    const syncSeconds = (performance.now() - syncStartedAt) / 1000;
    progress(`  during the sync (${syncSeconds.toFixed(1)} s, ${JSON.stringify(report.counts)}): ${during.length} turns, p95 ${percentile(during, 95).toFixed(0)} ms`);
    return { pages, heavyPages: Math.floor(pages / 50), idle, during, syncSeconds };
  } finally {
    await site.close();
    await service.close();
  }
}

async function onPglite<T>(work: (db: SqlDatabase) => Promise<T>): Promise<T> {
  const db = await openPgliteDatabase();
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Measures the re-check on PGlite in memory, or on the server given, and records its section. */
async function recheckBenchmark(database: string | undefined): Promise<void> {
  const size = Number(arg('--recheck-pages') ?? 1000);
  if (!Number.isInteger(size) || size < 1) throw new Error('--recheck-pages takes a whole number, e.g. 1000');
  progress(`${database ? 'PostgreSQL' : 'PGlite (in memory)'}: re-checking a site of ${size} pages`);
  const r = database
    ? await onServerDatabase(database, `bench_recheck_${size}_${process.pid}`, (db) => measureRecheck('PostgreSQL', db, size))
    : await onPglite((db) => measureRecheck('PGlite', db, size));
  const perPageMs = (r.rechecked.seconds - r.trusted.seconds) * 1000 / r.pages;
  const row = `| ${r.database} | ${r.pages.toLocaleString('en')} | ${r.trusted.seconds.toFixed(1)} | ${r.trusted.pageRequests.toLocaleString('en')} | ${r.rechecked.seconds.toFixed(1)} | ${r.rechecked.pageRequests.toLocaleString('en')} | ${r.rechecked.notModified.toLocaleString('en')} | ${perPageMs.toFixed(1)} |`;
  const table = [
    '| database | pages | unchanged sync within the window (s) | page requests | unchanged sync re-checking every page (s) | page requests | of them 304 | re-check cost per page (ms) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    // The other database's row, as an earlier run recorded it (PGlite by default, PostgreSQL with --database).
    ...earlierRecheckRows().filter((line) => !line.startsWith(`| ${r.database} |`)),
    row,
  ].join('\n');
  console.log(table);
  const section = `${RECHECK_MARKERS.start}
### Re-checking stored pages (\`npm run bench:crawl -- --recheck-only\`)

What \`KNOWLEDGE_SYNC_RECHECK_HOURS\` costs (issue 43): a generated site of ${r.pages.toLocaleString('en')} pages whose sitemaps
give every page a \`lastmod\`, synced once, then twice with nothing changed: within the recheck
window (the unchanged \`lastmod\` spares every page's request: only robots.txt and the sitemaps are
read) and with the window at 0 (a conditional request per page, each answered 304 with no body, and
one statement marking the pages checked). Nothing is embedded in either. By default a page is
re-checked once a day, so the second figure is paid at most once a day per site. Measured
${new Date().toISOString().slice(0, 10)} on this machine (2 cores shared with other work).

${table}
${RECHECK_MARKERS.end}`;
  writeMarkedSection(BENCHMARKS_FILE, RECHECK_MARKERS, section);
  progress(`recorded in ${path.relative(process.cwd(), BENCHMARKS_FILE)}`);
}

async function main(): Promise<void> {
  if (process.argv.includes('--recheck-only')) return recheckBenchmark(arg('--database'));
  if (process.argv.includes('--chat-only')) return recordChat(await chatDuringSync(Number(arg('--chat-pages') ?? 300), Number(arg('--idle-turns') ?? 40)), null);
  const sizes = (arg('--sizes') ?? '1000,5000').split(',').map(Number);
  if (sizes.some((s) => !Number.isInteger(s) || s < 1)) throw new Error('--sizes takes whole numbers, e.g. 1000,5000');
  const database = arg('--database');
  const results: SizeResult[] = [];
  for (const size of sizes) {
    progress(`${database ? 'PostgreSQL' : 'PGlite (in memory)'}: a site of ${size} pages`);
    if (database) results.push(await onServerDatabase(database, `bench_crawl_${size}_${process.pid}`, (db) => measure('PostgreSQL', db, size)));
    else results.push(await onPglite((db) => measure('PGlite', db, size)));
  }

  const rows = results.map((r) =>
    [
      r.database,
      r.pages.toLocaleString('en'),
      r.firstSeconds.toFixed(1),
      (r.pages / r.firstSeconds).toFixed(0),
      r.first.counts.embedded.toLocaleString('en'),
      r.peakHeapMb.toFixed(0),
      r.peakRssMb.toFixed(0),
      r.resyncSeconds.toFixed(1),
      (r.pages / r.resyncSeconds).toFixed(0),
    ].join(' | '),
  );
  const table = [
    '| database | pages | first sync (s) | pages/s | chunks embedded | peak JS heap (MB) | peak RSS (MB) | unchanged re-sync (s) | re-sync pages/s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
  console.log(table);
  const chat = await chatDuringSync(Number(arg('--chat-pages') ?? 300), Number(arg('--idle-turns') ?? 40));
  recordChat(chat, table);
  await recheckBenchmark(database);
}

/** The section's sync throughput part as it stands (with its own date), kept when --chat-only measures the chat part alone. */
function earlierSyncPart(): string {
  const text = fs.readFileSync(BENCHMARKS_FILE, 'utf8');
  const start = text.indexOf(MARKERS.start);
  const end = text.indexOf(MARKERS.end);
  if (start < 0 || end < 0) return '';
  const body = text.slice(start, end).split('\n').slice(3).join('\n');
  const table = body.slice(0, body.indexOf('\n\nA chat turn') >= 0 ? body.indexOf('\n\nA chat turn') : body.length).trim();
  return table ? `${table}\n\n` : '';
}

/** The re-check table's rows as BENCHMARKS.md has them. */
function earlierRecheckRows(): string[] {
  const text = fs.readFileSync(BENCHMARKS_FILE, 'utf8');
  const start = text.indexOf(RECHECK_MARKERS.start);
  const end = text.indexOf(RECHECK_MARKERS.end);
  if (start < 0 || end < 0) return [];
  return text
    .slice(start, end)
    .split('\n')
    .filter((line) => /^\| (PGlite|PostgreSQL) \|/.test(line));
}

/** Writes the section: the sync table (when measured) and the chat-during-sync figures. */
function recordChat(chat: ChatDuringSync, table: string | null): void {
  const p = (values: number[], q: number) => percentile(values, q).toFixed(0);
  const chatTable = [
    '| chat turns | turns | p50 (ms) | p95 (ms) | max (ms) |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| idle | ${chat.idle.length} | ${p(chat.idle, 50)} | ${p(chat.idle, 95)} | ${p(chat.idle, 100)} |`,
    `| during a sync of ${chat.pages} pages (${chat.heavyPages} of them 1.5 MB hostile pages), ${chat.syncSeconds.toFixed(0)} s | ${chat.during.length} | ${p(chat.during, 50)} | ${p(chat.during, 95)} | ${p(chat.during, 100)} |`,
  ].join('\n');
  const ratio = percentile(chat.during, 95) / percentile(chat.idle, 95);
  console.log(chatTable);
  console.log(`p95 during a sync / idle: ${ratio.toFixed(2)}× (target ≤ 1.5×)`);
  const syncPart = table === null ? earlierSyncPart() : table
    ? `A generated help center on loopback (each page a ~1.2 KB article in full site chrome; a sitemap
index of 1,000-URL sitemaps, no lastmod) synced into an empty knowledge base with the offline
hashing embedder, 2 requests at a time; then synced again with nothing changed (a conditional
request per page, each answered 304, nothing embedded). Peak memory is the whole process's
(the crawler, the site's server and PGlite or the pg client), sampled every 50 ms
during the first sync.

${table}

`
    : '';
  const section = `${MARKERS.start}
## \`npm run bench:crawl\` (scripts/bench-crawl.ts)

${syncPart}A chat turn while a sync runs (issue 34, item 7): the service in the same process (offline
model, PGlite in memory), chat turns one after another over HTTP, ${chat.idle.length} idle, then for as long as
it syncs a site of ${chat.pages} pages in which every 50th is a 1.5 MB page that costs seconds to convert
(converted in the worker thread, robots.txt and sitemaps too). p95 during the sync / idle:
**${ratio.toFixed(2)}×** (target ≤ 1.5×). Measured ${new Date().toISOString().slice(0, 10)} on this machine (2 cores shared with other work).

${chatTable}
${MARKERS.end}`;
  writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
  progress(`recorded in ${path.relative(process.cwd(), BENCHMARKS_FILE)}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench:crawl failed: ${(error as Error).stack ?? error}`);
    process.exit(1);
  },
);
