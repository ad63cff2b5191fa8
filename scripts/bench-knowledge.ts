/**
 * npm run bench:knowledge [-- --seconds 8]
 *
 * What the knowledge API costs on the embedded default (PGlite files, offline
 * embedder, the service in this process on a loopback port): the time of a PUT per
 * help-center article when added, unchanged and edited; chat latency with four
 * customers chatting, without and then with an article replaced in a loop; and how
 * soon after a PUT returns a question is answered from the new text. Prints the
 * tables and records them in BENCHMARKS.md.
 */
import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createDependencies } from '../src/dependencies';
import { findSourceFiles } from '../src/knowledge/ingest';
import { createLogger } from '../src/observability/logger';
import { writeMarkedSection } from './lib/benchmarks-file';

const REPO_ROOT = path.resolve(__dirname, '..');
const BENCHMARKS_FILE = path.join(REPO_ROOT, 'BENCHMARKS.md');
const MARKERS = { start: '<!-- bench-knowledge:start -->', end: '<!-- bench-knowledge:end -->' };
const KEY = 'bench-agent-key';
const CUSTOMERS = 4;

const progress = (message: string) => console.error(`[bench:knowledge] ${message}`);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(1));

async function main(): Promise<void> {
  const secondsArg = process.argv.indexOf('--seconds');
  const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 8;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-knowledge-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    AGENT_API_KEY: KEY,
    KNOWLEDGE_SEED_DIR: 'none',
    LOG_LEVEL: 'silent',
    OFFLINE_STREAM_DELAY_MS: '0',
    RATE_LIMIT_PER_CLIENT: '1000000',
    RATE_LIMIT_PER_SESSION: '1000000',
  });
  progress(`starting the service on PGlite files in ${dataDir}`);
  const deps = await createDependencies(config, createLogger('silent'));
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps.appParts).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const timed = async (method: string, url: string, body?: string, type = 'text/markdown') => {
    const startedAt = performance.now();
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined && { 'content-type': type }) },
      body,
    });
    const json = (await response.json()) as any;
    return { status: response.status, json, ms: performance.now() - startedAt };
  };
  const sourcePath = (source: string) => `/api/v1/knowledge/sources/${encodeURIComponent(source)}`;

  try {
    const files = await findSourceFiles([path.join(REPO_ROOT, 'knowledge/help-center')], REPO_ROOT);
    const texts = await Promise.all(files.map((f) => fs.readFile(f.file, 'utf8')));
    const puts: Record<'added' | 'unchanged' | 'updated', number[]> = { added: [], unchanged: [], updated: [] };
    let chunks = 0;
    for (const edit of ['added', 'unchanged', 'updated'] as const) {
      progress(`PUT ${files.length} articles (${edit})`);
      for (const [i, file] of files.entries()) {
        const text = edit === 'updated' ? `${texts[i]}\n\nLast reviewed by the support team this week.\n` : texts[i]!;
        const result = await timed('PUT', sourcePath(file.source), text);
        if (result.json.outcome !== edit) throw new Error(`expected ${edit}, got ${result.status} ${JSON.stringify(result.json)}`);
        puts[edit].push(result.ms);
        if (edit === 'added') chunks += result.json.chunk_count;
      }
    }

    const chat = async (message: string, session: string) => {
      const startedAt = performance.now();
      const response = await fetch(`${base}/api/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ message, session_id: session }),
      });
      const json = (await response.json()) as any;
      return { ok: response.status === 200, json, ms: performance.now() - startedAt };
    };
    const QUESTION = 'How long does a refund take?';
    const runCustomers = async (label: string, whileRunning: () => Promise<void>) => {
      const latencies: number[] = [];
      let errors = 0;
      let stop = false;
      const customers = Array.from({ length: CUSTOMERS }, async (_, c) => {
        for (let turn = 0; !stop; turn++) {
          const result = await chat(QUESTION, `bench-${label}-${c}-${turn % 3}`);
          latencies.push(result.ms);
          if (!result.ok) errors++;
        }
      });
      const timer = new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));
      await Promise.all([timer.then(() => (stop = true)), whileRunning(), ...customers]);
      return { latencies, errors };
    };

    progress(`${CUSTOMERS} customers chat for ${seconds} s, no updates`);
    const quiet = await runCustomers('quiet', async () => {});

    progress(`${CUSTOMERS} customers chat for ${seconds} s while refunds.md is replaced in a loop`);
    const refunds = files.findIndex((f) => f.source.endsWith('refunds.md'));
    const updateTimes: number[] = [];
    const visibleAfter: number[] = [];
    let updating = true;
    setTimeout(() => (updating = false), seconds * 1000);
    const busy = await runCustomers('busy', async () => {
      for (let edition = 1; updating; edition++) {
        const marker = `Refund desk edition ${edition}.`;
        const put = await timed('PUT', sourcePath(files[refunds]!.source), `${texts[refunds]}\n\n${marker}\n`);
        if (put.status !== 200) throw new Error(`PUT failed: ${put.status} ${JSON.stringify(put.json)}`);
        updateTimes.push(put.ms);
        // How soon a question finds the new text: the first chat after the PUT returned.
        const startedAt = performance.now();
        const answer = await chat(`${QUESTION} Which refund desk edition?`, `bench-visible-${edition}`);
        if (answer.json.response?.includes(marker)) visibleAfter.push(performance.now() - startedAt);
      }
    });

    const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}, ${process.platform} ${process.arch}`;
    const putTable = [
      '| PUT of a help-center article | articles | p50 ms | p95 ms | max ms |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...(['added', 'unchanged', 'updated'] as const).map(
        (k) => `| ${k} | ${puts[k].length} | ${ms(percentile(puts[k], 50))} | ${ms(percentile(puts[k], 95))} | ${ms(Math.max(...puts[k]))} |`,
      ),
    ].join('\n');
    const chatTable = [
      `| ${CUSTOMERS} customers chatting for ${seconds} s | answers | errors | p50 ms | p95 ms | max ms |`,
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      `| no updates | ${quiet.latencies.length} | ${quiet.errors} | ${ms(percentile(quiet.latencies, 50))} | ${ms(percentile(quiet.latencies, 95))} | ${ms(Math.max(...quiet.latencies))} |`,
      `| refunds.md replaced in a loop (${updateTimes.length} PUTs, p50 ${ms(percentile(updateTimes, 50))} ms) | ${busy.latencies.length} | ${busy.errors} | ${ms(percentile(busy.latencies, 50))} | ${ms(percentile(busy.latencies, 95))} | ${ms(Math.max(...busy.latencies))} |`,
    ].join('\n');
    const visible = `After a PUT returned, the next question quoted the new edition in ${visibleAfter.length} of ${updateTimes.length} cases, answered in ${ms(percentile(visibleAfter, 50))} ms (p50), ${ms(Math.max(...visibleAfter))} ms at most.`;

    const section = [
      MARKERS.start,
      '## `npm run bench:knowledge` (scripts/bench-knowledge.ts)',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Machine: ${machine}; load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared: figures under load)`,
      `- The service in-process on PGlite files (the embedded default), offline embedder and responder; the ${files.length} help-center articles (${chunks} chunks) through \`PUT /api/v1/knowledge/sources/{source}\`. "updated" appends one sentence: only the last chunk is embedded again.`,
      '',
      putTable,
      '',
      chatTable,
      '',
      visible,
      MARKERS.end,
    ].join('\n');
    console.log(`\n${putTable}\n\n${chatTable}\n\n${visible}`);
    writeMarkedSection(BENCHMARKS_FILE, MARKERS, section);
    progress(`recorded in ${path.relative(process.cwd(), BENCHMARKS_FILE)}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await deps.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error('bench:knowledge failed:', error);
  process.exit(1);
});
