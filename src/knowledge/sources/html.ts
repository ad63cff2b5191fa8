import { Readability } from '@mozilla/readability';
import type * as Linkedom from 'linkedom' with { 'resolution-mode': 'import' };
import TurndownService from 'turndown';
import { tables, strikethrough } from '@joplin/turndown-plugin-gfm';

/** A web page reduced to what a knowledge base should keep. */
export interface HtmlPage {
  /** The article's `h1` (in its main content first), else the page's `<title>`; null when it has neither. */
  title: string | null;
  /** The main content as Markdown, opening with `# title` when there is one. */
  markdown: string;
  /** `<link rel="canonical">` resolved to an absolute http(s) URL, or null. */
  canonicalUrl: string | null;
  /**
   * Absolute http(s) URLs of every `<a href>` in the whole page (navigation included, as it
   * was before the main content was picked), resolved against `<base href>` and the page's
   * URL, without fragments, each once, in page order. Relative links are left out when the
   * page's URL is not known.
   */
  links: string[];
}

/** Elements that are never an article's content. */
const DROPPED_ELEMENTS = [
  'script', 'style', 'noscript', 'template', 'nav', 'aside', 'iframe', 'svg', 'canvas', 'button',
  'input', 'select', 'textarea', 'dialog', 'object', 'embed', 'link', 'meta', 'img', 'picture', 'video', 'audio',
];

/** Landmark roles of site chrome. */
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar']);

/**
 * Words that, as one part of a class or id (`cookie-banner`, `related_articles`), mark site
 * chrome: cookie banners, related-article lists, share and vote widgets, menus. Matched per
 * word part so `article-body` or `shared-content` stay.
 */
const CHROME_WORDS = new Set([
  'cookie', 'cookies', 'consent', 'gdpr', 'banner', 'related', 'breadcrumb', 'breadcrumbs', 'newsletter',
  'share', 'sharing', 'social', 'sidebar', 'promo', 'subscribe', 'feedback', 'vote', 'votes', 'voting', 'rating',
  'nav', 'navbar', 'navigation', 'menu', 'skip', 'popup', 'modal', 'advert', 'ads', 'comments', 'recommended',
  // An article's byline and its follow button: kept inside <article>, yet the same in every page.
  'meta', 'byline', 'author', 'follow',
]);

/**
 * Readability's pick is kept when it has at least this share of the text of the page's own
 * main container (`<article>`, `<main>`): on a short help article it sometimes keeps a
 * fragment only.
 */
const MIN_SHARE_OF_CONTAINER = 0.6;
/** …and at most this much more: more means it took in blocks around the article. */
const MAX_SHARE_OF_CONTAINER = 1.2;

type ParseHtml = (typeof Linkedom)['parseHTML'];
let linkedom: Promise<ParseHtml> | undefined;
/** linkedom's CommonJS build requires ES-only modules (css-select): load its ES module, once. */
const loadParser = (): Promise<ParseHtml> => (linkedom ??= import('linkedom').then((m) => m.parseHTML));

const turndown = createTurndown();

/**
 * The main content of an HTML page as Markdown (navigation, header, footer, cookie banners,
 * related-article lists, scripts and forms dropped; headings, lists, tables, code and the
 * text of links kept), with its title, canonical URL and links. Mozilla Readability picks the
 * content on a linkedom DOM after the page's chrome is removed; when the page marks its
 * content (`<article>`, `<main>`) and Readability's pick is much smaller or larger than that,
 * the marked content is used.
 */
export async function htmlToMarkdown(html: string, pageUrl?: string): Promise<HtmlPage> {
  const parseHTML = await loadParser();
  const document = parseDocument(html, parseHTML);
  const base = baseUrl(document, pageUrl);
  const canonical = document.querySelector('link[rel~="canonical" i][href]')?.getAttribute('href');
  const canonicalUrl = canonical ? absoluteHttpUrl(canonical, base) : null;
  const links = collectLinks(document, base);
  const pageTitle = collapse(document.querySelector('title')?.textContent ?? '');

  removeChrome(document);
  absoluteLinkTargets(document, base);
  promoteHeaderRows(document);
  const container = mainContainer(document);
  const h1 = container?.querySelector('h1') ?? document.querySelector('h1');
  const title = collapse(h1?.textContent ?? '') || pageTitle || null;

  const contentHtml = pickContent(document, container, parseHTML);
  const markdown = withTitle(turndown.turndown(contentHtml), title);
  return { title, markdown, canonicalUrl, links };
}

/**
 * A whole HTML document that is all content (what mammoth makes of a Word file) as Markdown,
 * nothing picked or dropped but scripts, styles and images; the title is its first `h1`.
 */
export async function wholeHtmlToMarkdown(html: string): Promise<{ title: string | null; markdown: string }> {
  const parseHTML = await loadParser();
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const el of [...document.querySelectorAll('script, style, template, img')]) el.remove();
  promoteHeaderRows(document);
  const title = collapse(document.querySelector('h1')?.textContent ?? '') || null;
  return { title, markdown: withTitle(turndown.turndown(document.body.innerHTML), title) };
}

/** The page as a document with a body: linkedom leaves the body empty for markup without `<html>` (a fragment, or `<body>…` alone). */
function parseDocument(html: string, parseHTML: ParseHtml): any {
  if (/<html[\s>]/i.test(html)) return parseHTML(html).document;
  const wrapped = /<body[\s>]/i.test(html) ? `<!doctype html><html>${html}</html>` : `<!doctype html><html><body>${html}</body></html>`;
  return parseHTML(wrapped).document;
}

