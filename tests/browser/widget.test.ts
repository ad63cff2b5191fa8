/**
 * The customer widget on the demo shop page, in a real Chromium against the real
 * service (embedded PGlite, offline model).
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { closeTestPage, contrastRatio, launchBrowser, openTestPage, saveScreenshot, textColours, type TestPage } from '../support/browser';
import { startTestService, type TestService } from '../support/test-service';

const REFUND_QUESTION = 'How long does a refund take?';
const DELIVERY_QUESTION = 'How much does delivery cost?';
/** Nothing in the help center matches it, so the offline agent hands the conversation to a human. */
const OFF_TOPIC_QUESTION = 'Do you sell telescopes for stargazing on Mars?';

let service: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

let opened: TestPage | undefined;
beforeEach(async () => {
  opened = await openTestPage(browser, { width: 1280, height: 800 });
  ({ context, page } = opened);
});
afterEach(() => closeTestPage(opened));

const messageInput = () => page.getByRole('textbox', { name: 'Your message' });
const answers = () => page.locator('[data-support-widget] .message.assistant:not(.welcome)');

/** The widget's stored session for this page's origin. */
async function storedSession(): Promise<{ session_id: string; session_token: string } | null> {
  const raw = await page.evaluate((key) => (globalThis as any).localStorage.getItem(key), `support-widget:${service.baseURL}`);
  return raw === null ? null : JSON.parse(raw);
}

async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element: any) => element.getRootNode().activeElement === element);
}

async function openWidget(): Promise<void> {
  await page.goto(`${service.baseURL}/`);
  await page.getByRole('button', { name: 'Chat with us' }).click();
  await messageInput().waitFor();
}

/** Asks through the panel and waits for the finished answer (the stream's done). */
async function ask(question: string): Promise<Locator> {
  const before = await answers().count();
  await messageInput().fill(question);
  await messageInput().press('Enter');
  await page.waitForFunction(
    (count) => (globalThis as any).document.querySelector('[data-support-widget]').shadowRoot.querySelectorAll('.message.assistant:not(.welcome):not([aria-busy])').length > count,
    before,
  );
  return answers().nth(before);
}

test('a customer using only the keyboard opens the chat, sends a question with Enter and sees the answer stream in with its sources', async () => {
  await page.goto(`${service.baseURL}/`);
  const launcher = page.getByRole('button', { name: 'Chat with us' });
  expect(await launcher.getAttribute('aria-expanded')).toBe('false');

  // Tab through the shop page until the launcher has focus (it comes after the page's own links).
  let tabs = 0;
  while (!(await isFocused(launcher))) {
    await page.keyboard.press('Tab');
    if (++tabs > 30) throw new Error('Tab never reached the chat launcher');
  }
  await page.keyboard.press('Enter');
  expect(await launcher.getAttribute('aria-expanded')).toBe('true');
  expect(await isFocused(messageInput())).toBe(true);

  const log = page.getByRole('log', { name: 'Conversation' });
  expect(await log.getAttribute('aria-live')).toBe('polite');
  expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);

  // The offline model makes its answer at once; a slow connection spreads the stream's events
  // over many frames, as a hosted model's tokens would be.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 3 * 1024, uploadThroughput: -1 });
  await recordAnswerLengthEachFrame();

  await page.keyboard.type(REFUND_QUESTION);
  await page.keyboard.press('Enter');
  const answer = answers().first();
  await answer.getByText('Sources').waitFor();
  await page.waitForFunction(() => (globalThis as any).answerLengths.length > 0);
  const lengths: number[] = await page.evaluate(() => (globalThis as any).answerLengths);

  const distinct = [...new Set(lengths.filter((n) => n > 0))];
  const final = (await answer.locator('.text').textContent())!.length;
  // Partial answers were on screen before the whole one, each longer than the last. (Chromium's
  // throttle hands the ~5 kB stream over in about three reads, so two partial states is what to expect.)
  const partial = distinct.filter((n) => n < final);
  expect(partial.length).toBeGreaterThanOrEqual(2);
  expect(partial).toEqual([...partial].sort((a, b) => a - b));
  expect(distinct.at(-1)).toBe(final);

  await expect(answer.textContent()).resolves.toContain('Refund Policy');
  expect(await answer.locator('.source-path').allTextContents()).toContain('knowledge/help-center/refunds.md');
  expect(await page.locator('[data-support-widget] .message.user').allTextContents()).toEqual([`You: ${REFUND_QUESTION}`]);
  expect(await isFocused(messageInput())).toBe(true); // ready for the next question

  // Escape closes the panel and gives focus back to the launcher.
  await page.keyboard.press('Escape');
  expect(await launcher.getAttribute('aria-expanded')).toBe('false');
  expect(await isFocused(launcher)).toBe(true);
});

