/**
 * The model's hand-off, as the person who takes over sees it: in a real Chromium, the
 * review console of a service that answers with the real ChatOpenAI client against the
 * loopback OpenAI-compatible stub. The model calls hand_off_to_person; the Waiting queue
 * says why and shows its summary, and so does the conversation view.
 */
import type { Browser, Page } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, saveScreenshot, type TestPage } from '../support/browser';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

const QUESTION = 'The sofa I got has a torn seam, I want a replacement not a refund';
const SUMMARY = 'Wants a replacement sofa for a torn seam, not a refund; the warranty passages do not say whether a seam is covered.';

let stub: OpenAIStub;
let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;
let page: Page;

beforeAll(async () => {
  stub = await startOpenAIStub();
  [service, browser] = await Promise.all([startTestService({ env: openAIStubEnv(stub.baseURL) }), launchBrowser()]);
  stub.enqueueChat({
    toolCalls: [{ id: 'call_handoff', name: 'hand_off_to_person', arguments: { summary: SUMMARY, reason: 'warranty question' } }],
    content: 'A colleague from our team will take this over and reply here.',
  });
  const { body } = await service.postChat({ message: QUESTION, session_id: 'sofa-seam' });
  expect(body).toMatchObject({ escalated: true, escalation_reason: 'model', handoff_summary: SUMMARY });
}, 180_000);
afterAll(async () => {
  await closeTestPage(opened);
  await browser?.close();
  await service?.close();
  await stub?.close();
});

test("the Waiting queue and the conversation view say the assistant handed it over, with the model's summary", async () => {
  opened = await openTestPage(browser, { width: 1280, height: 900 });
  page = opened.page;
  await page.goto(`${service.baseURL}/review`);
  await page.getByLabel('Agent key').fill(TEST_AGENT_KEY);
  await page.getByLabel('Agent key').press('Enter');

  const waiting = page.locator('#waiting-list button.session').filter({ hasText: QUESTION });
  await waiting.waitFor();
  await expect(waiting.locator('.session-reason').textContent()).resolves.toBe('Why: the assistant handed it over');
  await expect(waiting.locator('.handoff-summary').textContent()).resolves.toBe(SUMMARY);

  await waiting.click();
  await page.locator('#transcript .entry.assistant').first().waitFor();
  const facts = page.locator('#detail-facts');
  await expect(facts.locator('dt', { hasText: 'Escalated' }).locator('xpath=following-sibling::dd[1]').textContent()).resolves.toBe('yes: the assistant handed it over');
  await expect(facts.locator('.handoff-summary').textContent()).resolves.toBe(SUMMARY);
  const answer = page.locator('#transcript .entry.assistant').last();
  await expect(answer.locator('.badge.escalated').textContent()).resolves.toBe('Escalated: the assistant handed it over');
  await expect(answer.locator('.handoff-summary').textContent()).resolves.toContain(SUMMARY);
  await expect(answer.textContent()).resolves.toContain('A colleague from our team will take this over and reply here.');
  await saveScreenshot(page, 'review-model-handoff');
});
