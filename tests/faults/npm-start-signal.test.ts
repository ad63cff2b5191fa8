/**
 * A supervisor stops the service by signalling the process it started: `npm start`.
 * npm passes SIGTERM and SIGINT on to its script's process and waits for it; the
 * script must therefore be the service itself, not a shell that runs it (a shell
 * dies of the signal and leaves `node dist/index.js` running, holding the embedded
 * database, so the next start failed with "in use by process …").
 *
 * Each `npm start` runs in a process group of its own (detached), so every process
 * of its tree, an orphaned one included, is found by that group.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TEST_NODE_FLAGS, eventually, freePort, watchProcess } from '../support/processes';
import { REPO_ROOT, TEST_AGENT_KEY, HELP_CENTER_DIR, makeTempDir } from '../support/test-service';

/** The service's own shutdown deadline (src/index.ts) plus room for npm to follow it out. */
const STOPPED_WITHIN_MS = 20_000;

interface NpmStart {
  /** The npm process's id, which is also its process group's. */
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

const started: NpmStart[] = [];

/** `npm start` in the repository with the service's data and port of this test. */
function npmStart(dataDir: string, port: number): NpmStart {
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    detached: true,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_OPTIONS: TEST_NODE_FLAGS.join(' '),
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      AGENT_API_KEY: TEST_AGENT_KEY,
      KNOWLEDGE_SEED_DIR: HELP_CENTER_DIR,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { pid: child.pid!, ...watchProcess(child) };
  started.push(run);
  return run;
}

/** The processes still in the process group (pid and command line), read from /proc. */
function processesInGroup(groupId: number): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state, ppid, pgrp, …
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== groupId) continue;
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push(`${entry} ${command}`);
    } catch {
      // The process ended while we read it.
    }
  }
  return found;
}

async function waitUntilLive(run: NpmStart, port: number): Promise<void> {
  const live = await eventually(() => fetch(`http://127.0.0.1:${port}/health/live`).then((r) => r.ok), 240_000, 500);
  if (!live) throw new Error(`npm start did not serve /health/live:\n${run.output()}`);
}

async function expectStoppedBy(signal: NodeJS.Signals, run: NpmStart): Promise<void> {
  // The service's node process is a child of npm, in npm's group.
  expect(processesInGroup(run.pid).some((p) => p.includes('dist/index.js'))).toBe(true);
  process.kill(run.pid, signal);
  const gone = await eventually(async () => processesInGroup(run.pid).length === 0, STOPPED_WITHIN_MS, 100);
  expect({ gone, left: processesInGroup(run.pid) }).toEqual({ gone: true, left: [] });
  expect(await run.exited).toEqual({ code: 0, signal: null });
  // Stopped with its drain, not cut off.
  expect(run.output()).toContain('Traces flushed, database closed');
}

afterAll(() => {
  // Whatever a failed test left behind, ended by its group (these are this test's own processes).
  for (const run of started) {
    if (processesInGroup(run.pid).length > 0) process.kill(-run.pid, 'SIGKILL');
  }
});

test('SIGTERM to npm start ends the service with its drain and leaves no process; the next npm start on the same data starts, and SIGINT ends it too', async () => {
  const dataDir = path.join(await makeTempDir('support-agent-npm-start-'), 'data');
  const port = await freePort();

  const first = npmStart(dataDir, port);
  await waitUntilLive(first, port);
  await expectStoppedBy('SIGTERM', first);

  // The embedded database was released: a second start on the same DATA_DIR serves.
  const second = npmStart(dataDir, port);
  await waitUntilLive(second, port);
  expect(second.output()).not.toContain('in use by process');
  await expectStoppedBy('SIGINT', second);
}, 600_000);
