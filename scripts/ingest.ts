/**
 * npm run ingest -- [--prune] [--dry-run] [--max-pages N] [--concurrency N] [--allow-private-network] <files, folders or site URLs…>
 *
 * A URL is a site: its sitemap (or sitemap index), or a start page whose links under
 * its folder are followed. It is synced with syncSite: robots.txt obeyed, new and
 * changed pages stored under their canonical URL, gone pages removed (up to
 * KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT of the site unless --prune), the run recorded.
 * Exit status 1 when a site's sync failed, 3 when it held its removals back. While the
 * service runs, the service syncs the site itself (POST /api/v1/knowledge/syncs: crawl
 * state kept, the run recorded) and the command prints the run once it ends.
 *
 * Chunks documents (markdown, text, HTML, PDF page by page, Word), embeds them and stores them: in the configured
 * database, or, while a service runs on the embedded database (which it locks), through
 * that service's knowledge API (INGEST_SERVICE_URL names any other service). Unchanged
 * files are skipped, changed files have their chunks replaced. `--prune` removes the
 * sources under the given folders whose files are gone; `--dry-run` only says what would
 * change. A file with nothing to store (a PDF without a text layer, an empty page) or that
 * cannot be read (an encrypted PDF) is skipped and reported with why. Progress goes to
 * stderr, the summary to stdout.
 */
import path from 'node:path';
import { loadConfig, loadDotEnvFile } from '../src/config';
import {
  findSourceFiles,
  formatOfFile,
  planDocument,
  readSourceFile,
  sourceContentHash,
  type DocumentToIngest,
  type IngestOutcome,
} from '../src/knowledge/ingest';
import { NetworkGuard } from '../src/connectors/network-guard';
import { DocumentSkipped } from '../src/knowledge/sources/convert';
import { syncSite, type SyncProgress, type SyncReport } from '../src/knowledge/sources/site-sync';
import { openKnowledgeTarget, type KnowledgeTarget, type StoredSource, type SyncRun as ServiceRun } from './lib/knowledge-targets';

const USAGE = `Usage: npm run ingest -- [options] <file, folder or site URL> [more…]
  files and folders: markdown .md/.markdown, text .txt, HTML .html/.htm, PDF .pdf, Word .docx
  a site URL: its sitemap (https://help.example.com/sitemap.xml) or a start page (https://example.com/help/)
  --prune           folders: also remove the sources whose files are gone;
                    sites: remove the pages that are gone even past KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT
  --dry-run         files and folders only: print what would be added, updated and removed
  --max-pages N     sites: pages and linked files taken at most (default 5000)
  --concurrency N   sites: requests to the site at once (default 2; 1 with a robots.txt Crawl-delay)
  --allow-private-network
                    sites: the sites given may be on the private network (loopback, 10.x, 192.168.x…);
                    without it a site is crawled public-only, whatever its DNS answers`;

type Action = IngestOutcome | 'removed' | 'skipped';

const VALUE_OPTIONS = ['--max-pages', '--concurrency'];
const SWITCHES = ['--prune', '--dry-run', '--allow-private-network', '--help'];

interface Arguments {
  paths: string[];
  sites: string[];
  switches: Set<string>;
  maxPages?: number;
  concurrency?: number;
}

/** The command line, or a message saying what is wrong with it. */
function parseArguments(argv: string[]): Arguments | string {
  const parsed: Arguments = { paths: [], sites: [], switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') continue;
    const [name, inline] = arg.startsWith('--') ? (arg.split(/=(.*)/s, 2) as [string, string | undefined]) : [arg, undefined];
    if (VALUE_OPTIONS.includes(name)) {
      const raw = inline ?? argv[++i];
      const value = Number(raw);
      if (!Number.isInteger(value) || value < 1 || (name === '--concurrency' && value > 16)) {
        return `${name} needs a whole number${name === '--concurrency' ? ' from 1 to 16' : ' of at least 1'}, not ${raw ?? 'nothing'}`;
      }
      if (name === '--max-pages') parsed.maxPages = value;
      else parsed.concurrency = value;
    } else if (arg.startsWith('--')) {
      if (!SWITCHES.includes(arg)) return `Unknown option: ${arg}`;
      parsed.switches.add(arg);
    } else if (/^https?:\/\//i.test(arg)) {
      parsed.sites.push(arg);
    } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) {
      return `${arg}: only http and https sites can be ingested`;
    } else {
      parsed.paths.push(arg);
    }
  }
  if (parsed.sites.length > 0 && parsed.switches.has('--dry-run')) return '--dry-run works for files and folders only, not for sites';
  return parsed;
}

