import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Response } from 'express';
import { AppError } from '../../errors';

/** Where `npm run build` (scripts/build-web.ts) writes the pages. */
export const DEFAULT_PUBLIC_DIR = path.resolve(__dirname, '../../../public');

export interface PagesOptions {
  /** The built pages: index.html, review.html, widget.js, review.js and their stylesheets. */
  publicDir: string;
}

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

  router.get('/', sendPage('index.html'));
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

async function exists(filePath: string): Promise<boolean> {
  try {
    await fs.promises.access(filePath, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}
