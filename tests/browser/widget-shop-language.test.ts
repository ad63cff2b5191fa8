/**
 * A shop that does not write English goes live, black-box, in a real Chromium against the
 * real service started with a German shop file (Röstwerk: `languages: [de]`, a few German
 * words of its own, support hours in Europe/Berlin, closed today): a German browser and a
 * Dutch one (the shop file has no Dutch words) get `/`, the widget, an escalated answer's
 * outside-hours note with the hours, the takeover note and a person's reply in their own
 * language, and not one of the English fixed words (checked against the English defaults).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { parse, stringify } from 'yaml';
import { fill } from '../../src/shop/widget-labels';
import { BUILT_IN_WORDS, wordFields } from '../../src/shop/words';
import { closeTestPage, launchBrowser, openTestPage, saveScreenshot, type TestPage } from '../support/browser';
import { makeTempDir, REPO_ROOT, startTestService, type TestService } from '../support/test-service';

const FIXTURE = path.join(REPO_ROOT, 'tests/fixtures/shops/roestwerk');
const SHOP_NAME = 'Röstwerk Kaffee';

let service: TestService;
let browser: Browser;
let opened: TestPage | undefined;
let shopDir: string;

jest.setTimeout(240_000);

/** The fixture, closed from yesterday to tomorrow in Berlin, so an escalated answer always meets the outside-hours note. */
async function closedRoestwerk(): Promise<string> {
  const shop = parse(await fs.readFile(path.join(FIXTURE, 'shop.yaml'), 'utf8')) as Record<string, any>;
  const berlinDate = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'Europe/Berlin' });
  shop['support_hours'].closed = [-1, 0, 1].map(berlinDate);
  shop['knowledge'].folders = [path.join(FIXTURE, 'hilfe')];
  shopDir = await makeTempDir('roestwerk-');
  const file = path.join(shopDir, 'shop.yaml');
  await fs.writeFile(file, stringify(shop));
  return file;
}

beforeAll(async () => {
  const shopFile = await closedRoestwerk();
  [service, browser] = await Promise.all([startTestService({ env: { SHOP_FILE: shopFile, EVENTS_POLL_MS: '200' } }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await fs.rm(shopDir, { recursive: true, force: true });
});
afterEach(() => closeTestPage(opened));

/** Every fixed piece of the English defaults (sentences, widget words, labels) between their `{…}` places, with a word of 3+ letters in it. */
function englishFixedWords(): string[] {
  const pieces = wordFields(BUILT_IN_WORDS['en']!).flatMap(([, text]) => text.split(/\{\w+\}/).map((piece) => piece.trim()));
  return [...new Set(pieces.filter((piece) => /\p{L}{3}/u.test(piece)))];
}

/** The English fixed words found in a text: each piece as a whole, not inside a longer word ("Send" is not in "Senden"). */
function englishIn(text: string): string[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return englishFixedWords().filter((piece) => new RegExp(`(?<!\\p{L})${escape(piece)}(?!\\p{L})`, 'u').test(text));
}

/** What a customer can read on the page: its title and text, the widget's text, and the words its controls are named by. */
async function readableText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const root = doc.querySelector('[data-support-widget]').shadowRoot;
    const named = [...root.querySelectorAll('[placeholder], [aria-label], [title]')].flatMap((e: any) =>
      ['placeholder', 'aria-label', 'title'].map((a) => e.getAttribute(a)).filter(Boolean),
    );
    return [doc.title, doc.body.innerText, root.textContent, ...named].join('\n');
  });
}

/** ICU writes some spaces as narrow or no-break ones ("09:00\u202fUhr"). */
const plain = (text: string | null) => (text ?? '').replace(/[\u00a0\u2009\u202f]/g, ' ');

const CUSTOMERS = [
  {
    locale: 'de-DE',
    language: 'de',
    question: 'Verkaufen Sie auch Teleskope, mit denen man die Sterne beobachten kann?',
    later: 'Und wann kommt meine Bestellung an?',
    reply: 'Teleskope haben wir leider nicht, aber sehr guten Kaffee.',
    hours: 'Mo–Do 09:00–17:00 Uhr und Fr 09:00–15:00 Uhr (Mitteleuropäische Zeit)',
    launcher: 'Frag die Rösterei', // the shop file's own German label
    subtitle: 'Frisch geröstet, schnell beantwortet',
  },
  {
    locale: 'nl-NL',
    language: 'nl',
    question: 'Verkopen jullie ook telescopen waarmee je naar de sterren kunt kijken?',
    later: 'En wanneer komt mijn bestelling aan?',
    reply: 'Telescopen hebben we helaas niet, maar wel heerlijke koffie.',
    hours: 'ma–do 09:00–17:00 en vr 09:00–15:00 (Midden-Europese tijd)',
    launcher: BUILT_IN_WORDS['nl']!.widget.labels.open, // no Dutch words in the shop file: the built-in Dutch
    subtitle: BUILT_IN_WORDS['nl']!.widget.subtitle,
  },
];

