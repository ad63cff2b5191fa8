/**
 * The review console's Knowledge page in a real Chromium against the real service
 * (PGlite, offline model), driven by the keyboard only: an agent signs in, goes to
 * Knowledge, sees the most cited article and the question that found nothing,
 * searches and reads an article's chunks, uploads a markdown file (then replaces it),
 * and deletes it after confirming (Escape cancels first); then uploads a PDF and a Word
 * file, and sees a scanned PDF refused with the reason.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { noTextPdf, policyDocx, threePagePdf } from '../support/documents';
import { ARTIFACTS_DIR, closeTestPage, contrastRatio, launchBrowser, openTestPage, textColours, type TestPage } from '../support/browser';
import { makeTempDir, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;
let page: Page;
let uploadDir: string;

beforeAll(async () => {
  [service, browser, uploadDir] = await Promise.all([startTestService(), launchBrowser(), makeTempDir('support-agent-upload-')]);
  for (const [i, message] of ['How long does a refund take?', 'When will I get my refund?', 'Do you ship to Norway?'].entries()) {
    expect((await service.postChat({ message, session_id: `kb-page-${i}` })).status).toBe(200);
  }
  const nothing = await service.postChat({ message: 'Do you sell telescopes for stargazing on Mars?', session_id: 'kb-page-telescope' });
  expect(nothing.body.escalated).toBe(true);
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

/** Presses Tab until the focused element matches `selector` (text `hasText`, when given); fails after 60 presses. */
async function tabTo(selector: string, hasText?: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const found = await page.evaluate(
      ([sel, text]) => {
        const active = (globalThis as any).document.activeElement;
        return Boolean(active?.matches(sel) && (!text || active.textContent.includes(text)));
      },
      [selector, hasText ?? ''] as const,
    );
    if (found) return;
  }
  throw new Error(`Tab never reached ${selector}${hasText ? ` with "${hasText}"` : ''}`);
}

const articleButtons = () => page.locator('#article-list button.session');

test('an agent manages the knowledge base with the keyboard alone', async () => {
  // File choosers are intercepted from the start: turning interception on only when waiting for one
  // races with the key press that opens it (the dialog then opens natively and no event comes).
  page.on('filechooser', () => {});
  await page.goto(`${service.baseURL}/review`);
  await page.keyboard.type(TEST_AGENT_KEY); // the key field has the focus
  await page.keyboard.press('Enter');
  await page.locator('#session-list button.session').first().waitFor();

  await tabTo('#view-knowledge');
  await page.keyboard.press('Enter');
  await articleButtons().first().waitFor();
  expect(await page.locator('#view-knowledge').getAttribute('aria-current')).toBe('page');
  expect(await articleButtons().count()).toBe(10);
  await page.locator('#most-cited li').first().waitFor();
  await expect(page.locator('#most-cited').textContent()).resolves.toContain('Refund Policy');
  await expect(page.locator('#unanswered').textContent()).resolves.toContain('Do you sell telescopes for stargazing on Mars?');

  // Search and read an article.
  await tabTo('#article-search');
  await page.keyboard.type('shipping');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#article-list button.session').length === 1);
  await tabTo('#article-list button.session');
  await page.keyboard.press('Enter');
  await page.locator('#chunks .chunk').first().waitFor();
  await expect(page.locator('#article-heading').textContent()).resolves.toBe('Shipping Options, Costs and Delivery Times');
  expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe('article-heading');
  expect(await page.locator('#chunks .chunk').count()).toBeGreaterThan(1);
  await page.locator('#unanswered li').first().waitFor();
  // Every text on the page meets WCAG AA, as on the rest of the console.
  const colours = await textColours(page, 'body');
  expect(colours.length).toBeGreaterThan(20);
  expect(colours.map((c) => ({ ...c, ratio: Number(contrastRatio(c.color, c.background).toFixed(2)) })).filter((c) => c.ratio < 4.5)).toEqual([]);
  await fs.mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'knowledge.png'), fullPage: true });

  // Upload a new article, then replace it.
  const file = path.join(uploadDir, 'gift-wrapping.md');
  await fs.writeFile(file, '# Gift Wrapping\n\nGift wrapping costs 4 euros per parcel, in kraft paper with a linen ribbon.\n');
  await tabTo('#upload-file');
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press('Space');
  await (await chooser).setFiles(file);
  await expect(page.locator('#upload-source').inputValue()).resolves.toBe('knowledge/uploads/gift-wrapping.md');
  await tabTo('#upload-form button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (globalThis as any).document.getElementById('upload-status').textContent.startsWith('Added'));
  await expect(page.locator('#upload-status').textContent()).resolves.toBe('Added “Gift Wrapping” (1 chunk).');
  await page.waitForFunction(() => (globalThis as any).document.getElementById('article-heading').textContent === 'Gift Wrapping');
  await expect(page.locator('#chunks').textContent()).resolves.toContain('4 euros');

  await fs.writeFile(file, '# Gift Wrapping\n\nGift wrapping is free, in recycled paper with a cotton ribbon.\n');
  await tabTo('#upload-file');
  const again = page.waitForEvent('filechooser');
  await page.keyboard.press('Space');
  await (await again).setFiles(file);
  // A file named like a stored article replaces it.
  await expect(page.locator('#upload-source').inputValue()).resolves.toBe('knowledge/uploads/gift-wrapping.md');
  await tabTo('#upload-form button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (globalThis as any).document.getElementById('upload-status').textContent.startsWith('Replaced'));
  await page.waitForFunction(() => (globalThis as any).document.getElementById('chunks').textContent.includes('cotton ribbon'));
  await expect(page.locator('#chunks').textContent()).resolves.not.toContain('4 euros');

  // Delete: Escape cancels, then Delete confirms.
  await tabTo('#delete-article');
  await page.keyboard.press('Enter');
  await page.locator('#confirm-delete[open]').waitFor();
  await expect(page.locator('#confirm-delete-text').textContent()).resolves.toContain('knowledge/uploads/gift-wrapping.md');
  await page.keyboard.press('Escape');
  await page.locator('#confirm-delete:not([open])').waitFor({ state: 'attached' });
  expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe('delete-article');
  expect((await service.request('GET', `/api/v1/knowledge/sources/${encodeURIComponent('knowledge/uploads/gift-wrapping.md')}`)).status).toBe(200);

  await page.keyboard.press('Enter');
  await page.locator('#confirm-delete[open]').waitFor();
  await tabTo('#confirm-delete button.danger');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => (globalThis as any).document.getElementById('article-detail-status').textContent.startsWith('Deleted'));
  await expect(page.locator('#article-detail-status').textContent()).resolves.toBe('Deleted “Gift Wrapping”.');
  expect((await service.request('GET', `/api/v1/knowledge/sources/${encodeURIComponent('knowledge/uploads/gift-wrapping.md')}`)).status).toBe(404);
  await expect(page.locator('#article-list').textContent()).resolves.not.toContain('Gift Wrapping');

  // "open the conversation" of a question that found nothing leads back to the conversations.
  await tabTo('#unanswered a');
  await page.keyboard.press('Enter');
  await page.locator('#transcript .entry').first().waitFor();
  expect(await page.locator('#knowledge').isVisible()).toBe(false);
  await expect(page.locator('#transcript').textContent()).resolves.toContain('telescopes');
});

