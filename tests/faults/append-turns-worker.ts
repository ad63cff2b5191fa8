/**
 * A child process for sigkill-writes.test.ts: appends turns through the service's
 * own store (SqlStore over the `pg` backend) in a loop, several at once, until it
 * is killed. Every turn says who wrote it and which it is, so the test can check
 * each stored turn against what it must be. Prints `ok <session> <turn>` once a
 * turn is committed.
 *
 *   tsx tests/faults/append-turns-worker.ts <database url> <worker id> <sessions> <in flight>
 */
import { openPostgresDatabase } from '../../src/store/postgres';
import { SqlStore } from '../../src/store/sql-store';
import { turnMessages } from './turns';

async function main(): Promise<void> {
  const [url, worker, sessionCount, inFlight] = process.argv.slice(2);
  if (!url || !worker) throw new Error('usage: append-turns-worker <url> <worker> <sessions> <in flight>');
  const db = openPostgresDatabase({ connectionString: url, poolMax: Number(inFlight ?? 4) });
  const store = new SqlStore(db);
  let next = 0;
  const loop = async () => {
    for (;;) {
      const k = next++;
      const sessionId = `kill-${k % Number(sessionCount ?? 5)}`;
      await store.appendTurn({ sessionId, userId: `user-${sessionId}`, agentType: 'support', messages: turnMessages(worker, k) });
      process.stdout.write(`ok ${sessionId} ${worker}:${k}\n`);
    }
  };
  await Promise.all(Array.from({ length: Number(inFlight ?? 4) }, loop));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