/** Records the length of the newest answer's text in every animation frame, until the answer is complete. */
async function recordAnswerLengthEachFrame(): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as any;
    const root = g.document.querySelector('[data-support-widget]').shadowRoot;
    const samples: number[] = [];
    g.answerLengths = [];
    const sample = () => {
      const answer = [...root.querySelectorAll('.message.assistant:not(.welcome)')].at(-1) as any;
      const text = answer?.querySelector('.text');
      if (text && !text.querySelector('.typing')) samples.push(text.textContent.length);
      if (answer && !answer.hasAttribute('aria-busy')) g.answerLengths = samples;
      else g.requestAnimationFrame(sample);
    };
    g.requestAnimationFrame(sample);
  });
}

test('after a reload the earlier messages are shown and the next question continues the same session', async () => {
  await openWidget();
  await ask(REFUND_QUESTION);
  const session = await storedSession();
  expect(session?.session_id).toEqual(expect.any(String));
  expect(session?.session_token).toEqual(expect.any(String));

  await page.reload();
  // The panel stays open across the reload and shows the conversation from the server.
  await page.locator('[data-support-widget] .message.user').first().waitFor();
  expect(await page.locator('[data-support-widget] .message.user .text').allTextContents()).toEqual([REFUND_QUESTION]);
  expect(await answers().count()).toBe(1);
  await expect(answers().first().textContent()).resolves.toContain('Refund Policy');

  await ask(DELIVERY_QUESTION);
  expect((await storedSession())?.session_id).toBe(session!.session_id);
  await saveScreenshot(page, 'widget-conversation');

  const history = await service.getHistory(session!.session_id);
  expect(history.status).toBe(200);
  const turns = history.body.messages.map((m: { role: string; content: string }) => [m.role, m.role === 'user' ? m.content : 'answer']);
  expect(turns).toEqual([
    ['user', REFUND_QUESTION],
    ['assistant', 'answer'],
    ['user', DELIVERY_QUESTION],
    ['assistant', 'answer'],
  ]);
});

test('a customer rates an answer with the keyboard: the pressed button says so, a new rating replaces it, and it is kept after a reload', async () => {
  await openWidget();
  const answer = await ask(REFUND_QUESTION);
  const helpful = answer.getByRole('button', { name: 'Helpful', exact: true });
  const notHelpful = answer.getByRole('button', { name: 'Not helpful' });
  expect(await answer.getByRole('group', { name: 'Was this answer helpful?' }).count()).toBe(1);
  expect([await helpful.getAttribute('aria-pressed'), await notHelpful.getAttribute('aria-pressed')]).toEqual(['false', 'false']);

  await helpful.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    () => (globalThis as any).document.querySelector('[data-support-widget]').shadowRoot.querySelector('.rate-up[aria-pressed="true"]') !== null,
  );
  await expect(page.locator('[data-support-widget] .status').textContent()).resolves.toContain('Thank you');
  const session = (await storedSession())!;
  const history = await service.getHistory(session.session_id);
  const answerId = history.body.messages[1].id;
  expect(history.body.messages[1].feedback).toMatchObject({ rating: 'up' });

  // A second rating replaces the first: one row, and only one button pressed.
  await notHelpful.focus();
  await page.keyboard.press('Space');
  await page.waitForFunction(
    () => (globalThis as any).document.querySelector('[data-support-widget]').shadowRoot.querySelector('.rate-down[aria-pressed="true"]') !== null,
  );
  expect(await helpful.getAttribute('aria-pressed')).toBe('false');
  expect(await service.db.query('select rating from answer_feedback where message_id = $1', [answerId])).toEqual([{ rating: 'down' }]);
  await saveScreenshot(page, 'widget-rated');

  await page.reload();
  await page.locator('[data-support-widget] .message.user').first().waitFor();
  const restored = answers().first();
  await restored.getByRole('button', { name: 'Not helpful' }).waitFor();
  expect(await restored.getByRole('button', { name: 'Not helpful' }).getAttribute('aria-pressed')).toBe('true');
  expect(await restored.getByRole('button', { name: 'Helpful', exact: true }).getAttribute('aria-pressed')).toBe('false');
});