async function main(): Promise<number> {
  const parsed = parseArguments(process.argv.slice(2));
  if (typeof parsed === 'string' || parsed.switches.has('--help') || parsed.paths.length + parsed.sites.length === 0) {
    if (typeof parsed === 'string') console.error(parsed);
    console.error(USAGE);
    return typeof parsed !== 'string' && parsed.switches.has('--help') ? 0 : 2;
  }
  const { paths, sites } = parsed;
  const prune = parsed.switches.has('--prune');
  const dryRun = parsed.switches.has('--dry-run');

  loadDotEnvFile();
  const config = loadConfig();
  const siteOptions = {
    prune,
    allowPrivateNetwork: parsed.switches.has('--allow-private-network'),
    maxPages: parsed.maxPages,
    concurrency: parsed.concurrency,
    maxRemovalPercent: config.knowledgeSyncMaxRemovalPercent,
    recheckAfterMs: config.knowledgeSync.recheckAfterMs,
  };
  if (paths.length === 0) {
    const target = await openKnowledgeTarget(config);
    try {
      return await ingestSites(sites, target, siteOptions);
    } finally {
      await target.close();
    }
  }
  const files = await findSourceFiles(paths);
  if (files.length === 0 && !prune) {
    console.error(`No documents (.md, .markdown, .txt, .html, .htm, .pdf, .docx) found under: ${paths.join(', ')}`);
    return 1;
  }

  const target = await openKnowledgeTarget(config);
  try {
    const stored = await target.listSources();
    const prefixes = prunedPrefixes(paths);
    const stale = prune ? [...stored.keys()].filter((s) => isUnder(s, prefixes) && !files.some((f) => f.source === s)).sort() : [];
    const total = files.length + stale.length;
    console.error(
      `${dryRun ? 'Dry run: comparing' : 'Ingesting'} ${files.length} file(s)${prune ? ` and ${stale.length} removed source(s)` : ''} ` +
        `with ${target.embeddingModel} ${dryRun ? 'to' : 'into'} ${target.description}`,
    );

    const counts: Record<Action, number> = { added: 0, updated: 0, unchanged: 0, removed: 0, skipped: 0 };
    let chunks = 0;
    let embedded = 0;
    const startedAt = Date.now();
    for (const [i, file] of files.entries()) {
      const skip = (error: unknown) => {
        if (!(error instanceof DocumentSkipped)) throw error;
        counts.skipped += 1;
        printProgress(i + 1, total, 'skipped', file.source, `${error.reason}: ${error.message}`);
      };
      let doc: DocumentToIngest;
      try {
        doc = await readSourceFile(file);
      } catch (error) {
        skip(error);
        continue;
      }
      if (dryRun) {
        const plan = await planDocument(doc);
        const outcome = predictedOutcome(stored.get(file.source), sourceContentHash(plan.chunks.map((c) => c.contentHash)), target.embeddingModel);
        counts[outcome] += 1;
        chunks += plan.chunks.length;
        printProgress(i + 1, total, outcome, file.source, `${plan.chunks.length} chunks`);
        continue;
      }
      let result;
      try {
        result = await target.put(doc);
      } catch (error) {
        skip(error);
        continue;
      }
      counts[result.outcome] += 1;
      chunks += result.chunks;
      embedded += result.embedded;
      const detail = result.outcome === 'unchanged' ? `${result.chunks} chunks` : `${result.chunks} chunks, ${result.embedded} embedded`;
      printProgress(i + 1, total, result.outcome, file.source, detail);
    }
    for (const [k, source] of stale.entries()) {
      if (!dryRun) await target.remove(source);
      counts.removed += 1;
      printProgress(files.length + k + 1, total, 'removed', source, 'its file is gone');
    }

    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const tally =
      `${counts.added} added, ${counts.updated} updated, ${counts.unchanged} unchanged` +
      `${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ''}${prune ? `, ${counts.removed} removed` : ''}`;
    console.log(
      dryRun
        ? `Dry run, nothing changed: ${files.length} files would be ${tally}; ${chunks} chunks.`
        : `Done in ${seconds}s: ${files.length} files (${tally}), ${chunks} chunks, ${embedded} embedded.`,
    );
    if (sites.length === 0) return 0;
    return await ingestSites(sites, target, siteOptions);
  } finally {
    await target.close();
  }
}

/** The source names a path covers: a folder's `knowledge/help-center/` prefix, or a file's own name. */
function prunedPrefixes(paths: string[]): string[] {
  return paths.map((p) => {
    const relative = path.relative(process.cwd(), path.resolve(p)).split(path.sep).join('/');
    return formatOfFile(p) ? relative : relative === '' ? '' : `${relative}/`;
  });
}

function isUnder(source: string, prefixes: string[]): boolean {
  return prefixes.some((p) => (p.endsWith('/') || p === '' ? source.startsWith(p) : source === p));
}

/** What ingesting would do with a file, from the stored source's hash and model. */
function predictedOutcome(stored: StoredSource | undefined, contentHash: string, model: string): IngestOutcome {
  if (!stored) return 'added';
  return stored.contentHash === contentHash && stored.embeddingModel === model ? 'unchanged' : 'updated';
}

