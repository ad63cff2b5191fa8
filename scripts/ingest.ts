/**
 * npm run ingest -- [--prune] [--dry-run] <files or folders…>
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
import { DocumentSkipped } from '../src/knowledge/sources/convert';
import { openKnowledgeTarget, type StoredSource } from './lib/knowledge-targets';

const USAGE = `Usage: npm run ingest -- [--prune] [--dry-run] <file or folder> [more…]
  (markdown .md/.markdown, text .txt, HTML .html/.htm, PDF .pdf, Word .docx)
  --prune     also remove the sources under the given folders whose files are gone
  --dry-run   only print what would be added, updated and removed`;

type Action = IngestOutcome | 'removed' | 'skipped';

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const paths = args.filter((a) => !a.startsWith('--'));
  const unknown = [...flags].filter((f) => !['--prune', '--dry-run', '--help'].includes(f));
  if (flags.has('--help') || paths.length === 0 || unknown.length > 0) {
    if (unknown.length > 0) console.error(`Unknown option(s): ${unknown.join(', ')}`);
    console.error(USAGE);
    return flags.has('--help') && unknown.length === 0 ? 0 : 2;
  }
  const prune = flags.has('--prune');
  const dryRun = flags.has('--dry-run');

  loadDotEnvFile();
  const config = loadConfig();
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
      let doc: DocumentToIngest;
      try {
        doc = await readSourceFile(file);
      } catch (error) {
        if (!(error instanceof DocumentSkipped)) throw error;
        counts.skipped += 1;
        printProgress(i + 1, total, 'skipped', file.source, `${error.reason}: ${error.message}`);
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
      const result = await target.put(doc);
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
    return 0;
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
