/**
 * The console's knowledge gaps in a real Chromium against the real service (PGlite,
 * offline): the gap is listed with its count, reasons and conversations; "Draft an
 * article" fills an editable draft from the conversation a person answered, with nothing
 * personal in it; Publish puts it in the knowledge base in one step, and the next customer
 * asking it is answered from it.
 */
import type { Browser, Page } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, type TestPage } from '../support/browser';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;
let page: Page;

const ANSWERED_IN = 'gap-page-1';

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
  for (const [sessionId, message] of [
    [ANSWERED_IN, 'Do you engrave products?'],
    ['gap-page-2', 'Can you engrave the products you sell?'],
  ]) {
    expect((await service.postChat({ session_id: sessionId, message })).body.escalated).toBe(true);
  }
  expect((await service.request('POST', `/api/v1/conversations/${ANSWERED_IN}/takeover`, { agent_name: 'Rosalind' })).status).toBe(200);
  const reply = 'Hi there,\nYes: engraving costs 9 euros per item and adds two working days. Questions? Write to rosalind@example.org.\nBest,\nRosalind';
  expect((await service.request('POST', `/api/v1/conversations/${ANSWERED_IN}/replies`, { content: reply })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});
beforeEach(async () => {
  opened = await openTestPage(browser, { width: 1280, height: 900 });
  page = opened.page;
});
afterEach(() => closeTestPage(opened));

test('an agent sees a gap, drafts an article from it, edits it and publishes it in one step', async () => {
  await page.goto(`${service.baseURL}/review`);
  await page.keyboard.type(TEST_AGENT_KEY);
  await page.keyboard.press('Enter');
  await page.locator('#session-list button.session').first().waitFor();
  await page.locator('#view-knowledge').click();

  const gap = page.locator('#gaps li', { hasText: 'engrav' });
  await gap.waitFor();
  const listed = (await gap.textContent())!;
  expect(listed).toContain('asked 2 times');
  expect(listed).toContain('not in the help center 2×');
  expect(await gap.locator('a').count()).toBe(2);

  await gap.locator('button.draft-gap').click();
  await page.locator('#draft-form').waitFor({ state: 'visible' });
  expect(await page.locator('#draft-body').inputValue()).toBe('Yes: engraving costs 9 euros per item and adds two working days. Questions? Write to [e-mail].');
  expect(await page.locator('#draft-title').inputValue()).toBe('Do you engrave products?');
  const source = await page.locator('#draft-source').inputValue();
  expect(source).toMatch(/^learned\/.+\.md$/);

  await page.locator('#draft-title').fill('Do you engrave products, and what does it cost?');
  await page.locator('#draft-body').fill('Engraving costs 9 euros per item and adds two working days to the delivery.');
  await page.locator('#draft-form button[type="submit"]').click();
  await page.waitForFunction(() => (globalThis as any).document.getElementById('draft-status').textContent.startsWith('Published'));
  expect(await page.locator('#draft-status').textContent()).toBe(`Published “Do you engrave products, and what does it cost?” as ${source}.`);
  expect(await page.locator('#draft-form').isHidden()).toBe(true);

  // The same question in a new conversation was escalated before publishing.
  const next = await service.postChat({ message: 'Do you engrave products?' });
  expect(next.body.escalated).toBe(false);
  expect(next.body.sources.map((s: any) => s.source)).toContain(source);
});
