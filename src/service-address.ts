import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * On the embedded default only the running service can open DATA_DIR's database, so it
 * leaves its address beside it (`DATA_DIR/service-url`) while it listens: `npm run
 * ingest` finds it there and sends the files through the knowledge API instead.
 */
const FILE_NAME = 'service-url';

/** The address a local client reaches a service listening on host:port by. */
export function localServiceUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export async function writeServiceAddress(dataDir: string, url: string): Promise<void> {
  await fs.writeFile(path.join(dataDir, FILE_NAME), `${url}\n`, { mode: 0o600 });
}

/** The address the service running on this DATA_DIR left, or null. */
export async function readServiceAddress(dataDir: string): Promise<string | null> {
  const text = await fs.readFile(path.join(dataDir, FILE_NAME), 'utf8').catch(() => '');
  return text.trim() || null;
}

export async function removeServiceAddress(dataDir: string): Promise<void> {
  await fs.rm(path.join(dataDir, FILE_NAME), { force: true });
}
