/**
 * Erasing a conversation from the review console, in a real Chromium against the
 * real service (embedded PGlite, offline model): the action asks for confirmation
 * first, Cancel keeps the conversation, and confirming erases it everywhere.
 */
import type { Browser, Page } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, saveScreenshot, type TestPage } from '../support/browser';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;
let page: Page;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
  for (const [sessionId, message] of [
    ['erase-keep', 'Do you deliver to Norway?'],
    ['erase-me', 'My card ending 4242 was charged twice'],
  ]) {
    expect((await service.postChat({ message, session_id: sessionId })).status).toBe(200);
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
});
beforeEach(async () => {
  opened = await openTestPage(browser, { width: 1280, height: 900 });
  page = opened.page;
});
afterEach(() => closeTestPage(opened));

test('the erase action asks first; Cancel keeps the conversation, confirming erases it and takes it off the list', async () => {
  await page.goto(`${service.baseURL}/review#session=erase-me`);
  await page.getByLabel('Agent key').fill(TEST_AGENT_KEY);
  await page.getByLabel('Agent key').press('Enter');
  await page.locator('#transcript .entry').first().waitFor();
  const start = page.getByRole('button', { name: 'Erase this conversation…' });
  await start.click();
  const question = page.getByRole('alertdialog');
  await expect(question.textContent()).resolves.toContain('cannot be undone');
  await saveScreenshot(page, 'review-erase-confirm');
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(await question.isVisible()).toBe(false);
  expect((await service.getHistory('erase-me')).status).toBe(200);

  await start.click();
  await page.getByRole('button', { name: 'Erase for good' }).click();
  await page.locator('#detail-status', { hasText: 'was erased' }).waitFor();
  await expect(page.locator('#detail-status').textContent()).resolves.toContain('Conversation erase-me was erased (2 messages)');
  expect((await service.getHistory('erase-me')).status).toBe(404);
  expect((await service.getHistory('erase-keep')).status).toBe(200);
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('#session-list button.session[data-session-id="erase-me"]'));
  expect(await page.locator('#session-list button.session[data-session-id="erase-keep"]').count()).toBe(1);
  // Off the waiting queue too (both conversations were escalated offline).
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('#waiting-list button[data-session-id="erase-me"]'));
  expect(await page.locator('#waiting-list button[data-session-id="erase-keep"]').count()).toBe(1);
  expect(await page.locator('#erase-panel').isVisible()).toBe(false);
  const audit = await service.request('GET', '/api/v1/audit/erasures');
  expect(audit.body.erasures[0]).toMatchObject({ actor: 'agent', scope: 'conversation', counts: { conversations: 1, messages: 2 } });
});
