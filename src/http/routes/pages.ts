import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Response } from 'express';
import { AppError } from '../../errors';
import { RIGHT_TO_LEFT } from '../../shop/widget-labels';
import { servedLanguages, widgetWords, widgetWordSets, wordsFor, type WordSource } from '../../shop/shop-words';

/** Where `npm run build` (scripts/build-web.ts) writes the pages. */
export const DEFAULT_PUBLIC_DIR = path.resolve(__dirname, '../../../public');

/** The shop as its pages show it. */
export interface ShopPages {
  shopName: string;
  /** The shop's words and languages: / is written in the customer's language, and widget.js carries the widget's words in every language it serves. */
  words: WordSource;
  /** True: / is the sample shop's demo page (web/index.html); false: a plain page naming the shop, with the widget. */
  sampleShop: boolean;
  /** The demo's signed-in customer (sample shop only); absent (a shop's real secret is configured): the page shows the anonymous visitor only. */
  demoShop?: DemoShop;
}

export interface PagesOptions extends ShopPages {
  /** The built pages: index.html, review.html, widget.js, review.js and their stylesheets. */
  publicDir: string;
}

/**
 * The demo shop's backend: it knows its signed-in customer and signs their token
 * with the demo secret, as a real shop's backend signs with CUSTOMER_IDENTITY_SECRET.
 */
export interface DemoShop {
  customerName: string;
  signCustomerToken(): Promise<string>;
}

/** Where index.html marks the demo's account bar. */
const DEMO_ACCOUNT_MARK = '<!-- demo-account -->';
const WIDGET_TAG = '<script src="/widget.js"';
/** Where widget.js (web/widget.ts) holds the shop's words: a string literal the server fills in as it serves the file. */
const WIDGET_WORDS_MARK = /(["'])__SHOP_WIDGET_WORDS__\1/;

/**
 * Our own pages allow only our own scripts and requests. Inline styles stay
 * allowed: the widget sets its textarea's height as the customer types.
 */
const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * The demo shop page with the widget (GET /), the review console (GET /review),
 * and the files they load (/widget.js, /review.js, the stylesheets), all from
 * publicDir. They are revalidated on every load (ETag), so a shop that embeds
 * widget.js gets a new build at once.
 */
export function pagesRoutes(options: PagesOptions): Router {
  const router = Router();
  const sendPage = (file: string) => (_req: unknown, res: Response) => sendBuilt(res, options.publicDir, file, PAGE_SECURITY_HEADERS);

  const demoShop = options.demoShop;
  // The widget's words are the same for every request: serialised once.
  const widgetWordsLiteral = JSON.stringify(JSON.stringify(widgetWordSets(options.shopName, options.words))).replace(
    /[\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
  if (!options.sampleShop) {
    // A shop of its own: / names the shop and carries the widget, in the customer's language; the sample shop's demo page is not served.
    const languages = servedLanguages(options.words);
    router.get('/', (req, res) => {
      const language = req.acceptsLanguages(languages) || languages[0]!;
      res
        .set({ 'Cache-Control': 'no-cache', Vary: 'Accept-Language', ...PAGE_SECURITY_HEADERS })
        .type('html')
        .send(shopPage(options.shopName, language, options.words));
    });
  } else if (demoShop) {
    // Both modes of the demo: an anonymous visitor (/), and a signed-in customer whose
    // token the "shop" renders into the widget's tag, as a shop's own page template would.
    router.get('/', async (_req, res) => {
      const page = await readBuilt(options.publicDir, 'index.html');
      const bar = `<p class="demo-account">Browsing as a guest. <a href="/demo/signed-in">Sign in as ${escapeHtml(demoShop.customerName)} (demo)</a></p>`;
      res.set({ 'Cache-Control': 'no-cache', ...PAGE_SECURITY_HEADERS }).type('html').send(page.replace(DEMO_ACCOUNT_MARK, bar));
    });
    router.get('/demo/signed-in', async (_req, res) => {
      const page = await readBuilt(options.publicDir, 'index.html');
      const token = await demoShop.signCustomerToken();
      const bar = `<p class="demo-account">Signed in as <strong>${escapeHtml(demoShop.customerName)}</strong> (demo). <a href="/">Sign out</a></p>`;
      const html = page.replace(DEMO_ACCOUNT_MARK, bar).replace(WIDGET_TAG, `${WIDGET_TAG} data-user-token="${escapeHtml(token)}"`);
      // The page carries a token: no cache may keep it.
      res.set({ 'Cache-Control': 'no-store', ...PAGE_SECURITY_HEADERS }).type('html').send(html);
    });
  } else {
    router.get('/', sendPage('index.html'));
  }
  router.get('/review', sendPage('review.html'));
  // Shops load widget.js from their own pages, so it may be used cross-origin.
  // Its words are the shop's: filled in here, so every page that embeds it shows them without another request.
  router.get('/widget.js', async (_req, res) => {
    const script = await readBuilt(options.publicDir, 'widget.js');
    res
      .set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'cross-origin' })
      .type('text/javascript')
      .send(script.replace(WIDGET_WORDS_MARK, () => widgetWordsLiteral));
  });
  for (const file of ['review.js', 'review.css', 'shop.css']) {
    router.get(`/${file}`, (_req, res) => sendBuilt(res, options.publicDir, file, { 'X-Content-Type-Options': 'nosniff' }));
  }
  // Anything else the build adds later (images, fonts); unknown names fall through to the JSON 404.
  router.use(
    express.static(options.publicDir, {
      index: false,
      redirect: false,
      setHeaders: (res, filePath) => {
        res.set({ 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
        if (filePath.endsWith('.html')) res.set(PAGE_SECURITY_HEADERS);
      },
    }),
  );
  return router;
}

async function sendBuilt(res: Response, publicDir: string, file: string, headers: Record<string, string>): Promise<void> {
  const filePath = path.join(publicDir, file);
  if (!(await exists(filePath))) {
    throw new AppError(503, 'pages_not_built', `The web pages are not built yet: run \`npm run build\` (\`npm start\` does it first). Missing: ${file}`);
  }
  res.set({ 'Cache-Control': 'no-cache', ...headers });
  await new Promise<void>((resolve, reject) =>
    res.sendFile(filePath, (error) => {
      // Once the headers are out the client has gone away mid-file: nothing left to answer.
      if (error && !res.headersSent) reject(error);
      else resolve();
    }),
  );
}

async function readBuilt(publicDir: string, file: string): Promise<string> {
  const filePath = path.join(publicDir, file);
  if (!(await exists(filePath))) {
    throw new AppError(503, 'pages_not_built', `The web pages are not built yet: run \`npm run build\` (\`npm start\` does it first). Missing: ${file}`);
  }
  return fs.promises.readFile(filePath, 'utf8');
}

/**
 * The page at / for a shop of its own, in the customer's language: its name and the widget,
 * nothing of the sample shop (and no link to the agents' console: customers read this page).
 * Its `lang` is also what the widget speaks.
 */
function shopPage(shopName: string, language: string, shop: WordSource): string {
  const words = wordsFor(shop, language);
  const name = escapeHtml(shopName);
  return `<!doctype html>
<html lang="${escapeHtml(language)}" dir="${RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr'}">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" href="data:," />
    <title>${escapeHtml(widgetWords(shopName, words).title)}</title>
  </head>
  <body style="font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 40rem; padding: 0 1rem">
    <main>
      <h1>${name}</h1>
      <p>${escapeHtml(words.page_intro)}</p>
    </main>
    <script src="/widget.js" defer></script>
  </body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function exists(filePath: string): Promise<boolean> {
  try {
    await fs.promises.access(filePath, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
