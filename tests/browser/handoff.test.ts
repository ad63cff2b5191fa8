/**
 * Human takeover in a real Chromium, two pages on one service (embedded PGlite,
 * offline model): a customer in the shop's widget and an agent in the review
 * console. The whole exchange without a reload and with the keyboard only: the
 * customer's question is escalated, the agent finds it in the Waiting queue and
 * takes it over, they write to each other live, the agent releases it and the
 * bot answers again. Screenshots of both pages go to test-artifacts/.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import { createApp } from '../../src/app';
import { closeTestPage, launchBrowser, openTestPage, saveScreenshot, type TestPage } from '../support/browser';
import { eventually } from '../support/processes';
import { startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

/** Nothing in the help center matches it, so the offline agent escalates it. */
const OFF_TOPIC_QUESTION = 'Do you sell telescopes for stargazing on Mars?';

let service: TestService;
let browser: Browser;
let customerTab: TestPage | undefined;
let agentTab: TestPage | undefined;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ env: { EVENTS_POLL_MS: '200' } }), launchBrowser()]);
});
afterAll(async () => {
  await closeTestPage(customerTab);
  await closeTestPage(agentTab);
  await browser?.close();
  await service?.close();
});

async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element: any) => element.getRootNode().activeElement === element);
}

/** Presses Tab until `target` has the focus (keyboard only, as a person would). */
async function tabTo(page: Page, target: Locator, limit = 40): Promise<void> {
  for (let tabs = 0; !(await isFocused(target)); tabs++) {
    if (tabs >= limit) throw new Error(`Tab never reached ${target}`);
    await page.keyboard.press('Tab');
  }
}

test('a customer in the widget and an agent in the console hand a conversation over and back, live, with the keyboard only', async () => {
  customerTab = await openTestPage(browser, { width: 1100, height: 800 });
  agentTab = await openTestPage(browser, { width: 1280, height: 1250 });
  const customer = customerTab.page;
  const agent = agentTab.page;
  const widget = customer.locator('[data-support-widget]');
  const customerInput = customer.getByRole('textbox', { name: 'Your message' });

  // The customer opens the chat and asks something the help center cannot answer.
  await customer.goto(`${service.baseURL}/`);
  await tabTo(customer, customer.getByRole('button', { name: 'Chat with us' }));
  await customer.keyboard.press('Enter');
  await customer.keyboard.type(OFF_TOPIC_QUESTION);
  await customer.keyboard.press('Enter');
  await widget.locator('.handoff').waitFor();
  expect(await widget.locator('.handoff').textContent()).toContain('their reply will appear right here');

  // The agent signs in; the conversation is in the Waiting queue.
  await agent.goto(`${service.baseURL}/review`);
  await agent.keyboard.type(TEST_AGENT_KEY); // the key field has the focus
  await agent.keyboard.press('Enter');
  const waiting = agent.locator('#waiting-list button.session');
  await waiting.first().waitFor();
  expect(await waiting.first().textContent()).toContain(OFF_TOPIC_QUESTION);
  expect(await waiting.first().textContent()).toMatch(/waiting < 1 min/);
  await tabTo(agent, waiting.first());
  await agent.keyboard.press('Enter');
  await agent.locator('#holder').getByText('Answered by the bot').waitFor();

  // Takes it over: name, Take over; the reply box gets the focus.
  await tabTo(agent, agent.getByLabel('Your name (the customer sees it)'));
  await agent.keyboard.type('Maria');
  await agent.keyboard.press('Tab');
  await agent.keyboard.press('Enter');
  await agent.locator('#holder').getByText('Held by Maria (you)').waitFor();
  expect(await isFocused(agent.getByLabel('Reply to the customer'))).toBe(true);
  await widget.getByText('Maria from support joined the conversation.').waitFor();
  await widget.getByText('Maria from support is answering').waitFor();

  // A reply of two lines (Shift+Enter), sent with Enter, appears in the widget at once.
  await agent.keyboard.type('Hi, I am Maria.');
  await agent.keyboard.press('Shift+Enter');
  await agent.keyboard.type('We do not sell telescopes, sorry! Can I help with anything else?');
  await agent.keyboard.press('Enter');
  const humanReply = widget.locator('.message.human');
  await humanReply.waitFor();
  expect(await humanReply.locator('.author').textContent()).toBe('Maria from support');
  expect(await humanReply.locator('.text').textContent()).toContain('Hi, I am Maria.');
  expect(await humanReply.locator('.text').textContent()).toContain('We do not sell telescopes');

  // The customer answers; the agent sees it live, no model is asked.
  expect(await isFocused(customerInput)).toBe(true); // the focus stayed in the message box
  await customer.keyboard.type('Do you have garden furniture then?');
  await customer.keyboard.press('Enter');
  await widget.getByText('Sent. Maria will reply here.').waitFor();
  await agent.locator('#transcript .entry.user').getByText('Do you have garden furniture then?').waitFor();
  await saveScreenshot(customer, 'handoff-widget');
  await saveScreenshot(agent, 'handoff-review');

  // Release (after the Send button); the customer is told, and the bot answers the next message.
  await tabTo(agent, agent.getByRole('button', { name: 'Release to the bot' }));
  await agent.keyboard.press('Enter');
  await agent.locator('#holder').getByText('Answered by the bot').waitFor();
  await widget.getByText('The support team handed the conversation back to the assistant.').waitFor();
  await widget.getByText('Answers from our help center, any time').waitFor();

  const botAnswers = widget.locator('.message.assistant:not(.welcome):not(.human):not([aria-busy])');
  const before = await botAnswers.count();
  await customer.keyboard.type('How long does a refund take?');
  await customer.keyboard.press('Enter');
  await customer.waitForFunction(
    (count) => (globalThis as any).document.querySelector('[data-support-widget]').shadowRoot.querySelectorAll('.message.assistant:not(.welcome):not(.human):not([aria-busy])').length > count,
    before,
  );
  // The agent's console shows the bot's answer live too.
  await agent.locator('#transcript .entry.user').getByText('How long does a refund take?').waitFor();

  const sessionId = (await service.db.query<{ session_id: string }>('select session_id from chat_sessions'))[0]!.session_id;
  const history = await service.getHistory(sessionId);
  expect(history.body.messages.map((m: any) => m.author.type)).toEqual(['customer', 'bot', 'system', 'human', 'customer', 'system', 'customer', 'bot']);
  expect(history.body.messages[3].content).toBe('Hi, I am Maria.\nWe do not sell telescopes, sorry! Can I help with anything else?');
});

