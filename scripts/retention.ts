/**
 * npm run data:retention [-- --dry-run] [-- --days=N]
 *
 * Runs the retention sweep once from the command line: erases every conversation
 * whose last message is older than CONVERSATION_RETENTION_DAYS (or --days), batch
 * by batch, then the tool trials older than that, printing each batch and the totals. --dry-run only counts (npm's own
 * `npm run data:retention --dry-run` works too). Every batch is audited like the
 * in-process sweep's (actor: retention), and where Langfuse is configured the
 * erased answers' traces are deleted there. It does not migrate: the service (or
 * npm run db:migrate) does.
 */
import { loadConfig, loadDotEnvFile } from '../src/config';
import { describeStorage, openStorage } from '../src/dependencies';
import { newSecret } from '../src/http/session-token';
import { createLogger } from '../src/observability/logger';
import { ErasureService } from '../src/privacy/erasure';
import { CustomerPseudonyms, PSEUDONYM_SECRET_NAME } from '../src/privacy/pseudonym';
import { sweepExpiredConversations } from '../src/privacy/retention';
import { TraceDeletion } from '../src/privacy/trace-deletion';

function parseArguments(argv: string[]): { dryRun: boolean; days: number | null } {
  let dryRun = process.env['npm_config_dry_run'] === 'true';
  let days: number | null = null;
  for (const arg of argv) {
    if (arg === '--dry-run') dryRun = true;
    else if (arg.startsWith('--days=')) {
      days = Number(arg.slice('--days='.length));
      if (!Number.isFinite(days) || days <= 0) throw new Error(`--days must be a positive number of days, got "${arg.slice(7)}"`);
    } else throw new Error(`Unknown argument "${arg}". Usage: npm run data:retention -- [--dry-run] [--days=N]`);
  }
  return { dryRun, days };
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  loadDotEnvFile();
  const config = loadConfig();
  const retentionDays = args.days ?? config.privacy.retentionDays;
  if (retentionDays === null) throw new Error('Set CONVERSATION_RETENTION_DAYS (or pass --days=N): without a retention period nothing expires.');
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const storage = await openStorage(config, logger);
  try {
    const pseudonyms = new CustomerPseudonyms(config.privacy.pseudonymSecret ?? (await storage.secrets.keep(PSEUDONYM_SECRET_NAME, newSecret())));
    const traces = new TraceDeletion(config.langfuse, storage.customerData, logger, config.privacy.traceDeletionRetryMs);
    const erasure = new ErasureService({ data: storage.customerData, pseudonyms, traces, touch: () => {}, logger });
    console.log(
      `${args.dryRun ? 'Counting' : 'Erasing'} conversations whose last message is older than ${retentionDays} day(s) in ${describeStorage(config.storage)}` +
        (args.dryRun ? ' (dry run: nothing is erased)' : `, ${config.privacy.retentionBatchSize} per batch`),
    );
    const started = performance.now();
    const outcome = await sweepExpiredConversations(
      { data: storage.customerData, erasure, langfuse: traces.enabled },
      { retentionDays, batchSize: config.privacy.retentionBatchSize },
      {
        dryRun: args.dryRun,
        onBatch: (batch, counts) => console.log(`batch ${batch}: ${counts.conversations} conversation(s), ${counts.messages} message(s) erased`),
      },
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (outcome.busy) {
      console.log(`Another instance is sweeping right now (it holds the retention lock): stopped after ${outcome.batches} batch(es). Run again later.`);
    } else if (outcome.dryRun) {
      console.log(
        `Would erase ${outcome.counts.conversations} conversation(s) with ${outcome.counts.messages} message(s)` +
          (outcome.unstoredSessions ? `, and ${outcome.unstoredSessions} session(s) never stored as a conversation (bindings, order proofs, idempotency records).` : '.'),
      );
      console.log(`Would delete ${outcome.toolTrials} tool trial(s) older than the period.`);
    } else {
      const { conversations, ...rest } = outcome.counts;
      console.log(`Erased ${conversations} conversation(s) in ${outcome.batches} batch(es) (${seconds} s): ${JSON.stringify(rest)}`);
      console.log(`Deleted ${outcome.toolTrials} tool trial(s) older than the period.`);
      if (traces.enabled) {
        await traces.retryPending();
        console.log('Langfuse: trace deletions attempted; GET /api/v1/audit/erasures shows each batch\'s outcome (failures are retried by the service).');
      }
    }
  } finally {
    await storage.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`Retention sweep failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
