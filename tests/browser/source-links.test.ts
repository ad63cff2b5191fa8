/**
 * Citations that link: a PDF uploaded with the address it lives at, asked about in the
 * widget, then read in the review console; in a real Chromium against the real service
 * (embedded PGlite, offline model).
 */
import type { Browser } from 'playwright-core';
import { threePagePdf } from '../support/documents';
import { closeTestPage, launchBrowser, openTestPage, type TestPage } from '../support/browser';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const MANUAL_URL = 'https://acme.test/files/lumen-manual.pdf';
const SOURCE = 'manuals/lumen-manual.pdf';
const QUESTION = 'Where do I send the serial number from the base plate of my kettle?';

let service: TestService;
let browser: Browser;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
  const response = await fetch(`${service.baseURL}/api/v1/knowledge/sources/${encodeURIComponent(SOURCE)}?url=${encodeURIComponent(MANUAL_URL)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/pdf', authorization: `Bearer ${TEST_AGENT_KEY}` },
    body: Buffer.from(await threePagePdf()),
  });
  expect(response.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

let opened: TestPage | undefined;
afterEach(() => closeTestPage(opened));

test('the widget shows a source that came from a URL as a link to it, opening in a new tab at the cited PDF page', async () => {
  opened = await openTestPage(browser, { width: 1280, height: 800 });
  const { page } = opened;
  await page.goto(`${service.baseURL}/`);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  await page.getByRole('textbox', { name: 'Your message' }).fill(QUESTION);
  await page.getByRole('textbox', { name: 'Your message' }).press('Enter');
  const answer = page.locator('[data-support-widget] .message.assistant:not(.welcome):not([aria-busy])').first();
  await answer.getByText('Sources').waitFor();

  const item = answer.locator('.sources li').filter({ hasText: SOURCE });
  const link = item.getByRole('link', { name: 'lumen-manual' });
  expect(await link.getAttribute('href')).toBe(`${MANUAL_URL}#page=3`);
  expect(await link.getAttribute('target')).toBe('_blank');
  expect((await link.getAttribute('rel'))?.split(/\s+/)).toContain('noopener');
  expect(await item.textContent()).toContain('(page 3)');
  // A help-center article without a url stays text, not a link.
  const plain = answer.locator('.sources li').filter({ hasText: 'knowledge/help-center/' });
  if ((await plain.count()) > 0) expect(await plain.first().getByRole('link').count()).toBe(0);
});

test('the review console shows the cited source with its link, page and url', async () => {
  const asked = await service.postChat({ message: QUESTION, session_id: 'manual-reader' });
  expect(asked.body.sources.find((s: any) => s.source === SOURCE)).toMatchObject({ url: MANUAL_URL, page: 3 });

  opened = await openTestPage(browser, { width: 1280, height: 900 });
  const { page } = opened;
  await page.goto(`${service.baseURL}/review#session=manual-reader`);
  await page.getByLabel('Agent key').fill(TEST_AGENT_KEY);
  await page.getByLabel('Agent key').press('Enter');
  const item = page.locator('#transcript .entry.assistant .sources li').filter({ hasText: SOURCE }).first();
  await item.waitFor();
  const link = item.getByRole('link', { name: 'lumen-manual' });
  expect(await link.getAttribute('href')).toBe(`${MANUAL_URL}#page=3`);
  expect(await link.getAttribute('target')).toBe('_blank');
  expect((await link.getAttribute('rel'))?.split(/\s+/)).toContain('noopener');
  expect(await item.textContent()).toContain('(page 3)');
  expect(await item.textContent()).toContain(MANUAL_URL);
});