test('an answer the agent is not confident about tells the customer a person can take over, in this chat', async () => {
  await openWidget();
  const answer = await ask(OFF_TOPIC_QUESTION);
  // No support hours are configured, so a person is offered without a time.
  await expect(answer.locator('.handoff').textContent()).resolves.toContain('Someone from our support team can take over this conversation');
  await saveScreenshot(page, 'widget-escalated');

  const history = await service.getHistory((await storedSession())!.session_id);
  expect(history.body.messages.at(-1)).toMatchObject({ role: 'assistant', escalated: true });

  // The note is part of the conversation: it is there again after a reload.
  await page.reload();
  await page.locator('[data-support-widget] .handoff').waitFor();
});

test('a stored session the server does not know is dropped and a new conversation starts', async () => {
  const key = `support-widget:${service.baseURL}`;
  await page.addInitScript(
    ([storageKey]) => (globalThis as any).localStorage.setItem(storageKey, JSON.stringify({ session_id: 'long-gone', session_token: 'not-valid' })),
    [key],
  );
  await openWidget();
  await page.locator('[data-support-widget] .welcome').waitFor();
  expect(await page.locator('[data-support-widget] .status.error').count()).toBe(0);

  await ask(REFUND_QUESTION);
  const session = await storedSession();
  expect(session?.session_id).not.toBe('long-gone');
  expect((await service.getHistory('long-gone')).status).toBe(404);
});

test('when support cannot be reached, the question is given back with a message saying so', async () => {
  await openWidget();
  await page.route('**/api/v1/chat/stream', (route) => route.abort('connectionrefused'));
  await messageInput().fill(REFUND_QUESTION);
  await messageInput().press('Enter');
  const status = page.locator('[data-support-widget] .status.error');
  await status.waitFor();
  await expect(status.textContent()).resolves.toContain('could not reach support');
  expect(await messageInput().inputValue()).toBe(REFUND_QUESTION);
  expect(await page.locator('[data-support-widget] .message.user').count()).toBe(0);
  expect(await storedSession()).toBeNull();
});

test('an error event in the stream is shown and nothing is remembered as sent', async () => {
  await openWidget();
  // The real service cannot be made to fail mid-answer offline: the browser is handed a stream that does.
  await page.route('**/api/v1/chat/stream', (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/event-stream',
      body: 'event: token\ndata: {"delta":"Let me "}\n\nevent: error\ndata: {"code":"model_unavailable","message":"The model is unavailable."}\n\n',
    }),
  );
  await messageInput().fill(REFUND_QUESTION);
  await messageInput().press('Enter');
  const status = page.locator('[data-support-widget] .status.error');
  await status.waitFor();
  // The widget's own words (the shop's, in the customer's language), not the service's English message.
  await expect(status.textContent()).resolves.toBe('We cannot answer right now. Please try again in a few minutes.');
  expect(await messageInput().inputValue()).toBe(REFUND_QUESTION);
  expect(await answers().count()).toBe(0);
});

test('an empty message is not sent', async () => {
  await openWidget();
  let posted = 0;
  page.on('request', (request) => {
    if (request.url().endsWith('/api/v1/chat/stream')) posted++;
  });
  await messageInput().fill('   ');
  await messageInput().press('Enter');
  await expect(page.locator('[data-support-widget] .status.error').textContent()).resolves.toContain('Type a message first');
  expect(posted).toBe(0);
});

test('every text in the widget meets WCAG AA contrast (4.5:1)', async () => {
  await openWidget();
  await ask(REFUND_QUESTION);
  await ask(OFF_TOPIC_QUESTION);
  const colours = await textColours(page, '[data-support-widget]');
  expect(colours.length).toBeGreaterThan(10);
  const failing = colours
    .map((c) => ({ ...c, ratio: Number(contrastRatio(c.color, c.background).toFixed(2)) }))
    .filter((c) => c.ratio < 4.5);
  expect(failing).toEqual([]);
});
