import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from './test-service';

/** Debian's Chromium (`apt-get install chromium`); playwright-core never downloads a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Without the networking flags Chromium keeps trying to reach the internet. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Screenshots of the pages, kept by CI as test artifacts (gitignored). */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts');

/**
 * Headless Chromium. Each launch gets a new, empty profile (playwright makes a
 * temporary user-data-dir), so no test sees another's localStorage.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (.ci/run does).`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}

/** A test's own browser context and page, and the uncaught errors the page threw. */
export interface TestPage {
  context: BrowserContext;
  page: Page;
  pageErrors: string[];
}

/** A fresh context (empty storage) and page for one test, collecting the page's uncaught errors. */
export async function openTestPage(browser: Browser, viewport: { width: number; height: number }, options: { locale?: string } = {}): Promise<TestPage> {
  // locale: the browser's language (navigator.language and Accept-Language), e.g. 'de-DE'.
  const context = await browser.newContext({ viewport, ...(options.locale && { locale: options.locale }) });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page, pageErrors };
}

/** Closes the test's context; a test whose page threw an uncaught error fails. */
export async function closeTestPage(opened: TestPage | undefined): Promise<void> {
  if (!opened) return;
  await opened.context.close();
  expect(opened.pageErrors).toEqual([]);
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** WCAG's contrast ratio of two colours given as `rgb(…)`/`rgba(…)` strings (1 to 21). */
export function contrastRatio(foreground: string, background: string): number {
  const luminance = (css: string) => {
    const [r, g, b] = parseRgb(css).map((channel) => {
      const v = channel / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
  return (light! + 0.05) / (dark! + 0.05);
}

function parseRgb(css: string): number[] {
  const match = /^rgba?\(\s*([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)/.exec(css);
  if (!match) throw new Error(`Not an rgb() colour: ${css}`);
  return match.slice(1, 4).map(Number);
}

/**
 * The text colour and effective background (the nearest ancestor's opaque one,
 * across shadow roots) of every element with its own visible text under the
 * given root. Runs in the page, so it is written without DOM types (the test
 * tsconfig has none).
 */
export async function textColours(page: Page, rootSelector: string): Promise<{ text: string; color: string; background: string }[]> {
  return page.locator(rootSelector).first().evaluate((root: any) => {
    const view = root.ownerDocument.defaultView;
    const backgroundOf = (element: any): string => {
      for (let node = element; node; node = node.parentElement ?? node.getRootNode?.()?.host) {
        const colour = view.getComputedStyle(node).backgroundColor;
        if (colour && !/rgba\(.*,\s*0\)$/.test(colour) && colour !== 'transparent') return colour;
      }
      return 'rgb(255, 255, 255)';
    };
    const found: { text: string; color: string; background: string }[] = [];
    const visit = (node: any) => {
      for (const child of node.children ?? []) {
        const style = view.getComputedStyle(child);
        const hidden = style.display === 'none' || style.visibility === 'hidden' || child.getClientRects().length === 0;
        if (hidden) continue;
        const ownText = [...child.childNodes]
          .filter((n: any) => n.nodeType === 3)
          .map((n: any) => n.textContent.trim())
          .join(' ')
          .trim();
        const clipped = style.clip === 'rect(0px, 0px, 0px, 0px)'; // visually hidden text is for screen readers
        if (ownText && !clipped) found.push({ text: ownText.slice(0, 40), color: style.color, background: backgroundOf(child) });
        visit(child);
        if (child.shadowRoot) visit(child.shadowRoot);
      }
    };
    visit(root.shadowRoot ?? root);
    return found;
  });
}

