/**
 * The shop's words in the customer's language, in a real Chromium against the real
 * service started with a shop file that has German and Arabic words: a browser set
 * to German gets the German widget (and `lang="de"`), its German buttons and labels
 * (the built-in German where the German set has none, never the default set's English) and a German
 * answer's offline notice, and its German words when the service refuses a message; an Arabic page lays the widget out right to left; an English browser gets
 * the default set.
 */
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { closeTestPage, launchBrowser, openTestPage, type TestPage } from '../support/browser';
import { REPO_ROOT, startTestService, type TestService } from '../support/test-service';

const SHOP_FILE = path.join(REPO_ROOT, 'tests/fixtures/shops/pine-and-pebble/shop-languages.yaml');

let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;

jest.setTimeout(240_000);

beforeAll(async () => {
  // One message a minute per client: the German customer's second message is refused by the real limiter.
  [service, browser] = await Promise.all([startTestService({ env: { SHOP_FILE, RATE_LIMIT_PER_CLIENT: '1' } }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});
afterEach(() => closeTestPage(opened));

/**
 * A shop's own page at the service's origin (the browser is handed it, the widget
 * script is the service's): `lang` as the shop's page sets it, or none.
 */
async function openShopPage(page: TestPage['page'], lang: string | null): Promise<void> {
  const url = `${service.baseURL}/a-shop-page`;
  const html = `<!doctype html><html${lang ? ` lang="${lang}"` : ''}><head><meta charset="utf-8"><title>Shop</title></head><body><main>Shop</main><script src="/widget.js" defer></script></body></html>`;
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  await page.goto(url);
}

test('a browser set to German shows the German words, and a German question is answered with the German offline notice', async () => {
  opened = await openTestPage(browser, { width: 1280, height: 800 }, { locale: 'de-DE' });
  const { page } = opened;
  // A page without its own lang: the browser's language decides.
  await openShopPage(page, null);
  await page.locator('[data-support-widget] .launcher').click();
  const host = page.locator('[data-support-widget]');
  await expect(host.getAttribute('lang')).resolves.toBe('de');
  await expect(host.getAttribute('dir')).resolves.toBe('ltr');
  const panel = page.locator('[data-support-widget] #panel');
  await expect(panel.locator('#panel-title').textContent()).resolves.toBe('Pine & Pebble Hilfe');
  await expect(panel.locator('.subtitle').textContent()).resolves.toBe('Gärtner antworten werktags');
  await expect(panel.locator('.message.welcome').textContent()).resolves.toBe(
    'Willkommen bei Pine & Pebble Hilfe! Fragen Sie nach Lieferungen, Pflanzen oder Rücksendungen.',
  );

  // The widget's own words: the shop's German where its German set has them, else the built-in German (not its English default set).
  await expect(page.locator('[data-support-widget] .launcher').textContent()).resolves.toBe('Chat starten');
  await expect(panel.locator('button.send').textContent()).resolves.toBe('Senden');
  const input = page.getByRole('textbox', { name: 'Ihre Nachricht' });
  await expect(input.getAttribute('placeholder')).resolves.toBe('Ihre Frage…');
  await input.fill('Kann ich eine Pflanze zurückschicken, wenn sie beschädigt angekommen ist?');
  await input.press('Enter');
  const answer = panel.locator('.message.assistant:not(.welcome):not([aria-busy])');
  await answer.first().waitFor();
  await expect(answer.first().textContent()).resolves.toContain('Der Assistent von Pine & Pebble ist offline');
  await expect(answer.first().locator('.rate-down').textContent()).resolves.toBe('Nicht hilfreich');
  await expect(answer.first().locator('.rate-up').textContent()).resolves.toBe('Hilfreich');
  await expect(panel.locator('button.close').getAttribute('aria-label')).resolves.toBe('Chat schließen');

  // Over the limit (429): the German words, not the service's English message.
  await input.fill('Wie lange dauert die Lieferung?');
  await input.press('Enter');
  const status = panel.locator('.status.error');
  await status.waitFor();
  await expect(status.textContent()).resolves.toBe('Sie schreiben schneller, als wir antworten können. Bitte warten Sie einen Moment.');
  expect(await input.inputValue()).toBe('Wie lange dauert die Lieferung?');
});

test('an Arabic page lays the widget out right to left, in Arabic', async () => {
  opened = await openTestPage(browser, { width: 1280, height: 800 }, { locale: 'en-US' });
  const { page } = opened;
  // The page's own lang wins over the browser's language.
  await openShopPage(page, 'ar');
  const host = page.locator('[data-support-widget]');
  await expect(host.getAttribute('lang')).resolves.toBe('ar');
  await expect(host.getAttribute('dir')).resolves.toBe('rtl');
  await page.locator('[data-support-widget] .launcher').click();
  const panel = page.locator('[data-support-widget] #panel');
  await expect(panel.locator('#panel-title').textContent()).resolves.toBe('مساعدة Pine & Pebble');
  // Laid out from the left edge, as right-to-left pages place it.
  const box = await panel.boundingBox();
  expect(box!.x).toBeLessThan(100);
});

test('an English browser gets the default set', async () => {
  opened = await openTestPage(browser, { width: 1280, height: 800 }, { locale: 'en-GB' });
  const { page } = opened;
  await openShopPage(page, null);
  await page.locator('[data-support-widget] .launcher').click();
  await expect(page.locator('[data-support-widget] #panel-title').textContent()).resolves.toBe('Pine & Pebble help');
  await expect(page.locator('[data-support-widget]').getAttribute('lang')).resolves.toBe('en');
  // Labels the default set leaves out are the widget's English ones.
  await expect(page.locator('[data-support-widget] .launcher').textContent()).resolves.toBe('Chat with us');
  await expect(page.locator('[data-support-widget] button.send').textContent()).resolves.toBe('Send');
});
