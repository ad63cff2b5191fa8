/**
 * Issue 34, item 3, in the review console (real Chromium, real service with a shop
 * file whose action is called by the loopback model): a call is shown with the
 * arguments the shop's API received, the bound one named, and the model's own
 * arguments below them, so an agent never reads the model's wish as what happened.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, type TestPage } from '../support/browser';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { startOrdersApi, type OrdersApi } from '../support/orders-api';
import { customerTokenHeader, makeTempDir, openAIStubEnv, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const ADA = 'ada@books.example';
const GRACE = 'grace@books.example';

let api: OrdersApi;
let stub: OpenAIStub;
let service: TestService;
let browser: Browser;
let dir: string;
let opened: TestPage | undefined;

beforeAll(async () => {
  [api, stub, browser] = await Promise.all([startOrdersApi(), startOpenAIStub(), launchBrowser()]);
  dir = await makeTempDir('review-sent-');
  const openapi = await api.writeOpenApi(dir);
  await fs.writeFile(
    path.join(dir, 'shop.yaml'),
    `name: Bramble Books
agents:
  - key: books
    description: Bramble Books' support.
    instructions: You are the support assistant of Bramble Books. Use listMyOrders for orders.
    tools: [listMyOrders]
actions:
  - openapi: ./${openapi}
    operations: [listMyOrders]
    allow_private_network: true
    bind: { customerId: customer.id }
`,
  );
  service = await startTestService({ env: openAIStubEnv(stub.baseURL, { SHOP_FILE: path.join(dir, 'shop.yaml') }) });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await Promise.all([api?.close(), stub?.close()]);
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});
afterEach(() => closeTestPage(opened));

test('the console shows the arguments as sent, the bound one named, and what the model asked for', async () => {
  stub.enqueueChat({ toolCalls: [{ id: 'call_r1', name: 'listMyOrders', arguments: { customerId: GRACE } }] }, { content: 'Your order BK-1001 has shipped.' });
  const chat = await service.postChat({ message: 'Where are my orders?' }, await customerTokenHeader(ADA));
  expect(chat.status).toBe(200);
  expect(api.requests[0]!.path).toBe(`/customers/${encodeURIComponent(ADA)}/orders`);

  opened = await openTestPage(browser, { width: 1280, height: 900 });
  const page = opened.page;
  await page.goto(`${service.baseURL}/review`);
  await page.getByLabel('Agent key').fill(TEST_AGENT_KEY);
  await page.getByLabel('Agent key').press('Enter');
  await page.locator('#session-list button.session').filter({ hasText: 'Where are my orders?' }).first().click();
  const toolCall = page.locator('#transcript details.tool-call');
  await toolCall.first().waitFor();
  // The summary names the call as sent: the verified customer, not the one the model named.
  const summary = (await toolCall.locator('summary').textContent())!;
  expect(summary).toContain(`Tool call: listMyOrders({ "customerId": "${ADA}" })`);
  expect(summary).not.toContain(GRACE);
  await toolCall.locator('summary').click();
  await expect(toolCall.locator('pre.tool-arguments-sent').textContent()).resolves.toContain(`"customerId": "${ADA}"`);
  await expect(toolCall.locator('.tool-bound').textContent()).resolves.toBe('Bound to the signed-in customer (not chosen by the model): customerId');
  await expect(toolCall.locator('pre.tool-arguments-model').textContent()).resolves.toContain(`"customerId": "${GRACE}"`);
  expect(await toolCall.locator('pre.tool-arguments-model').isVisible()).toBe(true);
}, 120_000);
