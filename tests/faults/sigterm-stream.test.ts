/**
 * SIGTERM while an answer is streaming, against the real process (`tsx src/index.ts`,
 * PGlite files, the offline model streaming a word every OFFLINE_STREAM_DELAY_MS).
 *
 * Within the shutdown deadline (SHUTDOWN_TIMEOUT_MS in src/index.ts, 10 s) the
 * stream in flight finishes with `done`, its turn is stored, no new connection is
 * accepted, and the process exits 0. A stream that would outlast the deadline is
 * cut at it, and nothing of its turn is stored.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { openPgliteDatabase } from '../../src/store/pglite';
import { postStream, type SseEvent, type SseResponse } from '../support/sse';
import { eventually, startServiceProcess, stopServiceProcess, waitUntilServing, type ServiceProcess } from '../support/processes';
import { REPO_ROOT, TEST_AGENT_KEY, makeTempDir } from '../support/test-service';

/** src/index.ts: how long shutdown waits for requests in flight. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/** POSTs to the stream endpoint and reads events as they come, recording (not throwing) a connection the server cut. */
function readStream(baseURL: string, body: unknown, onEvent: (event: SseEvent) => void): Promise<SseResponse> {
  return postStream(`${baseURL}/api/v1/chat/stream`, body, { onEvent, connectionBroken: 'record' });
}

/** Whether a new TCP connection to the port is refused. */
function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

const figures: Record<string, unknown> = {};
afterAll(() => {
  fs.mkdirSync(path.join(REPO_ROOT, 'test-artifacts'), { recursive: true });
  fs.writeFileSync(path.join(REPO_ROOT, 'test-artifacts/fault-sigterm-stream.json'), `${JSON.stringify(figures, null, 2)}\n`);
});

/**
 * A guard against a hang, not a speed target: the process starts, streams and stops in about 30 s
 * alone, and took over 60 s beside other suites on a loaded two-core machine.
 */
const REAL_PROCESS_TIMEOUT_MS = 120_000;

