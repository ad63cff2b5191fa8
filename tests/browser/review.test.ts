/**
 * The agents' review console at /review, in a real Chromium against the real
 * service (embedded PGlite, offline model). Conversations are made by a customer
 * in the widget or through the chat API, then found and read in the console.
 */
import type { Browser, Page } from 'playwright-core';
import { closeTestPage, contrastRatio, launchBrowser, openTestPage, saveScreenshot, textColours, type TestPage } from '../support/browser';
import { customerTokenHeader, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

/** The console's page size: one more conversation than this needs "Load more". */
const PAGE_SIZE = 20;

/** Older conversations, enough to need a second page. */
const EARLIER_QUESTIONS = [
  'Do you deliver to Norway?',
  'How do I track my parcel?',
  'Can I change my delivery address after ordering?',
  'How long is the warranty on a kettle?',
  'Where do I find my invoice?',
  'Can I get a VAT invoice for my company?',
  'How do I reset my password?',
  'What does express delivery cost?',
  'My parcel arrived damaged, what now?',
  'How do I talk to a person?',
  'Can I delete my account?',
  'Do you offer gift wrapping?',
  'Is the oak side table solid wood?',
  'Can I pick up my order in a store?',
  'Does the warranty cover scratches?',
  'Can I change the email on my account?',
  'When will my order ship?',
  'Do you deliver on Saturdays?',
  'Can I add an item to my order?',
  'Where is your warehouse?',
];

let service: TestService;
let browser: Browser;
let page: Page;
let ordersSessionId: string;

beforeAll(async () => {
  // A price for the offline responder, so the console shows estimated costs (per million tokens).
  const prices = { 'offline-extractive': { input: 0.15, cached_input: 0.075, output: 0.6 } };
  [service, browser] = await Promise.all([startTestService({ env: { MODEL_PRICES: JSON.stringify(prices) } }), launchBrowser()]);

  expect(EARLIER_QUESTIONS.length).toBe(PAGE_SIZE);
  for (const [i, message] of EARLIER_QUESTIONS.entries()) {
    const answer = await service.postChat({ message, session_id: `earlier-${i}` });
    expect(answer.status).toBe(200);
  }
  // Ingrid signed in on the shop: her token lets the tool show her order.
  const orders = await service.postChat(
    { message: 'Where is my order ZX-31586?', agent_type: 'orders', user_id: 'ingrid.holm@example.com' },
    await customerTokenHeader('ingrid.holm@example.com'),
  );
  expect(orders.status).toBe(200);
  ordersSessionId = orders.body.session_id;
  const escalated = await service.postChat({ message: 'Do you sell telescopes for stargazing on Mars?', session_id: 'telescope-customer' });
  expect(escalated.body.escalated).toBe(true);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

let opened: TestPage | undefined;
beforeEach(async () => {
  opened = await openTestPage(browser, { width: 1280, height: 900 });
  page = opened.page;
});
afterEach(() => closeTestPage(opened));

const sessionButtons = () => page.locator('#session-list button.session');

async function signIn(key = TEST_AGENT_KEY): Promise<void> {
  await page.goto(`${service.baseURL}/review`);
  await page.getByLabel('Agent key').fill(key);
  await page.getByLabel('Agent key').press('Enter');
}

async function signedIn(): Promise<void> {
  await signIn();
  await sessionButtons().first().waitFor();
}

/** Types a search and waits until the list shows its result. */
async function search(text: string, expectedCount: number): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search' }).fill(text);
  await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
  await page.waitForFunction(
    (count) => (globalThis as any).document.querySelectorAll('#session-list button.session').length === count,
    expectedCount,
  );
}

async function openConversation(title: string): Promise<void> {
  await sessionButtons().filter({ hasText: title }).first().click();
  await page.locator('#transcript .entry').first().waitFor();
}

test('a wrong agent key is refused, and the right one shows the conversations, newest activity first', async () => {
  await signIn('not-the-key');
  await expect(page.getByRole('alert').textContent()).resolves.toContain('not accepted');
  expect(await page.locator('#console').isVisible()).toBe(false);

  await page.getByLabel('Agent key').fill(TEST_AGENT_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await sessionButtons().first().waitFor();
  expect(await sessionButtons().count()).toBe(PAGE_SIZE);
  // The last conversation made (telescope-customer) is on top.
  await expect(sessionButtons().first().textContent()).resolves.toContain('Do you sell telescopes');
  // The key stays in this tab only.
  expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('support-review:agent-key'))).toBe(TEST_AGENT_KEY);
  expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);
});

