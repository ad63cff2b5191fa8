/**
 * npm run ingest -- <files or folders…>
 *
 * Chunks markdown and text files, embeds them with the configured embedder and
 * upserts them into the configured database. Unchanged files are skipped, changed
 * files have their chunks replaced. Progress goes to stderr, the summary to stdout.
 */
import { loadConfig, loadDotEnvFile } from '../src/config';
import { describeStorage, openStorage } from '../src/dependencies';
import { createEmbedder } from '../src/knowledge/embeddings';
import { findSourceFiles, ingestFiles, type IngestProgress } from '../src/knowledge/ingest';
import { applyMigrations } from '../src/store/migrations';

async function main(): Promise<number> {
  const paths = process.argv.slice(2).filter((a) => a !== '--');
  if (paths.length === 0 || paths.includes('--help')) {
    console.error('Usage: npm run ingest -- <file or folder> [more…]   (markdown .md/.markdown and text .txt)');
    return paths.includes('--help') ? 0 : 2;
  }

  loadDotEnvFile();
  const config = loadConfig();
  const files = await findSourceFiles(paths);
  if (files.length === 0) {
    console.error(`No markdown or text files found under: ${paths.join(', ')}`);
    return 1;
  }

  const embedder = createEmbedder(config);
  const storage = await openStorage(config);
  try {
    // Through Supabase's API nothing can be migrated: the schema must be there already.
    if (storage.db) await applyMigrations(storage.db);
    console.error(`Ingesting ${files.length} file(s) with ${embedder.model} into ${describeStorage(config.storage)}`);
    const startedAt = Date.now();
    const summary = await ingestFiles(files, storage.store, embedder, printProgress);
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    console.log(
      `Done in ${seconds}s: ${summary.files} files (${summary.added} added, ${summary.updated} updated, ` +
        `${summary.unchanged} unchanged), ${summary.chunks} chunks, ${summary.embedded} embedded.`,
    );
    return 0;
  } finally {
    await storage.close();
  }
}

function printProgress(p: IngestProgress): void {
  const width = String(p.total).length;
  const detail = p.outcome === 'unchanged' ? `${p.chunks} chunks` : `${p.chunks} chunks, ${p.embedded} embedded`;
  console.error(`[${String(p.index).padStart(width)}/${p.total}] ${p.outcome.padEnd(9)} ${p.source} (${detail})`);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Ingest failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
