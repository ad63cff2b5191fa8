/**
 * The console's Tools page in a real Chromium against the real service (PGlite,
 * offline) with a shop file whose orders API runs on loopback: the shop's tools with
 * their bindings, and a read-only one tried as a customer, by keyboard alone.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, type TestPage } from '../support/browser';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { makeTempDir, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const ADA = 'ada@books.example';
const API_TOKEN = 'bramble-orders-token-from-the-environment';

let api: OrdersApi;
let dir: string;
let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;
let page: Page;

beforeAll(async () => {
  api = await startOrdersApi();
  dir = await makeTempDir('review-tools-');
  const openapi = await api.writeOpenApi(dir);
  await fs.writeFile(
    path.join(dir, 'shop.yaml'),
    `name: Bramble Books
agents:
  - key: books
    description: Bramble Books' support.
    instructions: You are the support assistant of Bramble Books.
    tools: [getMyOrder, cancelOrder, search_knowledge_base]
actions:
  - openapi: ./${openapi}
    operations: [getMyOrder, cancelOrder]
    allow_writes: [cancelOrder]
    allow_private_network: true
    headers: { Authorization: "Bearer \${BRAMBLE_API_TOKEN}" }
    bind: { customerId: customer.id }
`,
  );
  [service, browser] = await Promise.all([startTestService({ env: { SHOP_FILE: path.join(dir, 'shop.yaml'), BRAMBLE_API_TOKEN: API_TOKEN } }), launchBrowser()]);
  // The service's start (PGlite, migrations) takes a minute or more on a loaded machine.
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await api?.close();
  await fs.rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  opened = await openTestPage(browser, { width: 1280, height: 900 });
  page = opened.page;
});
afterEach(() => closeTestPage(opened));

test('the tools page lists the shop tools with their bindings, and tries a read-only one as a customer, showing what was sent', async () => {
  await page.goto(`${service.baseURL}/review`);
  await page.keyboard.type(TEST_AGENT_KEY);
  await page.keyboard.press('Enter');
  await page.locator('#view-tools').waitFor();
  await page.locator('#view-tools').focus();
  await page.keyboard.press('Enter');
  const items = page.locator('#tool-list button');
  await items.nth(1).waitFor();
  expect(await items.allTextContents()).toEqual([expect.stringMatching(/^getMyOrderGET on 127\.0\.0\.1:\d+ · read-only$/), expect.stringMatching(/^cancelOrderPOST on .* · writes$/)]);

  // A tool that writes is shown, not tried.
  await items.nth(1).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#tool-heading').textContent()).resolves.toBe('cancelOrder');
  expect(await page.locator('#tool-try').isHidden()).toBe(true);
  await expect(page.locator('#tool-details').textContent()).resolves.toContain('npm run shop -- try');

  await items.nth(0).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#tool-details').textContent()).resolves.toContain('customerId ← customer.id');
  await page.locator('#tool-customer').focus();
  await page.keyboard.type(ADA);
  await page.locator('#tool-argument-orderId').focus();
  await page.keyboard.type('BK-1001');
  await page.keyboard.press('Enter');
  await page.locator('#tool-result pre.tool-received').waitFor();

  await expect(page.locator('#tool-try-status').textContent()).resolves.toBe(`Called as the verified customer ${ADA}.`);
  await expect(page.locator('#tool-result code').textContent()).resolves.toBe(`GET ${api.baseURL}/customers/${encodeURIComponent(ADA)}/orders/BK-1001`);
  const sent = await page.locator('#tool-result .sent-requests pre').textContent();
  expect(sent).toContain(`Authorization: (hidden, ${`Bearer ${API_TOKEN}`.length} characters)`);
  expect(await page.locator('body').textContent()).not.toContain(API_TOKEN);
  expect(JSON.parse((await page.locator('#tool-result pre.tool-received').textContent()) ?? '')).toMatchObject({ orderId: 'BK-1001', status: 'shipped' });
  expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /customers/${encodeURIComponent(ADA)}/orders/BK-1001`]);
}, 120_000);
