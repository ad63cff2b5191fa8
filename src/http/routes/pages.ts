import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Response } from 'express';
import { AppError } from '../../errors';

/** Where `npm run build` (scripts/build-web.ts) writes the pages. */
export const DEFAULT_PUBLIC_DIR = path.resolve(__dirname, '../../../public');

export interface PagesOptions {
  /** The built pages: index.html, review.html, widget.js, review.js and their stylesheets. */
  publicDir: string;
  /** The demo's signed-in customer; absent (a shop's real secret is configured): the page shows the anonymous visitor only. */
  demoShop?: DemoShop;
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
  if (demoShop) {
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
  router.get('/widget.js', (_req, res) =>
    sendBuilt(res, options.publicDir, 'widget.js', { 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'cross-origin' }),
  );
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
