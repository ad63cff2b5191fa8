/**
 * npm run db:migrate
 *
 * Applies the migrations in supabase/migrations that the configured database
 * (DATABASE_URL, or PGlite under DATA_DIR) has not recorded yet, in one
 * transaction, and prints each one it applied. The service does the same at
 * start; this runs it ahead of a deploy.
 */
import { loadConfig, loadDotEnvFile } from '../src/config';
import { describeStorage, openDatabase } from '../src/dependencies';
import { applyMigrations, readMigrations } from '../src/store/migrations';

async function main(): Promise<void> {
  loadDotEnvFile();
  const config = loadConfig();
  const db = await openDatabase(config);
  try {
    const names = new Map((await readMigrations()).map((m) => [m.version, `${m.version}_${m.name}`]));
    const applied = await applyMigrations(db);
    for (const version of applied) console.log(`applied ${names.get(version)}`);
    console.log(
      applied.length === 0
        ? `${describeStorage(config.storage)} is up to date (${names.size} migrations).`
        : `Applied ${applied.length} of ${names.size} migrations to ${describeStorage(config.storage)}.`,
    );
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`Migrating failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