test('the English check finds English fixed words, and only whole ones', () => {
  expect(englishIn('Chat with us')).toContain('Chat with us');
  expect(englishIn('Mon–Thu 9:00 AM. Our support team is offline right now.')).toContain('Our support team');
  expect(englishIn('Senden Sie uns Quellen')).toEqual([]);
  expect(englishFixedWords().length).toBeGreaterThan(40);
});

test.each(CUSTOMERS)('a $locale browser reads the page, the widget, the hours and the takeover in its own language, no English', async (customer) => {
  const words = BUILT_IN_WORDS[customer.language]!;
  opened = await openTestPage(browser, { width: 1100, height: 850 }, { locale: customer.locale });
  const { page } = opened;

  // The page at /: the shop's name, in the customer's language, nothing of the sample shop.
  await page.goto(`${service.baseURL}/`);
  expect(await page.evaluate(() => (globalThis as any).document.documentElement.lang)).toBe(customer.language);
  expect(await page.title()).toBe(fill(words.widget.title, { shop: SHOP_NAME }));
  expect(await page.locator('h1').textContent()).toBe(SHOP_NAME);
  expect(await page.locator('main p').textContent()).toBe(words.page_intro);
  expect(await page.content()).not.toMatch(/Northwind|Questions about an order|help center/i);

  const widget = page.locator('[data-support-widget]');
  await expect(widget.getAttribute('lang')).resolves.toBe(customer.language);
  await expect(widget.locator('.launcher').textContent()).resolves.toBe(customer.launcher);
  await widget.locator('.launcher').click();
  await expect(widget.locator('.subtitle').textContent()).resolves.toBe(customer.subtitle);
  await expect(widget.locator('.message.welcome').textContent()).resolves.toBe(fill(words.widget.welcome, { title: fill(words.widget.title, { shop: SHOP_NAME }) }));

  // A question the help center cannot answer is escalated: outside support hours, with the hours written for the customer.
  const input = page.getByRole('textbox', { name: words.widget.labels.your_message });
  await input.fill(customer.question);
  await input.press('Enter');
  const handoff = widget.locator('.message.assistant .handoff');
  await handoff.waitFor();
  const note = plain(await handoff.textContent());
  expect(note).toContain(customer.hours);
  expect(note).not.toMatch(/mon-thu|Europe\/Berlin/);
  const answer = plain(await widget.locator('.message.assistant:not(.welcome)').first().locator('.text').textContent());
  // The service's own sentence at the end of the answer: the shop's outside-hours sentence of the customer's language, its hours written likewise.
  expect(answer).toContain(fill(words.outside_hours, { hours: customer.hours }));
  await expect(widget.locator('.rate-up').textContent()).resolves.toBe(words.widget.labels.helpful);

  // A person takes the conversation over: the note, the subtitle and the reply's author are the customer's language.
  const stored = await page.evaluate((key) => (globalThis as any).localStorage.getItem(key), `support-widget:${service.baseURL}`);
  const sessionId = JSON.parse(stored).session_id as string;
  expect((await service.request('POST', `/api/v1/conversations/${sessionId}/takeover`, { agent_name: 'Jana' })).status).toBe(200);
  await widget.getByText(fill(words.widget.labels.joined, { name: 'Jana' })).waitFor();
  await widget.locator('.subtitle', { hasText: fill(words.widget.labels.answering, { name: 'Jana' }) }).waitFor();
  expect((await service.request('POST', `/api/v1/conversations/${sessionId}/replies`, { content: customer.reply })).status).toBe(201);
  await expect(widget.locator('.message.human .author').textContent()).resolves.toBe(fill(words.widget.labels.from_support, { name: 'Jana' }));
  await input.fill(customer.later);
  await input.press('Enter');
  await widget.locator('.status', { hasText: fill(words.widget.labels.queued, { agent: 'Jana' }) }).waitFor();
  await saveScreenshot(page, `widget-shop-language-${customer.language}`);

  // Not one English fixed word anywhere the customer reads.
  const text = await readableText(page);
  expect(text).toContain(customer.reply);
  expect(englishIn(text)).toEqual([]);
});