/** Syncs each site in turn, printing progress and a summary per site; the exit status of the worst. */
async function ingestSites(
  sites: string[],
  target: KnowledgeTarget,
  options: { prune: boolean; allowPrivateNetwork: boolean; maxPages?: number; concurrency?: number; maxRemovalPercent: number; recheckAfterMs: number },
): Promise<number> {
  const guard = new NetworkGuard();
  let exitCode = 0;
  for (const site of sites) {
    const inService = await syncInService(site, target, options);
    if (inService !== null) {
      if (inService === 'failed') exitCode = 1;
      else if (inService === 'held' && exitCode === 0) exitCode = 3;
      continue;
    }
    console.error(`Syncing ${site} with ${target.embeddingModel} into ${target.description}${options.prune ? ' (--prune: every gone page is removed)' : ''}`);
    let taken = 0;
    const report = await syncSite(
      site,
      { guard, knowledge: target, store: target.siteRecords },
      { ...options, trigger: 'cli', onProgress: (event) => printSiteProgress(event, event.kind === 'sitemap' || event.kind === 'removed' || event.kind === 'held' ? null : ++taken) },
    );
    console.log(siteSummary(report, target.recordsRuns));
    if (report.status === 'failed') exitCode = 1;
    else if (report.status === 'held' && exitCode === 0) exitCode = 3;
  }
  return exitCode;
}

/**
 * Through a running service: the service syncs the site (crawl state kept, the run
 * recorded, as its schedule's runs are) and the command waits for the run to end and
 * prints it. Null when the target is the database, or a service without the route.
 */
async function syncInService(
  site: string,
  target: KnowledgeTarget,
  options: { prune: boolean; allowPrivateNetwork: boolean; maxPages?: number; concurrency?: number },
): Promise<ServiceRun['status'] | null> {
  if (!target.syncInService) return null;
  const run = await target.syncInService(site, {
    ...options,
    onBusy: (seconds) => console.error(`A knowledge sync is going on in ${target.description}; asking again in ${seconds}s`),
    onStarted: (runId) => console.error(`Syncing ${site} in ${target.description} (run #${runId})${options.prune ? ' (--prune: every gone page is removed)' : ''}`),
  });
  if (!run) {
    console.error(`${target.description} cannot sync sites itself (an older version): the command crawls ${site} and sends the pages.`);
    return null;
  }
  console.log(serviceRunSummary(run));
  return run.status;
}

function serviceRunSummary(run: ServiceRun): string {
  const c = run.counts;
  const n = (k: keyof typeof c) => c[k] ?? 0;
  const seconds = ((new Date(run.finished_at ?? run.started_at).getTime() - new Date(run.started_at).getTime()) / 1000).toFixed(1);
  const lines = [
    `${run.site}: ${run.status} in ${seconds}s: ${n('fetched')} fetched, ${n('added')} added, ${n('updated')} updated, ${n('unchanged')} unchanged, ` +
      `${n('skipped')} skipped, ${n('failed')} failed, ${n('removed')} removed${n('removalsHeld') > 0 ? `, ${n('removalsHeld')} removals held` : ''}; ` +
      `${n('embedded')} chunks embedded. Run #${run.id} recorded by the service.`,
  ];
  if (run.message) lines.push(run.message);
  if (run.errors.length > 0) {
    lines.push(`Problems (${run.errors.length}${run.errors.length >= 50 ? ', the first 50' : ''}):`);
    for (const e of run.errors) lines.push(`  ${e.reason}: ${e.url}: ${e.message}`);
  }
  return lines.join('\n');
}

function printSiteProgress(event: SyncProgress, index: number | null): void {
  const { counts } = event;
  const tally = `${counts.added + counts.updated} stored, ${counts.unchanged} unchanged, ${counts.skipped} skipped, ${counts.failed} failed`;
  console.error(`${index === null ? '' : `[${index}] `}${event.kind.padEnd(9)} ${event.url} (${event.detail}) [${tally}]`);
}

function siteSummary(report: SyncReport, recorded: boolean): string {
  const c = report.counts;
  const seconds = ((report.finishedAt.getTime() - report.startedAt.getTime()) / 1000).toFixed(1);
  const lines = [
    `${report.site}${report.mode ? ` (${report.mode})` : ''}: ${report.status} in ${seconds}s: ${c.fetched} fetched, ${c.added} added, ${c.updated} updated, ` +
      `${c.unchanged} unchanged, ${c.skipped} skipped, ${c.failed} failed, ${c.removed} removed${c.removalsHeld > 0 ? `, ${c.removalsHeld} removals held` : ''}; ` +
      `${c.embedded} chunks embedded.${recorded ? ` Run #${report.runId} recorded.` : ' (Through the service: the run is not recorded and no ETags are kept.)'}`,
  ];
  if (report.message) lines.push(report.message);
  if (report.errors.length > 0) {
    lines.push(`Problems (${report.errors.length}${report.errors.length >= 50 ? ', the first 50' : ''}):`);
    for (const e of report.errors) lines.push(`  ${e.reason}: ${e.url}: ${e.message}`);
  }
  return lines.join('\n');
}

function printProgress(index: number, total: number, action: Action, source: string, detail: string): void {
  const width = String(total).length;
  console.error(`[${String(index).padStart(width)}/${total}] ${action.padEnd(9)} ${source} (${detail})`);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Ingest failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
