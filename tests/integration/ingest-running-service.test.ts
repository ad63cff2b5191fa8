/**
 * `npm run ingest` while the service runs on the embedded default: the service holds
 * the PGlite folder, so the command finds it through DATA_DIR/service-url and sends
 * the files through the knowledge API. `--prune` removes the sources of files that are
 * gone (only under the given folder); `--dry-run` says what would change and changes
 * nothing. Real processes: the service (tsx) and the command (scripts/ingest.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { helpArticlePage, noTextPdf, threePagePdf } from '../support/documents';
import { startServiceProcess, stopServiceProcess, tsxNodeArgs, waitUntilServing, type ServiceProcess } from '../support/processes';
import { makeTempDir, REPO_ROOT, TEST_AGENT_KEY } from '../support/test-service';

let dir: string;
let service: ServiceProcess;

const article = (title: string, body: string) => `# ${title}\n\n${body}\n`;

function ingest(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, tsxNodeArgs(path.join(REPO_ROOT, 'scripts/ingest.ts')).concat(args), {
    cwd: dir,
    env: { PATH: process.env.PATH, DATA_DIR: path.join(dir, 'data'), AGENT_API_KEY: TEST_AGENT_KEY, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

async function api(method: string, url: string, body?: string) {
  const response = await fetch(`${service.baseURL}${url}`, {
    method,
    headers: { authorization: `Bearer ${TEST_AGENT_KEY}`, ...(body && { 'content-type': 'text/markdown' }) },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const sources = async () => (await api('GET', '/api/v1/knowledge/sources')).body.sources as { source: string; content_hash: string }[];

beforeAll(async () => {
  dir = await makeTempDir('support-agent-ingest-');
  await fs.mkdir(path.join(dir, 'help'));
  await fs.writeFile(path.join(dir, 'help/returns.md'), article('Returns', 'Returns are accepted within 30 days of delivery.'));
  await fs.writeFile(path.join(dir, 'help/warranty.md'), article('Warranty', 'Furniture carries a two year warranty against defects.'));
  await fs.writeFile(path.join(dir, 'help/assembly.md'), article('Assembly', 'Assembly service is available in Berlin and Hamburg.'));
  service = await startServiceProcess({ DATA_DIR: path.join(dir, 'data'), KNOWLEDGE_SEED_DIR: 'none' });
  await waitUntilServing(service);
}, 120_000);
afterAll(async () => {
  await stopServiceProcess(service);
});

test('ingests a folder through the running service, then syncs it: dry run first, then adds, updates and removes as the folder says', async () => {
  const first = await ingest('help');
  expect(first.stderr).toContain(`the service at ${service.baseURL}`);
  expect(first.code).toBe(0);
  expect(first.stdout).toMatch(/3 files \(3 added, 0 updated, 0 unchanged\)/);
  expect(first.stderr).toMatch(/\[1\/3\] added\s+help\/assembly\.md/);
  expect((await sources()).map((s) => s.source)).toEqual(['help/assembly.md', 'help/returns.md', 'help/warranty.md']);

  // Something outside the folder (uploaded through the API) is not the folder's to prune.
  expect((await api('PUT', `/api/v1/knowledge/sources/${encodeURIComponent('kb/gift-cards.md')}`, article('Gift Cards', 'Gift cards never expire.'))).status).toBe(201);

  await fs.writeFile(path.join(dir, 'help/warranty.md'), article('Warranty', 'Furniture now carries a five year warranty against defects.'));
  await fs.rm(path.join(dir, 'help/assembly.md'));
  await fs.writeFile(path.join(dir, 'help/delivery-slots.md'), article('Delivery Slots', 'Evening delivery slots run from 18:00 to 21:00 on weekdays.'));
  const before = await sources();

  const dry = await ingest('--prune', '--dry-run', 'help');
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain('Dry run, nothing changed: 3 files would be 1 added, 1 updated, 1 unchanged, 1 removed');
  expect(dry.stderr).toMatch(/added\s+help\/delivery-slots\.md/);
  expect(dry.stderr).toMatch(/updated\s+help\/warranty\.md/);
  expect(dry.stderr).toMatch(/unchanged\s+help\/returns\.md/);
  expect(dry.stderr).toMatch(/removed\s+help\/assembly\.md/);
  expect(await sources()).toEqual(before);

  const sync = await ingest('--prune', 'help');
  expect(sync.code).toBe(0);
  expect(sync.stdout).toMatch(/3 files \(1 added, 1 updated, 1 unchanged, 1 removed\)/);
  expect(sync.stderr).toMatch(/\[4\/4\] removed\s+help\/assembly\.md/);
  expect((await sources()).map((s) => s.source)).toEqual(['help/delivery-slots.md', 'help/returns.md', 'help/warranty.md', 'kb/gift-cards.md']);

  // Answered from the new article at once, and never from the removed or old wording.
  const answer = await fetch(`${service.baseURL}/api/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'When are the evening delivery slots?' }),
  }).then((r) => r.json() as Promise<any>);
  expect(answer.sources.map((s: any) => s.source)).toContain('help/delivery-slots.md');
  expect(answer.response).toContain('18:00');
  const warranty = await api('GET', `/api/v1/knowledge/sources/${encodeURIComponent('help/warranty.md')}`);
  expect(warranty.body.chunks.map((c: any) => c.content).join(' ')).toContain('five year');

  const again = await ingest('--prune', 'help');
  expect(again.stdout).toMatch(/3 files \(0 added, 0 updated, 3 unchanged, 0 removed\)/);
}, 120_000);

test('sends a PDF page by page and a web page through the running service, and reports a scan as skipped with why', async () => {
  await fs.mkdir(path.join(dir, 'manuals'));
  await fs.writeFile(path.join(dir, 'manuals/kettle.pdf'), await threePagePdf());
  await fs.writeFile(path.join(dir, 'manuals/scan.pdf'), await noTextPdf());
  await fs.writeFile(path.join(dir, 'manuals/refunds.html'), helpArticlePage());

  const result = await ingest('manuals');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/3 files \(2 added, 0 updated, 0 unchanged, 1 skipped\)/);
  expect(result.stderr).toMatch(/skipped\s+manuals\/scan\.pdf \(no_text_layer: The PDF has no text layer/);
  expect((await sources()).map((s) => s.source)).toEqual(expect.arrayContaining(['manuals/kettle.pdf', 'manuals/refunds.html']));
  expect((await sources()).map((s) => s.source)).not.toContain('manuals/scan.pdf');

  // The pages survived the trip through the API: the answer cites the manual's page.
  const answer = await fetch(`${service.baseURL}/api/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Where do I send the serial number from the base plate of my kettle?' }),
  }).then((r) => r.json() as Promise<any>);
  expect(answer.sources.find((s: any) => s.source === 'manuals/kettle.pdf')).toMatchObject({ page: 3 });

  const again = await ingest('manuals');
  expect(again.stdout).toMatch(/3 files \(0 added, 0 updated, 2 unchanged, 1 skipped\)/);

  // A document over the service's KNOWLEDGE_DOCUMENT_MAX_BYTES is skipped with why; the rest goes on.
  await fs.writeFile(path.join(dir, 'manuals/huge.md'), article('Huge', 'All about kettles. '.repeat(20_000)));
  const big = await ingest('manuals');
  expect(big.code).toBe(0);
  expect(big.stderr).toMatch(/skipped\s+manuals\/huge\.md \(too_large: A document may be at most 262144 bytes/);
  expect(big.stdout).toMatch(/4 files \(0 added, 0 updated, 2 unchanged, 2 skipped\)/);
  await fs.rm(path.join(dir, 'manuals/huge.md'));
}, 180_000);

test('bad usage is refused with the usage text', async () => {
  const result = await ingest('--purge', 'help');
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('Unknown option: --purge');
  expect(result.stderr).toContain('--dry-run');
});
