/** The routes that serve the built pages (jest's global setup builds public/ first). */
import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { errorHandler, notFoundHandler } from '../../src/http/error-handler';
import { DEFAULT_PUBLIC_DIR, pagesRoutes, type DemoShop } from '../../src/http/routes/pages';
import { createLogger } from '../../src/observability/logger';
import type { WordSource } from '../../src/shop/shop-words';
import { makeTempDir } from '../support/test-service';

const servers: Server[] = [];

/** The pages router alone, with the service's 404 and error handling behind it. */
async function servePagesFrom(publicDir: string, demoShop?: DemoShop, own?: { shopName: string; words: WordSource }): Promise<string> {
  const app = express();
  const words: WordSource = {
    words: { widget: { title: 'Sample support', subtitle: 'Answers any time', welcome: 'Hi from {title}.', outside_hours: 'Away. Back {hours}.' }, by_language: {} },
    languages: [],
  };
  app.use(pagesRoutes({ publicDir, demoShop, shopName: own?.shopName ?? 'Sample', words: own?.words ?? words, sampleShop: !own }));
  app.use(notFoundHandler);
  app.use(errorHandler(createLogger('silent')));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

test('the shop page, the console and their files are served with their types, revalidated on every load', async () => {
  const base = await servePagesFrom(DEFAULT_PUBLIC_DIR);
  const expectations: [string, RegExp][] = [
    ['/', /^text\/html/],
    ['/review', /^text\/html/],
    ['/widget.js', /javascript/],
    ['/review.js', /javascript/],
    ['/review.css', /^text\/css/],
    ['/shop.css', /^text\/css/],
  ];
  for (const [path, type] of expectations) {
    const response = await fetch(`${base}${path}`);
    expect({ path, status: response.status }).toEqual({ path, status: 200 });
    expect(response.headers.get('content-type')).toMatch(type);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('etag')).toBeTruthy();
  }
  const shop = await fetch(`${base}/`);
  expect(await shop.text()).toContain('<script src="/widget.js" data-title="Northwind Home support" defer></script>');
});

test("the pages allow only the service's own scripts and connections, and cannot be framed", async () => {
  const base = await servePagesFrom(DEFAULT_PUBLIC_DIR);
  for (const path of ['/', '/review']) {
    const policy = (await fetch(`${base}${path}`)).headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
  }
});

test("the demo's signed-in page exists only with the demo secret, carries the token it signs and is never cached", async () => {
  const plain = await servePagesFrom(DEFAULT_PUBLIC_DIR);
  expect((await fetch(`${plain}/demo/signed-in`)).status).toBe(404);
  expect(await (await fetch(`${plain}/`)).text()).not.toContain('Sign in as');

  let signed = 0;
  const demo = await servePagesFrom(DEFAULT_PUBLIC_DIR, { customerName: 'Lukas <Brandt>', signCustomerToken: async () => `header.payload.signature${++signed}` });
  const guest = await (await fetch(`${demo}/`)).text();
  expect(guest).toContain('Browsing as a guest. <a href="/demo/signed-in">Sign in as Lukas &#60;Brandt&#62; (demo)</a>');
  expect(guest).toContain('<script src="/widget.js" data-title=');
  const response = await fetch(`${demo}/demo/signed-in`);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
  const page = await response.text();
  expect(page).toContain('<script src="/widget.js" data-user-token="header.payload.signature1" data-title="Northwind Home support" defer></script>');
  expect(page).toContain('Signed in as <strong>Lukas &#60;Brandt&#62;</strong> (demo).');
});

test('a file the build did not make answers the JSON 404, and paths cannot climb out of public/', async () => {
  const base = await servePagesFrom(DEFAULT_PUBLIC_DIR);
  for (const path of ['/missing.js', '/%2e%2e/package.json', '/..%2fpackage.json']) {
    const response = await fetch(`${base}${path}`);
    expect({ path, status: response.status }).toEqual({ path, status: 404 });
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  }
});

test('before `npm run build`, each page answers 503 with what to run', async () => {
  const emptyDir = await makeTempDir('support-agent-unbuilt-');
  try {
    const base = await servePagesFrom(emptyDir);
    for (const path of ['/', '/review', '/widget.js']) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 503 });
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('pages_not_built');
      expect(body.error.message).toContain('npm run build');
    }
  } finally {
    await fs.rm(emptyDir, { recursive: true, force: true });
  }
});

test("a shop's own / is written in the customer's language: the shop file's words, else the built-in ones, else the shop's first language", async () => {
  const words: WordSource = {
    words: { page_intro: 'Fragen zu Kaffee? Schreiben Sie uns im Chat.', by_language: { sw: { page_intro: 'Maswali kuhusu kahawa? Uliza hapa.' } } },
    languages: ['de'],
  };
  const base = await servePagesFrom(DEFAULT_PUBLIC_DIR, undefined, { shopName: 'Röstwerk <Süd>', words });
  const pageFor = async (acceptLanguage?: string) => {
    const response = await fetch(`${base}/`, { headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
    expect(response.headers.get('vary')).toMatch(/Accept-Language/i);
    return response.text();
  };

  const german = await pageFor('de-DE,de;q=0.9');
  expect(german).toMatch(/<html lang="de" dir="ltr">/);
  expect(german).toContain('<title>Röstwerk &#60;Süd&#62; Kundenservice</title>');
  expect(german).toContain('<h1>Röstwerk &#60;Süd&#62;</h1>');
  expect(german).toContain('Fragen zu Kaffee? Schreiben Sie uns im Chat.');

  // Dutch: no Dutch words in the shop file, so the built-in Dutch ones.
  const dutch = await pageFor('nl-NL,nl;q=0.9,en;q=0.5');
  expect(dutch).toMatch(/<html lang="nl"/);
  expect(dutch).toContain('<title>Klantenservice Röstwerk &#60;Süd&#62;</title>');
  expect(dutch).toContain('Vragen over een bestelling');

  // A language only the shop file has, and one nobody has (Icelandic): the shop's own words, then its first language.
  expect(await pageFor('sw')).toContain('Maswali kuhusu kahawa? Uliza hapa.');
  const icelandic = await pageFor('is-IS');
  expect(icelandic).toMatch(/<html lang="de"/);
  expect(icelandic).toContain('Fragen zu Kaffee?');
  expect(await pageFor()).toMatch(/<html lang="de"/);
  for (const page of [german, dutch, icelandic]) expect(page).not.toMatch(/Northwind|Questions about an order| support</);
});