describe('SIGTERM during a stream (real process)', () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = await makeTempDir('support-agent-sigterm-');
  });
  afterEach(async () => {
    await stopServiceProcess(service);
    service = undefined;
  });

  it('finishes the stream in flight with done, stores its turn, refuses new connections and exits 0 within the deadline', async () => {
    service = await startServiceProcess({ DATA_DIR: dataDir, OFFLINE_STREAM_DELAY_MS: '50', LOG_LEVEL: 'info' });
    await waitUntilServing(service);
    const running = service;

    let sigtermAt = 0;
    let refusedWhileStreaming: boolean | null = null;
    let checking: Promise<void> | null = null;
    const read = await readStream(running.baseURL, { message: 'How long does a refund take?', session_id: 'sigterm-finishes' }, (event) => {
      if (event.event !== 'token' || sigtermAt !== 0) return;
      sigtermAt = Date.now();
      running.child.kill('SIGTERM');
      // Once the signal is handled the port is closed; the stream is still going.
      checking = eventually(() => connectionRefused(running.port), 2000, 50).then((refused) => {
        refusedWhileStreaming = refused;
      });
    });
    const streamEndedAt = Date.now();
    await checking;
    const exit = await running.exited;
    const exitedAfterMs = Date.now() - sigtermAt;

    expect(sigtermAt).toBeGreaterThan(0);
    expect(read.error).toBeNull();
    expect(read.events.at(-1)?.event).toBe('done');
    const done = read.events.at(-1)!.data;
    const tokens = read.events.filter((e) => e.event === 'token').map((e) => e.data.delta).join('');
    expect(tokens).toBe(done.response);
    // The stream really was in flight: it went on for a while after the signal.
    expect(streamEndedAt - sigtermAt).toBeGreaterThan(500);
    expect(refusedWhileStreaming).toBe(true);
    const exitedAfterStreamMs = sigtermAt + exitedAfterMs - streamEndedAt;
    figures['stream finishes'] = { streamAfterSigtermMs: streamEndedAt - sigtermAt, exitedAfterSigtermMs: exitedAfterMs, exitedAfterStreamEndedMs: exitedAfterStreamMs, exit };
    const shutdownLog = running.output().split('\n').filter((line) => /Shutting down|closed|Shutdown|exiting/i.test(line));
    expect({ exit, withinDeadline: exitedAfterMs < SHUTDOWN_DEADLINE_MS, shutdownLog }).toEqual({ exit: { code: 0, signal: null }, withinDeadline: true, shutdownLog });
    // Once the last request is done nothing is left to wait for: the client's kept-alive
    // connection, idle now, must not hold the shutdown up (to the keep-alive timeout, 5 s,
    // or past the deadline when the stream ran long).
    expect({ exitedAfterStreamMs, promptly: exitedAfterStreamMs < 2000 }).toEqual({ exitedAfterStreamMs, promptly: true });

    // The turn is in the database the process closed.
    const db = await openPgliteDatabase(path.join(dataDir, 'pglite'));
    try {
      const rows = await db.query<{ id: string; seq: number; role: string; content: string }>(
        "select id, seq, role, content from chat_messages where session_id = 'sigterm-finishes' order by seq",
      );
      expect(rows.map((r) => [r.seq, r.role])).toEqual([
        [1, 'user'],
        [2, 'assistant'],
      ]);
      expect(rows[0]!.content).toBe('How long does a refund take?');
      expect(rows[1]).toMatchObject({ id: done.message_id, content: done.response });
      const [session] = await db.query<{ message_count: number }>("select message_count from chat_sessions where session_id = 'sigterm-finishes'");
      expect(session!.message_count).toBe(2);
    } finally {
      await db.close();
    }
  }, REAL_PROCESS_TIMEOUT_MS);

  it('cuts a stream that would outlast the deadline at the deadline, and stores nothing of its turn', async () => {
    // One word a second: the answer takes far longer than the 10 s deadline.
    service = await startServiceProcess({ DATA_DIR: dataDir, OFFLINE_STREAM_DELAY_MS: '1000', LOG_LEVEL: 'info' });
    await waitUntilServing(service);
    const running = service;
    // The first turn survived the restart, through the API too.
    const history = await fetch(`${running.baseURL}/api/v1/chat/history/sigterm-finishes`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
    expect(((await history.json()) as { total: number }).total).toBe(2);

    let sigtermAt = 0;
    const read = await readStream(running.baseURL, { message: 'How long does a refund take?', session_id: 'sigterm-cut' }, (event) => {
      if (event.event !== 'token' || sigtermAt !== 0) return;
      sigtermAt = Date.now();
      running.child.kill('SIGTERM');
    });
    const exit = await running.exited;
    const exitedAfterMs = Date.now() - sigtermAt;

    expect(sigtermAt).toBeGreaterThan(0);
    expect(read.events.some((e) => e.event === 'done')).toBe(false);
    expect(exitedAfterMs).toBeGreaterThanOrEqual(SHUTDOWN_DEADLINE_MS - 500);
    expect(exitedAfterMs).toBeLessThan(SHUTDOWN_DEADLINE_MS + 5000);
    expect(exit.signal).toBeNull();
    expect(typeof exit.code).toBe('number');
    figures['stream outlasting the deadline'] = { exitedAfterSigtermMs: exitedAfterMs, exit, eventsBeforeCut: read.events.length, clientSaw: read.error };

    const db = await openPgliteDatabase(path.join(dataDir, 'pglite'));
    try {
      const [cut] = await db.query<{ n: number }>("select count(*)::int as n from chat_messages where session_id = 'sigterm-cut'");
      expect(cut!.n).toBe(0);
      const [sessions] = await db.query<{ n: number }>("select count(*)::int as n from chat_sessions where session_id = 'sigterm-cut'");
      expect(sessions!.n).toBe(0);
    } finally {
      await db.close();
    }
  }, REAL_PROCESS_TIMEOUT_MS);
});
