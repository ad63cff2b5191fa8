/**
 * The console's Knowledge page shows the site syncs, in a real Chromium against the
 * real service (PGlite, offline): KNOWLEDGE_SYNC_URLS names a help-center site on
 * loopback and a site that cannot be reached; the service syncs both soon after start,
 * and the page lists each run (site, status, start, end, counts, and why it failed),
 * keyboard-reachable and legible (WCAG AA contrast).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { pageInSiteChrome, sitemapXml, startLoopbackSite, type LoopbackSite } from '../../scripts/lib/loopback-site';
import { ARTIFACTS_DIR, closeTestPage, contrastRatio, launchBrowser, openTestPage, textColours, type TestPage } from '../support/browser';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

let site: LoopbackSite;
let unreachable: string;
let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;
let page: Page;

/** A loopback port nobody listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  site = await startLoopbackSite({
    '/help/store-pickup': pageInSiteChrome({ title: 'Store pickup', articleHtml: '<p>Orders placed before noon are ready for pickup at the store the same day.</p>' }),
    '/help/warranty': pageInSiteChrome({ title: 'Warranty', articleHtml: '<p>Every bicycle carries a five-year warranty on its frame.</p>' }),
  });
  site.set('/sitemap.xml', {
    contentType: 'application/xml',
    body: sitemapXml([{ loc: `${site.origin}/help/store-pickup` }, { loc: `${site.origin}/help/warranty` }]),
  });
  unreachable = `http://127.0.0.1:${await closedPort()}/sitemap.xml`;
  [service, browser] = await Promise.all([
    startTestService({ env: { KNOWLEDGE_SYNC_URLS: `${site.origin}/sitemap.xml,${unreachable}`, KNOWLEDGE_SYNC_ALLOW_PRIVATE_NETWORK: 'true', KNOWLEDGE_SYNC_INTERVAL_MINUTES: '60' } }),
    launchBrowser(),
  ]);
  // Both sites' first runs are recorded soon after start.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await service.request('GET', '/api/v1/knowledge/syncs');
    if (body.syncs?.filter((s: { finished_at: string | null }) => s.finished_at !== null).length === 2) break;
    if (Date.now() > deadline) throw new Error(`The sync runs were not recorded: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The service's start (PGlite, migrations, the help center) takes a minute on a loaded machine.
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await site?.close();
});
beforeEach(async () => {
  opened = await openTestPage(browser, { width: 1280, height: 900 });
  page = opened.page;
});
afterEach(() => closeTestPage(opened));

test("the knowledge page lists each site sync run: the site's pages added, and the unreachable site's run failed with its reason", async () => {
  await page.goto(`${service.baseURL}/review`);
  await page.keyboard.type(TEST_AGENT_KEY);
  await page.keyboard.press('Enter');
  await page.locator('#view-knowledge').waitFor();
  await page.locator('#view-knowledge').focus();
  await page.keyboard.press('Enter');
  const rows = page.locator('#sync-runs-body tr');
  await rows.nth(1).waitFor();
  expect(await rows.count()).toBe(2);

  const succeeded = page.locator(`#sync-runs-body tr[data-status="succeeded"]`);
  await expect(succeeded.locator('td.site').textContent()).resolves.toContain(`${site.origin}/sitemap.xml`);
  await expect(succeeded.locator('td.site').textContent()).resolves.toContain('scheduled');
  await expect(succeeded.locator('.sync-status').textContent()).resolves.toBe('Succeeded');
  const succeededText = (await succeeded.textContent()) ?? '';
  expect(succeededText).toContain('2 added');
  expect(succeededText).toMatch(/\d+ chunks embedded/);
  expect(succeededText).not.toContain('still running');

  const failed = page.locator(`#sync-runs-body tr[data-status="failed"]`);
  await expect(failed.locator('td.site').textContent()).resolves.toContain(unreachable);
  await expect(failed.locator('.sync-status').textContent()).resolves.toBe('Failed');
  const { body } = await service.request('GET', '/api/v1/knowledge/syncs');
  const failedRun = body.syncs.find((s: { status: string }) => s.status === 'failed');
  expect(failedRun.message).toEqual(expect.any(String));
  await expect(failed.textContent()).resolves.toContain(failedRun.message);
  // Start and end are shown as times.
  expect(await failed.locator('time').count()).toBe(2);

  // Legible, like the rest of the console.
  const colours = await textColours(page, '.syncs');
  expect(colours.length).toBeGreaterThan(5);
  expect(colours.map((c) => ({ ...c, ratio: Number(contrastRatio(c.color, c.background).toFixed(2)) })).filter((c) => c.ratio < 4.5)).toEqual([]);
  await fs.mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.locator('.syncs').screenshot({ path: path.join(ARTIFACTS_DIR, 'knowledge-syncs.png') });
});