/**
 * Makes the first row of a table without header cells its header (Word tables, many CMS
 * tables): the GFM table rule otherwise puts an empty header row above the real one.
 */
function promoteHeaderRows(document: any): void {
  for (const table of document.querySelectorAll('table')) {
    if (table.querySelector('th')) continue;
    const firstRow = table.querySelector('tr');
    if (!firstRow) continue;
    for (const td of [...firstRow.children].filter((c: any) => c.tagName === 'TD')) {
      const th = document.createElement('th');
      while (td.firstChild) th.appendChild(td.firstChild);
      td.replaceWith(th);
    }
  }
}

function baseUrl(document: any, pageUrl: string | undefined): string | undefined {
  const href = document.querySelector('base[href]')?.getAttribute('href');
  if (href) {
    try {
      return new URL(href, pageUrl).href;
    } catch {
      // A relative <base> without the page's URL: resolve against the page alone.
    }
  }
  return pageUrl;
}

function absoluteHttpUrl(href: string, base: string | undefined): string | null {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

function collectLinks(document: any, base: string | undefined): string[] {
  const links = new Set<string>();
  for (const a of document.querySelectorAll('a[href]')) {
    const url = absoluteHttpUrl(a.getAttribute('href'), base);
    if (url) links.add(url);
  }
  return [...links];
}

/**
 * Each link's address made absolute (or removed when it is not an http(s) page), so the
 * Markdown can keep it: a help article's links (a setup guide, a form) are what the agent
 * may point the customer to, and they are part of the article as its own Markdown has them.
 */
function absoluteLinkTargets(document: any, base: string | undefined): void {
  for (const a of document.querySelectorAll('a[href]')) {
    const url = absoluteHttpUrl(a.getAttribute('href'), base);
    if (url) a.setAttribute('href', url);
    else a.removeAttribute('href');
  }
}

/** Removes what is never the article: chrome elements, landmarks, hidden parts, chrome-named blocks. */
function removeChrome(document: any): void {
  for (const el of [...document.querySelectorAll(DROPPED_ELEMENTS.join(','))]) el.remove();
  // A page's own header is chrome; an article's (its title, its date) is not. Footers are
  // chrome wherever they are: an article's holds its votes, "more questions?", share links.
  for (const el of [...document.querySelectorAll('header')]) {
    if (!el.parentElement?.closest('article, main, [role="main"]')) el.remove();
  }
  for (const el of [...document.querySelectorAll('footer')]) el.remove();
  // Some sites wrap the whole page in one form (ASP.NET): keep a form that holds the article.
  for (const el of [...document.querySelectorAll('form')]) {
    if (!el.querySelector('article, main, [role="main"], h1')) el.remove();
  }
  for (const el of [...document.querySelectorAll('*')]) {
    if (!el.isConnected) continue;
    if (el.closest('article, main, [role="main"]') === el) continue;
    if (isChrome(el)) el.remove();
  }
}

function isChrome(el: any): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  if (/display\s*:\s*none/i.test(el.getAttribute('style') ?? '')) return true;
  const role = (el.getAttribute('role') ?? '').toLowerCase();
  if (CHROME_ROLES.has(role)) return true;
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''} ${el.getAttribute('aria-label') ?? ''}`.toLowerCase();
  return names.split(/[\s_-]+/).some((word) => CHROME_WORDS.has(word));
}

/** The element the page itself marks as its content: its one `<article>`, else `<main>`. */
function mainContainer(document: any): any | null {
  const articles = document.querySelectorAll('article');
  if (articles.length === 1) return articles[0];
  return document.querySelector('main, [role="main"]');
}

function pickContent(document: any, container: any | null, parseHTML: ParseHtml): string {
  const containerText = container ? textLength(container.textContent) : 0;
  // Readability changes the DOM it reads: give it a copy of the cleaned page. A page that marks
  // its one <article> has its content there: Readability reads only that, so on a short article
  // it cannot climb to the parent and take the lists beside it ("Recently viewed articles").
  const readable = container?.tagName === 'ARTICLE' ? `<!doctype html><html><body>${container.outerHTML}</body></html>` : document.toString();
  const article = new Readability(parseHTML(readable).document as any).parse();
  const articleText = textLength(article?.textContent ?? '');
  if (container && (articleText < containerText * MIN_SHARE_OF_CONTAINER || articleText > containerText * MAX_SHARE_OF_CONTAINER)) {
    return container.innerHTML;
  }
  if (article?.content && articleText > 0) return article.content;
  return container?.innerHTML ?? document.body?.innerHTML ?? '';
}

function textLength(text: string): number {
  return collapse(text).length;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The markdown opening with `# title`, the content's own copy of the title heading dropped. */
function withTitle(markdown: string, title: string | null): string {
  let body = markdown.trim();
  const first = /^#{1,6} +(.*)\n?/.exec(body);
  if (first && title && collapse(first[1]!) === title) body = body.slice(first[0].length).trim();
  if (!title) return body;
  return body === '' ? `# ${title}` : `# ${title}\n\n${body}`;
}

function createTurndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  service.use([tables, strikethrough]);
  // A link keeps its text and, when it leads to a web page, its address, as a help article's
  // own Markdown would; an in-page or script link (no http(s) address left) keeps its text only.
  service.addRule('linkWithAddress', {
    filter: 'a',
    replacement: (content, node) => {
      const href = (node as { getAttribute(name: string): string | null }).getAttribute('href');
      const text = content.trim();
      if (!href || text === '' || text === href) return content;
      return `[${text}](${href})`;
    },
  });
  return service;
}
