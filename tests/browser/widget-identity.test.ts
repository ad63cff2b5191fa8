/**
 * The demo shop page's two modes in a real Chromium against the real service
 * (embedded PGlite, offline model, no CUSTOMER_IDENTITY_SECRET: the demo secret is
 * generated into DATA_DIR): an anonymous visitor, whose order question is answered
 * only with proof, and the signed-in sample customer, whose token the demo server
 * signs into the widget's data-user-token and the widget sends as X-Customer-Token.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, saveScreenshot, type TestPage } from '../support/browser';
import { startTestService, type TestService } from '../support/test-service';

const ORDER_QUESTION = 'Where is my order ZX-14440?';

let service: TestService;
let browser: Browser;
let page: Page;
let opened: TestPage | undefined;

beforeAll(async () => {
  // An empty secret is an unset one: the embedded default generates the demo's.
  [service, browser] = await Promise.all([startTestService({ env: { CUSTOMER_IDENTITY_SECRET: '', OFFLINE_STREAM_DELAY_MS: '0' } }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});
beforeEach(async () => {
  opened = await openTestPage(browser, { width: 1280, height: 800 });
  ({ page } = opened);
});
afterEach(() => closeTestPage(opened));

const widget = (selector: string) => page.locator(`[data-support-widget] ${selector}`);
const messageInput = () => page.getByRole('textbox', { name: 'Your message' });

async function ask(question: string): Promise<string> {
  const before = await widget('.message.assistant:not(.welcome)').count();
  await messageInput().fill(question);
  await messageInput().press('Enter');
  await page.waitForFunction(
    (count) => (globalThis as any).document.querySelector('[data-support-widget]').shadowRoot.querySelectorAll('.message.assistant:not(.welcome):not([aria-busy])').length > count,
    before,
  );
  return (await widget('.message.assistant:not(.welcome)').nth(before).textContent()) ?? '';
}

async function storedKeys(): Promise<string[]> {
  return page.evaluate(() => Object.keys((globalThis as any).localStorage).filter((k: string) => k.startsWith('support-widget:') && !k.endsWith(':open')));
}

test('the demo secret is generated into DATA_DIR, readable by its owner only', async () => {
  const stat = await fs.stat(path.join(service.dataDir, 'customer-identity-secret'));
  expect(stat.mode & 0o777).toBe(0o600);
  expect((await fs.readFile(path.join(service.dataDir, 'customer-identity-secret'), 'utf8')).trim().length).toBeGreaterThanOrEqual(32);
});

test('an anonymous visitor is asked for proof; signed in as the demo customer, the same question is answered, in a conversation of its own', async () => {
  // Guest mode.
  await page.goto(`${service.baseURL}/`);
  await page.getByText('Browsing as a guest.').waitFor();
  await page.getByRole('button', { name: 'Chat with us' }).click();
  const anonymous = await ask(ORDER_QUESTION);
  expect(anonymous).toContain('e-mail address or the delivery postcode');
  expect(anonymous).not.toContain('Cork');
  expect(await storedKeys()).toEqual([`support-widget:${service.baseURL}`]);

  // Signed-in mode: the shop's page carries the token the demo server signed.
  const customerTokens: Array<string | undefined> = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/v1/chat')) customerTokens.push(request.headers()['x-customer-token']);
  });
  await page.getByRole('link', { name: 'Sign in as Lukas Brandt (demo)' }).click();
  await page.getByText('Signed in as').waitFor();
  expect(await page.locator('script[src="/widget.js"]').getAttribute('data-user-token')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  // The signed-in customer's widget keeps its own state: closed, and without the guest's conversation.
  await page.getByRole('button', { name: 'Chat with us' }).click();
  await messageInput().waitFor();
  expect(await widget('.message.user').count()).toBe(0);
  const signedIn = await ask(ORDER_QUESTION);
  expect(signedIn).toContain('Order ZX-14440 is held at depot. It went with DPD on 2026-04-13 to Cork.');
  expect(customerTokens.length).toBeGreaterThanOrEqual(1);
  expect(customerTokens.every((t) => typeof t === 'string' && t.split('.').length === 3)).toBe(true);
  expect((await storedKeys()).sort()).toEqual([`support-widget:${service.baseURL}`, `support-widget:${service.baseURL}:customer:lukas@example.com`]);
  await saveScreenshot(page, 'widget-signed-in');

  // The session is Lukas's: bound in the database, labelled with his id.
  const [binding] = await service.db.query<{ customer_id: string }>(
    `select b.customer_id from session_customers b join chat_sessions s using (session_id) where s.user_id = 'lukas@example.com'`,
  );
  expect(binding).toEqual({ customer_id: 'lukas@example.com' });

  // Signing out shows the guest's conversation again, still without Lukas's order.
  await page.getByRole('link', { name: 'Sign out' }).click();
  await page.getByText('Browsing as a guest.').waitFor();
  await widget('.message.user').first().waitFor();
  expect(await widget('.message.user .text').allTextContents()).toEqual([ORDER_QUESTION]);
  expect(await widget('.log').textContent()).not.toContain('Cork');
});