test('the widget reconnects after its live connection drops and shows what was written meanwhile, once', async () => {
  // The page talks to a second HTTP server over the same service, whose connections the test can cut.
  const server: Server = await new Promise((resolve) => {
    const s = createApp(service.deps.appParts).listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tab = await openTestPage(browser, { width: 1100, height: 800 });
  const liveState = () => tab.page.evaluate(() => (globalThis as any).document.querySelector('[data-support-widget]').shadowRoot.querySelector('.panel').dataset.live);
  try {
    const page = tab.page;
    const widget = page.locator('[data-support-widget]');
    await page.goto(`${baseURL}/`);
    await tabTo(page, page.getByRole('button', { name: 'Chat with us' }));
    await page.keyboard.press('Enter');
    await page.keyboard.type('Can a person help me with a broken lamp?');
    await page.keyboard.press('Enter');
    await widget.locator('.handoff').waitFor();
    expect(await eventually(async () => (await liveState()) === 'live', 10_000)).toBe(true);

    const stored = await page.evaluate((key) => (globalThis as any).localStorage.getItem(key), `support-widget:${baseURL}`);
    const sessionId = JSON.parse(stored).session_id as string;
    await service.request('POST', `/api/v1/conversations/${sessionId}/takeover`, { agent_name: 'Jonas' });
    await widget.getByText('Jonas from support joined the conversation.').waitFor();

    // The connection breaks (as when an instance dies); Jonas replies meanwhile.
    server.closeAllConnections();
    expect(await eventually(async () => (await liveState()) === 'reconnecting', 10_000)).toBe(true);
    const reply = await service.request('POST', `/api/v1/conversations/${sessionId}/replies`, { content: 'A new lamp shade is on its way.' });
    expect(reply.status).toBe(201);

    // The widget reconnects on its own (back-off) and resumes after the last message it showed.
    await widget.getByText('A new lamp shade is on its way.').waitFor({ timeout: 15_000 });
    expect(await eventually(async () => (await liveState()) === 'live', 10_000)).toBe(true);
    expect(await widget.locator('.message.human').count()).toBe(1);
    expect(await widget.getByText('Jonas from support joined the conversation.').count()).toBe(1);
  } finally {
    await closeTestPage(tab);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