test('an agent uploads a PDF manual and a Word file, and a scanned PDF is refused with the reason, storing nothing', async () => {
  const files = {
    manual: path.join(uploadDir, 'kettle-manual.pdf'),
    policy: path.join(uploadDir, 'warranty-policy.docx'),
    scan: path.join(uploadDir, 'scanned-invoice.pdf'),
  };
  await fs.writeFile(files.manual, await threePagePdf());
  await fs.writeFile(files.policy, await policyDocx());
  await fs.writeFile(files.scan, await noTextPdf());

  await page.goto(`${service.baseURL}/review`);
  await page.getByLabel('Agent key').fill(TEST_AGENT_KEY);
  await page.getByLabel('Agent key').press('Enter');
  await page.locator('#view-knowledge').click();
  await articleButtons().first().waitFor();

  const upload = async (file: string) => {
    await page.locator('#upload-source').fill('');
    await page.locator('#upload-file').setInputFiles(file);
    await page.locator('#upload-form button[type="submit"]').click();
    await page.waitForFunction(() => !/^Uploading/.test((globalThis as any).document.getElementById('upload-status').textContent));
    return page.locator('#upload-status').textContent();
  };

  await expect(upload(files.manual)).resolves.toBe('Added “kettle-manual” (3 chunks).');
  await page.waitForFunction(() => (globalThis as any).document.getElementById('chunks').textContent.includes('serial number'));
  await expect(upload(files.policy)).resolves.toMatch(/^Added “Warranty policy” \(\d+ chunks?\)\.$/);
  await page.waitForFunction(() => (globalThis as any).document.getElementById('chunks').textContent.includes('| Kettle | 2 years |'));

  await expect(upload(files.scan)).resolves.toBe(
    'The file was not uploaded: The PDF has no text layer (a scan?): there is no text to store. Nothing was stored.',
  );
  expect((await service.request('GET', `/api/v1/knowledge/sources/${encodeURIComponent('knowledge/uploads/scanned-invoice.pdf')}`)).status).toBe(404);
});