test("a customer's conversation in the widget is found by its text and reads the same in the console, with confidence and sources", async () => {
  // The customer, in their own browser profile.
  const customer = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const shop = await customer.newPage();
  await shop.goto(`${service.baseURL}/`);
  await shop.getByRole('button', { name: 'Chat with us' }).click();
  for (const question of ['How long does a refund take?', 'Can I pay with Klarna?']) {
    const before = await shop.locator('[data-support-widget] .message.assistant:not(.welcome):not([aria-busy])').count();
    await shop.getByRole('textbox', { name: 'Your message' }).fill(question);
    await shop.getByRole('textbox', { name: 'Your message' }).press('Enter');
    await shop.locator('[data-support-widget] .message.assistant:not(.welcome):not([aria-busy])').nth(before).waitFor();
  }
  // The customer finds the second answer useless.
  await shop.locator('[data-support-widget] .message.assistant:not(.welcome)').nth(1).getByRole('button', { name: 'Not helpful' }).click();
  await shop.locator('[data-support-widget] .rate-down[aria-pressed="true"]').waitFor();
  const customerSaw = await shop.locator('[data-support-widget] .message:not(.welcome) .text').allTextContents();
  await customer.close();

  await signedIn();
  await search('pay with Klarna', 1); // the customer's words: the help center says it otherwise
  await openConversation('How long does a refund take?');
  const agentSees = await page.locator('#transcript .entry .text').allTextContents();
  // Line breaks between paragraphs differ by layout; the words do not.
  const words = (texts: string[]) => texts.map((t) => t.replace(/\s+/g, ' ').trim());
  expect(words(agentSees)).toEqual(words(customerSaw));

  const answers = page.locator('#transcript .entry.assistant');
  expect(await answers.count()).toBe(2);
  await expect(answers.first().locator('.badge').first().textContent()).resolves.toMatch(/^confidence 0\.\d\d$/);
  await expect(answers.first().locator('.sources').textContent()).resolves.toContain('knowledge/help-center/refunds.md');
  // Why each source was cited: its place by words and by meaning, as stored in the answer's metadata.retrieval.
  const refunds = answers.first().locator('.sources li', { hasText: 'knowledge/help-center/refunds.md' });
  await expect(refunds.locator('.why-cited').textContent()).resolves.toMatch(/^Retrieved #1, score \d\.\d\d: #\d+ by words \(\d\.\d\d\); #\d+ by meaning \(similarity \d\.\d\d\)$/);
  // The second question moved on: the first one's words count, at a small weight, and the console says so.
  await answers.nth(1).locator('.search-details summary').click();
  await expect(answers.nth(1).locator('.search-details').textContent()).resolves.toContain('Earlier message at weight 0.20: How long does a refund take?');
  // The customer's rating, on the answer it was given to.
  expect(await answers.first().locator('.badge.rated-down, .badge.rated-up').count()).toBe(0);
  await expect(answers.nth(1).locator('.badge.rated-down').textContent()).resolves.toBe('Rated not helpful');
  await expect(page.locator('#detail-facts').textContent()).resolves.toContain("window, the support agent's default");
  // Each answer's tokens (the offline responder reports no cached ones) and estimated cost, as stored; the conversation's totals.
  const history = await service.getHistory(sessionIdOf(page.url()));
  const stored = history.body.messages.filter((m: { role: string }) => m.role === 'assistant');
  for (const [i, m] of stored.entries()) {
    await expect(answers.nth(i).locator('.badge.usage').textContent()).resolves.toBe(
      `${m.usage.prompt_tokens} tokens in (0 cached), ${m.usage.completion_tokens} out · cost ${formatCostLikeTheConsole(m.cost)}`,
    );
  }
  const facts = await page.locator('#detail-facts').textContent();
  expect(facts).toContain(`${history.body.usage.prompt_tokens.toLocaleString('en-US')} prompt, 0 of them cached`);
  expect(facts).toContain(`Estimated cost${formatCostLikeTheConsole(history.body.usage.cost)}`);
  // The language the conversation keeps: what a person who takes over answers in.
  expect(history.body.language).toBe('en');
  expect(facts).toContain('LanguageEnglish (en)');
  expect(await page.locator('#detail-heading').textContent()).toBe('How long does a refund take?');
  await saveScreenshot(page, 'review-conversation');
});

test('tool calls are folded until clicked, and a conversation-level memory strategy is shown', async () => {
  const patched = await service.request('PATCH', `/api/v1/conversations/${ordersSessionId}/memory`, { mode: 'compact', compact_keep: 1 });
  expect(patched.status).toBe(200);

  await signedIn();
  await search('ZX-31586', 1);
  await openConversation('Where is my order ZX-31586?');

  const toolCall = page.locator('#transcript details.tool-call');
  expect(await toolCall.count()).toBe(1);
  await expect(toolCall.locator('summary').textContent()).resolves.toContain('Tool call: lookup_order');
  const result = toolCall.locator('pre').last();
  expect(await result.isVisible()).toBe(false);
  await toolCall.locator('summary').click();
  expect(await result.isVisible()).toBe(true);
  await expect(result.textContent()).resolves.toContain('"order_id": "ZX-31586"');

  const facts = (await page.locator('#detail-facts').textContent())!;
  expect(facts).toContain('compact (compact_keep 1');
  expect(facts).toContain('set for this conversation');
  expect(facts).toContain('ingrid.holm@example.com');
  expect(facts).toContain('orders');
  await saveScreenshot(page, 'review-tool-call');
});

test('the escalated filter shows only conversations handed to a human, and a search with no match says so', async () => {
  await signedIn();
  await page.getByLabel('Show').selectOption('true');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#session-list button.session').length < 20);
  const titles = await sessionButtons().locator('.session-title').allTextContents();
  expect(titles).toContain('Do you sell telescopes for stargazing on Mars?');
  expect(await sessionButtons().locator('.badge.escalated').count()).toBe(titles.length);

  await search('no conversation says this', 0);
  await expect(page.locator('#list-status').textContent()).resolves.toBe('No conversations match.');
});

test('"Load more" appends the next page of older conversations', async () => {
  await signedIn();
  const firstPage = await sessionButtons().locator('.session-title').allTextContents();
  const total = await service.countRows('chat_sessions');
  expect(total).toBeGreaterThan(PAGE_SIZE);

  await page.getByRole('button', { name: 'Load more' }).click();
  await page.waitForFunction((count) => (globalThis as any).document.querySelectorAll('#session-list button.session').length === count, total);
  const all = await sessionButtons().locator('.session-title').allTextContents();
  expect(all.slice(0, PAGE_SIZE)).toEqual(firstPage);
  expect(new Set(all).size).toBe(all.length); // no conversation twice
  expect(await page.getByRole('button', { name: 'Load more' }).isVisible()).toBe(false);
});

test('a reload keeps the agent signed in and reopens the conversation in the address', async () => {
  await signedIn();
  await openConversation('Do you sell telescopes');
  expect(page.url()).toContain('#session=telescope-customer');
  await page.reload();
  await page.locator('#transcript .entry').first().waitFor();
  await expect(page.locator('#detail-facts').textContent()).resolves.toContain('telescope-customer');
  await expect(page.locator('#transcript .entry.assistant .badge.escalated').textContent()).resolves.toBe('Escalated: not in the help center');
  await sessionButtons().first().waitFor();
  await saveScreenshot(page, 'review-escalated');
});

test('every text in the console meets WCAG AA contrast (4.5:1)', async () => {
  await signedIn();
  await openConversation('Where is my order ZX-31586?');
  await page.locator('#transcript details.tool-call summary').click();
  await page.locator('#detail-facts').waitFor();
  const colours = await textColours(page, 'body');
  expect(colours.length).toBeGreaterThan(20);
  const failing = colours
    .map((c) => ({ ...c, ratio: Number(contrastRatio(c.color, c.background).toFixed(2)) }))
    .filter((c) => c.ratio < 4.5);
  expect(failing).toEqual([]);
  await saveScreenshot(page, 'review-console');
});

test('customer-written text is its own bidi island: a right-to-left override in a message cannot reorder the page around it', async () => {
  // U+202E (right-to-left override) is allowed in a message (it is the customer's text), never in an id.
  const message = 'Invoice please \u202Efdp.exe for order ZX-31586';
  const made = await service.postChat({ message, session_id: 'bidi-customer', user_id: 'bidi@example.com' });
  expect(made.status).toBe(200);
  await signedIn();
  await search('Invoice please', 1);
  await openConversation('Invoice please');
  const isolation = (selector: string) =>
    page.locator(selector).first().evaluate((node) => ({
      dir: (node as any).getAttribute('dir'),
      unicodeBidi: (globalThis as any).getComputedStyle(node).unicodeBidi,
    }));
  for (const selector of ['#transcript .entry.user p.text', '#session-list .session-title', '#session-list .session-last', '#detail-heading', '#detail-facts bdi']) {
    await expect(isolation(selector)).resolves.toEqual({ dir: 'auto', unicodeBidi: 'isolate' });
  }
  // The message's characters are shown as they are, the override included.
  await expect(page.locator('#transcript .entry.user p.text').textContent()).resolves.toBe(message);
});
/** The session id the console's address names (#session=…). */
function sessionIdOf(url: string): string {
  return decodeURIComponent(/#session=(.+)$/.exec(new URL(url).hash)?.[1] ?? '');
}

/** The console's rendering of a cost: four decimals from a cent, else two significant digits. */
function formatCostLikeTheConsole(cost: number): string {
  return cost >= 0.01 ? cost.toFixed(4) : cost.toPrecision(2);
}
