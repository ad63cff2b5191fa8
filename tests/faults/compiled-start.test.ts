/**
 * Production start without a TypeScript runner: `npm run build:server` compiles src/
 * to dist/, and `npm start` runs `node dist/index.js`. This runs that build, then the
 * compiled service as its own process (plain node, PGlite files, offline model
 * streaming a word every 50 ms): it finds its migrations and pages, and SIGTERM to it
 * lets the stream in flight finish with `done`, then it exits with code 0.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { postStream } from '../support/sse';
import { COMPILED_ENTRY, TEST_NODE_FLAGS, startServiceProcess, stopServiceProcess, waitUntilServing, type ServiceProcess } from '../support/processes';
import { REPO_ROOT, TEST_AGENT_KEY } from '../support/test-service';

let service: ServiceProcess | undefined;

beforeAll(() => {
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: REPO_ROOT, stdio: 'pipe' });
}, 180_000);
afterEach(async () => {
  await stopServiceProcess(service);
  service = undefined;
});

test('npm start runs plain node on the compiled entry point, in place of the script shell', () => {
  const scripts = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts;
  // exec: the signals npm passes on reach node itself (tests/faults/npm-start-signal.test.ts).
  expect(scripts.start).toMatch(new RegExp(`^exec node( --[a-z-]+)* ${COMPILED_ENTRY.replace('.', '\\.')}$`));
  expect(scripts.prestart).toBe('npm run build');
  expect(scripts.build).toContain('build:server');
  expect(scripts.build).toContain('build:web');
  expect(fs.existsSync(path.join(REPO_ROOT, COMPILED_ENTRY))).toBe(true);
});

test('the compiled service serves its API and pages, and SIGTERM ends it with code 0 after the open stream finishes', async () => {
  service = await startServiceProcess({ OFFLINE_STREAM_DELAY_MS: '50' }, { compiled: true });
  await waitUntilServing(service);
  const running = service;
  // Plain node on the build's output (no tsx loader), with only the flags every test process gets.
  expect(running.child.spawnargs.slice(1)).toEqual([...TEST_NODE_FLAGS, path.join(REPO_ROOT, COMPILED_ENTRY)]);

  // The migrations (read from supabase/migrations at run time) were found: the knowledge API's functions answer.
  const sources = await fetch(`${running.baseURL}/api/v1/knowledge/sources`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
  expect(sources.status).toBe(200);
  expect(((await sources.json()) as any).sources.length).toBeGreaterThan(0);
  expect((await fetch(`${running.baseURL}/review`)).status).toBe(200);
  expect((await fetch(`${running.baseURL}/openapi.json`)).status).toBe(200);

  let signalled = false;
  const read = await postStream(
    `${running.baseURL}/api/v1/chat/stream`,
    { message: 'How long does a refund take?', session_id: 'compiled-sigterm' },
    {
      connectionBroken: 'record',
      onEvent: (event) => {
        if (event.event === 'token' && !signalled) {
          signalled = true;
          running.child.kill('SIGTERM');
        }
      },
    },
  );
  const exit = await running.exited;

  expect(signalled).toBe(true);
  expect(read.error).toBeNull();
  expect(read.events.filter((e) => e.event === 'token').length).toBeGreaterThan(3);
  expect(read.events.at(-1)?.event).toBe('done');
  expect(exit).toEqual({ code: 0, signal: null });
  expect(running.output()).toContain('Traces flushed, database closed');
}, 120_000);
