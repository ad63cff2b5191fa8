/**
 * The shop file's words in the customer widget, in a real Chromium against the
 * real service started with SHOP_FILE (embedded PGlite, offline model): the
 * panel's title, subtitle and welcome come from the server, and an escalated
 * answer ends with the shop's offer of a person.
 */
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, type TestPage } from '../support/browser';
import { REPO_ROOT, startTestService, type TestService } from '../support/test-service';

const SHOP_FILE = path.join(REPO_ROOT, 'tests/fixtures/shops/pine-and-pebble/shop.yaml');

let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ env: { SHOP_FILE } }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});
afterEach(() => closeTestPage(opened));

test("the widget shows the shop file's title, subtitle and welcome, and its offer of a person on an escalated answer", async () => {
  opened = await openTestPage(browser, { width: 1280, height: 800 });
  const { page } = opened;
  await page.goto(`${service.baseURL}/`);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const panel = page.locator('[data-support-widget] #panel');
  await expect(panel.locator('#panel-title').textContent()).resolves.toBe('Pine & Pebble help');
  await expect(panel.locator('.subtitle').textContent()).resolves.toBe('Gardeners answer on weekdays');
  await expect(panel.locator('.message.welcome').textContent()).resolves.toBe('Welcome to Pine & Pebble help! Ask about deliveries, plants or returns.');
  // The page at / is titled as the widget is: the shop file's title for its default language.
  expect(await page.title()).toBe('Pine & Pebble help');

  const input = page.getByRole('textbox', { name: 'Your message' });
  await input.fill('Who won the football world cup in 1954?');
  await input.press('Enter');
  const answer = panel.locator('.message.assistant:not(.welcome):not([aria-busy])');
  await answer.first().waitFor();
  await expect(answer.first().textContent()).resolves.toContain('a gardener can take over this chat if you like');
});
