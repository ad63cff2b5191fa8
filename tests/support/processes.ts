/**
 * Real processes for the fault tests: the service as `tsx src/index.ts` with an
 * environment of the test's choosing, and a PostgreSQL cluster the test can stop
 * and start again on the same port.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HELP_CENTER_DIR, REPO_ROOT, TEST_AGENT_KEY, makeTempDir } from './test-service';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ServiceProcess {
  baseURL: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * What every node process a test starts is given first, as `npm test` gives jest's: each
 * WebAssembly memory (PGlite, the sentence encoder) then reserves what it needs instead
 * of about 10 GB of address space, so a machine that limits address space runs them too.
 */
export const TEST_NODE_FLAGS = ['--disable-wasm-trap-handler'];

/**
 * Node with tsx's loader, in one process: `node --import tsx FILE`. (The `tsx` command
 * runs the script in a child process of its own: it passes SIGTERM on, but a SIGKILL
 * would kill only the wrapper and leave the script running.)
 */
export function tsxNodeArgs(file: string): string[] {
  return [...TEST_NODE_FLAGS, '--import', pathToFileURL(path.join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href, file];
}

/** Where `npm run build:server` writes the service's entry point. */
export const COMPILED_ENTRY = 'dist/index.js';

/**
 * Starts the service (`src/index.ts` under tsx's loader, see tsxNodeArgs, or with
 * `compiled` the built dist/index.js under plain node) on a free
 * loopback port, in a fresh working directory (no .env), with the agent key, the
 * help center as the seed, and `env` on top. Without DATABASE_URL it uses PGlite
 * under DATA_DIR (a new temporary folder unless given). `child` is the service's
 * own process: signals reach it directly.
 */
export async function startServiceProcess(env: Record<string, string> = {}, options: { compiled?: boolean } = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const cwd = await makeTempDir('support-agent-process-');
  // compiled: what `npm start` runs, plain node on `npm run build`'s output (dist/index.js).
  const args = options.compiled ? [...TEST_NODE_FLAGS, path.join(REPO_ROOT, COMPILED_ENTRY)] : tsxNodeArgs(path.join(REPO_ROOT, 'src/index.ts'));
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      AGENT_API_KEY: TEST_AGENT_KEY,
      KNOWLEDGE_SEED_DIR: HELP_CENTER_DIR,
      DATA_DIR: path.join(cwd, 'data'),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { baseURL: `http://127.0.0.1:${port}`, port, child, ...watchProcess(child) };
}

/** Everything a child process (spawned with piped stdout and stderr) writes, and when it exits. */
export function watchProcess(child: ChildProcess): Pick<ServiceProcess, 'output' | 'exited'> {
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { output: () => output.join(''), exited };
}

/** Polls /health until it answers 200; fails with the process's output when it exits or takes too long. */
export async function waitUntilServing(service: ServiceProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) {
      throw new Error(`service exited (${service.child.exitCode ?? service.child.signalCode}):\n${service.output()}`);
    }
    const ok = await fetch(`${service.baseURL}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`service did not answer within ${timeoutMs} ms:\n${service.output()}`);
}

/** Stops the process if it still runs (SIGTERM, then SIGKILL after a while). */
export async function stopServiceProcess(service: ServiceProcess | undefined, graceMs = 15_000): Promise<void> {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), graceMs);
  await service.exited;
  clearTimeout(timer);
}

/** Polls `probe` until it returns true or `timeoutMs` passes; returns whether it did. */
export async function eventually(probe: () => Promise<boolean>, timeoutMs: number, intervalMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// ── a PostgreSQL cluster of the test's own ─────────────────────────────────────

/** Debian's server binaries (the newest installed), or null. */
export function postgresBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin/pg_ctl')));
  versions.sort((a, b) => Number(a) - Number(b));
  return versions.length > 0 ? path.join(base, versions.at(-1)!, 'bin') : null;
}

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** Stops the server (fast shutdown: open sessions are ended); the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and deletes its folder. */
  destroy(): Promise<void>;
}

/**
 * A throw-away cluster (initdb) on a free loopback port, like .ci/postgres-server,
 * but one the test can stop and start again. initdb refuses to run as root, so as
 * root the server runs as the postgres user.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
  const isRoot = process.getuid?.() === 0;
  const asOwner = (command: string, args: string[]) =>
    isRoot ? execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' }) : execFileSync(command, args, { stdio: 'pipe' });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'support-agent-pg-'));
  if (isRoot) execFileSync('chown', ['postgres:', dir]);
  asOwner(path.join(bin, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  const pgCtl = (args: string[]) => asOwner(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), ...args]);
  const start = async () => {
    try {
      pgCtl(['-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off`, 'start']);
    } catch (error) {
      const log = await fs.readFile(path.join(dir, 'server.log'), 'utf8').catch(() => '');
      throw new Error(`pg_ctl start failed: ${(error as Error).message}\n${log}`);
    }
  };
  const stop = async () => {
    if (existsSync(path.join(dir, 'data/postmaster.pid'))) pgCtl(['-m', 'fast', '-w', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    destroy: async () => {
      await stop().catch(() => {});
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
