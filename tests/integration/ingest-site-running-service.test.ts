/**
 * `npm run ingest -- <site>` while the service runs on the embedded default: the
 * command asks the service to sync the loopback site (POST /api/v1/knowledge/syncs),
 * which keeps the crawl state and records the run as its schedule does, and prints the
 * run once it ends; a page gone from the site is removed on the next run. Real
 * processes: the service (tsx) and the command (scripts/ingest.ts).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pageInSiteChrome, SITE_CHROME_TEXT, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { startServiceProcess, stopServiceProcess, tsxNodeArgs, waitUntilServing, type ServiceProcess } from '../support/processes';
import { makeTempDir, REPO_ROOT, TEST_AGENT_KEY } from '../support/test-service';

let dir: string;
let service: ServiceProcess;
let site: LoopbackSite;

// The site runs on loopback: crawling it is the operator's explicit choice.
function ingest(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, tsxNodeArgs(path.join(REPO_ROOT, 'scripts/ingest.ts')).concat(['--allow-private-network', ...args]), {
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

async function api(url: string) {
  const response = await fetch(`${service.baseURL}${url}`, { headers: { authorization: `Bearer ${TEST_AGENT_KEY}` } });
  return (await response.json()) as any;
}

const ARTICLES: Record<string, string> = {
  '/help/returns': 'Returns are accepted within 30 days of delivery when the item is unused.',
  '/help/warranty': 'Furniture carries a two year warranty against defects in materials.',
  '/help/assembly': 'Assembly service is available in Berlin and Hamburg for a fee of 49 euros.',
};

beforeAll(async () => {
  dir = await makeTempDir('support-agent-ingest-site-');
  site = await startLoopbackSite();
  for (const [p, text] of Object.entries(ARTICLES)) site.set(p, pageInSiteChrome({ title: p.slice(6), articleHtml: `<p>${text}</p>` }));
  site.set('/sitemap.xml', { contentType: 'application/xml', body: sitemapXml(Object.keys(ARTICLES).map((p) => ({ loc: `${site.origin}${p}` }))) });
  service = await startServiceProcess({ DATA_DIR: path.join(dir, 'data'), KNOWLEDGE_SEED_DIR: 'none' });
  await waitUntilServing(service, 240_000);
}, 300_000);
afterAll(async () => {
  await stopServiceProcess(service);
  await site?.close();
});

test('syncs a site through the running service: pages stored under their URL without chrome, then a gone page held back as too large a share, and removed with --prune', async () => {
  const first = await ingest(`${site.origin}/sitemap.xml`);
  // On a mismatch, the command's own words say why.
  if (first.code !== 0) throw new Error(`npm run ingest exited ${first.code}:\n${first.stderr}\n${first.stdout}\nThe service:\n${service.output()}`);
  expect(first.stderr).toMatch(new RegExp(`Syncing ${site.origin}/sitemap\\.xml in the service at ${service.baseURL} \\(run #\\d+\\)`));
  expect(first.stdout).toMatch(/\/sitemap\.xml: succeeded in [\d.]+s: 3 fetched, 3 added, 0 updated, 0 unchanged, 0 skipped, 0 failed, 0 removed; \d+ chunks embedded\. Run #\d+ recorded by the service\./);
  expect(first.code).toBe(0);
  // Recorded as the schedule's runs are, started by the command through the API.
  const runs = (await api(`/api/v1/knowledge/syncs?site=${encodeURIComponent(`${site.origin}/sitemap.xml`)}`)).syncs;
  expect(runs).toEqual([expect.objectContaining({ trigger: 'api', status: 'succeeded' })]);

  const listed = (await api('/api/v1/knowledge/sources')).sources.map((s: { source: string }) => s.source);
  expect(listed).toEqual(Object.keys(ARTICLES).map((p) => `${site.origin}${p}`).sort());
  const returns = await api(`/api/v1/knowledge/sources/${encodeURIComponent(`${site.origin}/help/returns`)}`);
  const text = returns.chunks.map((c: { content: string }) => c.content).join('\n');
  expect(text).toContain('within 30 days');
  for (const chrome of Object.values(SITE_CHROME_TEXT)) expect(text).not.toContain(chrome);

  // One page of three gone is more than KNOWLEDGE_SYNC_MAX_REMOVAL_PERCENT (20): held, exit status 3, until --prune.
  site.remove('/help/assembly');
  const held = await ingest(`${site.origin}/sitemap.xml`);
  expect(held.stdout).toMatch(/held in [\d.]+s: .*0 removed, 1 removals held; 0 chunks embedded/);
  expect(held.stdout).toMatch(/1 of the site's 3 pages \(33%\) are gone.*run: npm run ingest -- --prune http/);
  expect(held.code).toBe(3);
  expect((await api('/api/v1/knowledge/sources')).sources).toHaveLength(3);
  // The crawl state was kept: the pages still there were asked for with their ETags, and answered 304.
  expect(site.requests.filter((r) => r.path === '/help/returns').map((r) => r.status)).toEqual([200, 304]);

  const pruned = await ingest('--prune', `${site.origin}/sitemap.xml`);
  expect(pruned.stdout).toMatch(/succeeded in [\d.]+s: .*2 unchanged, 1 skipped, 0 failed, 1 removed; 0 chunks embedded/);
  expect(pruned.code).toBe(0);
  const after = (await api('/api/v1/knowledge/sources')).sources.map((s: { source: string }) => s.source);
  expect(after).not.toContain(`${site.origin}/help/assembly`);
  expect(after).toHaveLength(2);
}, 120_000);
