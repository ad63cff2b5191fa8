/**
 * A folder of markdown documents as a help-center website, for `eval:answers --as-site`:
 * each document becomes an article page wrapped in the chrome real help centers put
 * around an article (a cookie banner, a header with navigation and search,
 * breadcrumbs, a sidebar of the section's other articles, a "was this helpful"
 * footer, related and recently viewed articles, a site footer, scripts), and a
 * sitemap lists them. Everything but the article body names other documents or says
 * nothing about the article: chrome that leaks into chunks shows up as lost recall.
 *
 * It knows which page is which document (`documentOf`), so answers that cite URLs can
 * be scored against the set's document ids.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** One page the site serves. */
export interface SitePage {
  contentType: string;
  body: string;
}

/** The site, before it is served: pages by path, and which document each article path holds. */
export interface ChromedSite {
  /** Pages by path (`/sitemap.xml`, `/hc/en-us/articles/…`, `/robots.txt`). */
  pages: Map<string, SitePage>;
  /** Article path → the document's file name (`ibmcld_00462.md`). */
  documentByPath: Map<string, string>;
}

/** Phrases that appear only in the chrome: a stored chunk holding one of them has chrome in it. */
export const CHROME_MARKERS = [
  'We use cookies to improve your experience',
  'Accept all cookies',
  'Search the help center',
  'Submit a request',
  'Articles in this section',
  'Was this article helpful',
  'found this helpful',
  'Related articles',
  'Recently viewed articles',
  'All rights reserved',
  'Subscribe to our newsletter',
  'Cookie settings',
  'min read',
  'Have more questions?',
] as const;

const SITE_NAME = 'Northwind Help Center';
const SECTIONS = ['Getting started', 'Account and billing', 'Guides and how-tos', 'Troubleshooting', 'Reference', 'Policies'];

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** Inline markdown: HTML escaped, links as anchors (the text is what matters to retrieval). */
function inline(text: string): string {
  return escapeHtml(text).replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, href: string) => `<a href="${href}">${label}</a>`);
}

/**
 * The subset of markdown the sets' documents use, as a site's CMS would render it:
 * `#` headings, paragraphs (lines joined as soft breaks), `*`/`-` and numbered lists,
 * quotes and links. The document's first `# ` line is its title (the page's h1), not body.
 */
export function renderMarkdownBody(markdown: string): { title: string | null; html: string } {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let title: string | null = null;
  const firstContent = lines.findIndex((l) => l.trim() !== '');
  if (firstContent >= 0 && /^# /.test(lines[firstContent]!)) {
    title = lines[firstContent]!.slice(2).trim();
    lines.splice(0, firstContent + 1);
  }
  const html: string[] = [];
  let paragraph: string[] = [];
  let list: { kind: 'ul' | 'ol'; items: string[] } | null = null;
  const flush = () => {
    if (paragraph.length > 0) html.push(`<p>${paragraph.map(inline).join('\n')}</p>`);
    paragraph = [];
    if (list) html.push(`<${list.kind}>${list.items.map((i) => `<li>${inline(i)}</li>`).join('')}</${list.kind}>`);
    list = null;
  };
  for (const raw of lines) {
    const line = raw.trimEnd();
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[*-]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+\.\s+(.*)$/.exec(line);
    if (line.trim() === '') {
      flush();
    } else if (heading) {
      flush();
      const level = Math.max(2, heading[1]!.length);
      html.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
    } else if (bullet || numbered) {
      const kind = bullet ? 'ul' : 'ol';
      if (paragraph.length > 0 || (list && list.kind !== kind)) flush();
      list ??= { kind, items: [] };
      list.items.push((bullet ?? numbered)![1]!);
    } else if (line.startsWith('> ')) {
      flush();
      html.push(`<blockquote><p>${inline(line.slice(2))}</p></blockquote>`);
    } else if (list) {
      // A continuation line of the last item.
      list.items[list.items.length - 1] += ` ${line.trim()}`;
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return { title, html: html.join('\n') };
}

function slugOf(title: string): string {
  return (
    title
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'article'
  );
}

interface Article {
  file: string;
  title: string;
  path: string;
  section: string;
  bodyHtml: string;
}

function articlePage(article: Article, all: Article[], index: number, origin: string): string {
  const siblings = all.filter((a) => a.section === article.section && a !== article).slice(0, 8);
  // Related and recently viewed: other documents' titles, as a CMS picks them (neighbours here).
  const at = (offset: number) => all[(((index + offset) % all.length) + all.length) % all.length]!;
  const others = (offsets: number[]) => [...new Set(offsets.map(at))].filter((a) => a !== article);
  const related = others([7, 14, 21, 28, 35]);
  const recent = others([-11, -22, -33]);
  const links = (items: Article[]) => items.map((a) => `<li><a href="${a.path}">${escapeHtml(a.title)}</a></li>`).join('');
  const nav = SECTIONS.map((s) => `<li><a href="/hc/en-us/sections/${slugOf(s)}">${s}</a></li>`).join('');
  const helpful = 3 + ((index * 13) % 40);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(article.title)} – ${SITE_NAME}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${escapeHtml(article.title)}. Answers and guides from the ${SITE_NAME}.">
<link rel="canonical" href="${origin}${article.path}">
<link rel="stylesheet" href="/assets/theme.css">
<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);} gtag('js', new Date()); gtag('config', 'G-NORTHWIND');</script>
<script src="/assets/theme.js" defer></script>
</head>
<body class="article-page">
<div id="cookie-consent" class="cookie-banner" role="dialog" aria-label="Cookie consent">
  <p>We use cookies to improve your experience, analyse site traffic and personalise content and ads. By clicking "Accept all cookies" you agree to the storing of cookies on your device. You can change your choice at any time under Cookie settings. <a href="/hc/en-us/articles/cookie-policy">Read our cookie policy</a>.</p>
  <button type="button" id="accept-cookies">Accept all cookies</button>
  <button type="button">Reject non-essential</button>
  <button type="button">Manage preferences</button>
</div>
<a class="skip-link" href="#main-content">Skip to main content</a>
<header class="site-header">
  <a class="logo" href="/hc/en-us"><img src="/assets/logo.svg" alt="Northwind"> ${SITE_NAME}</a>
  <nav class="main-nav" aria-label="Main navigation"><ul>${nav}<li><a href="/hc/en-us/community">Community</a></li><li><a href="https://status.northwind.example">System status</a></li></ul></nav>
  <form class="search" role="search" action="/hc/en-us/search" method="get"><label for="query">Search</label><input type="search" id="query" name="query" placeholder="Search the help center"><button type="submit">Search</button></form>
  <div class="user-nav"><a href="/hc/en-us/requests/new">Submit a request</a> <a href="/hc/en-us/signin">Sign in</a></div>
</header>
<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/hc/en-us">${SITE_NAME}</a></li><li><a href="/hc/en-us/sections/${slugOf(article.section)}">${article.section}</a></li><li aria-current="page">${escapeHtml(article.title)}</li></ol></nav>
<div class="container">
<aside class="sidebar" aria-label="Section navigation">
  <h2>Articles in this section</h2>
  <ul>${links(siblings)}</ul>
  <a class="see-more" href="/hc/en-us/sections/${slugOf(article.section)}">See more</a>
</aside>
<main id="main-content">
<article class="article">
  <header class="article-header">
    <h1 class="article-title">${escapeHtml(article.title)}</h1>
    <div class="article-meta"><span class="author">Northwind Support</span> · <time datetime="2026-10-${String(1 + (index % 28)).padStart(2, '0')}">Updated October ${1 + (index % 28)}, 2026</time> · ${2 + (index % 9)} min read</div>
    <a class="follow" href="/hc/en-us/articles/follow">Follow</a>
  </header>
  <div class="article-body">
${article.bodyHtml}
  </div>
  <footer class="article-footer">
    <div class="article-votes"><p>Was this article helpful?</p><button type="button">Yes</button><button type="button">No</button><p class="article-vote-count">${helpful} out of ${helpful + 5} found this helpful</p></div>
    <p class="article-more-questions">Have more questions? <a href="/hc/en-us/requests/new">Submit a request</a></p>
    <div class="share"><a href="https://twitter.example/share">Share on X</a> <a href="https://linkedin.example/share">Share on LinkedIn</a></div>
  </footer>
</article>
<section class="related-articles" aria-label="Related articles">
  <h2>Related articles</h2>
  <ul>${links(related)}</ul>
</section>
<section class="recent-articles" aria-label="Recently viewed articles">
  <h2>Recently viewed articles</h2>
  <ul>${links(recent)}</ul>
</section>
</main>
</div>
<footer class="site-footer">
  <div class="footer-columns">
    <div><h3>Company</h3><ul><li><a href="/about">About Northwind</a></li><li><a href="/careers">Careers</a></li><li><a href="/press">Press</a></li></ul></div>
    <div><h3>Support</h3><ul><li><a href="/hc/en-us/requests/new">Contact support</a></li><li><a href="/hc/en-us/community">Community forum</a></li><li><a href="https://status.northwind.example">System status</a></li></ul></div>
    <div><h3>Legal</h3><ul><li><a href="/privacy">Privacy policy</a></li><li><a href="/terms">Terms of service</a></li><li><a href="/hc/en-us/articles/cookie-policy">Cookie settings</a></li><li><a href="/imprint">Imprint</a></li></ul></div>
  </div>
  <form class="newsletter" action="/newsletter" method="post"><label for="email">Subscribe to our newsletter for product news and tips</label><input type="email" id="email" name="email"><button type="submit">Subscribe</button></form>
  <p class="copyright">© 2026 Northwind Inc. All rights reserved. Northwind and the Northwind logo are trademarks of Northwind Inc.</p>
</footer>
<script>document.getElementById('accept-cookies').addEventListener('click', function () { document.getElementById('cookie-consent').remove(); });</script>
</body>
</html>
`;
}

/**
 * Builds the site for the documents of `docsDir` (every `.md` file): each an article
 * at `/hc/en-us/articles/<n>-<slug>`, listed by `/sitemap.xml` with a `lastmod`, and a
 * `/robots.txt` that allows everything. `origin` is where it will be served
 * (canonical links and the sitemap name absolute URLs).
 */
export function buildChromedSite(docsDir: string, origin: string): ChromedSite {
  const files = fs
    .readdirSync(docsDir)
    .filter((f) => f.endsWith('.md'))
    .sort();
  const articles: Article[] = files.map((file, i) => {
    const { title, html } = renderMarkdownBody(fs.readFileSync(path.join(docsDir, file), 'utf8'));
    const shown = title ?? path.basename(file, '.md');
    return { file, title: shown, path: `/hc/en-us/articles/${360_000 + i}-${slugOf(shown)}`, section: SECTIONS[i % SECTIONS.length]!, bodyHtml: html };
  });
  const pages = new Map<string, SitePage>();
  const documentByPath = new Map<string, string>();
  for (const [i, article] of articles.entries()) {
    pages.set(article.path, { contentType: 'text/html; charset=utf-8', body: articlePage(article, articles, i, origin) });
    documentByPath.set(article.path, article.file);
  }
  const urls = articles.map((a, i) => `  <url><loc>${origin}${a.path}</loc><lastmod>2026-10-${String(1 + (i % 28)).padStart(2, '0')}</lastmod></url>`);
  pages.set('/sitemap.xml', {
    contentType: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`,
  });
  pages.set('/robots.txt', { contentType: 'text/plain', body: `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n` });
  return { pages, documentByPath };
}

/** A served chromed site: its origin, its sitemap's URL, and the document a page URL (or canonical URL) holds. */
export interface ServedSite {
  origin: string;
  sitemapUrl: string;
  /** The document file name of an article URL; null for anything else. */
  documentOf(url: string): string | null;
  close(): Promise<void>;
}

/** Serves the chromed site of `docsDir` on 127.0.0.1 (a free port); anything not built answers 404. */
export async function serveChromedSite(docsDir: string): Promise<ServedSite> {
  let site: ChromedSite = { pages: new Map(), documentByPath: new Map() };
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://site.invalid').pathname;
    const page = site.pages.get(pathname);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><title>Not found</title><h1>Page not found</h1>');
      return;
    }
    res.writeHead(200, { 'content-type': page.contentType, 'last-modified': 'Thu, 01 Oct 2026 00:00:00 GMT' }).end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site = buildChromedSite(docsDir, origin);
  return {
    origin,
    sitemapUrl: `${origin}/sitemap.xml`,
    documentOf: (url) => {
      try {
        const parsed = new URL(url);
        return parsed.origin === origin ? (site.documentByPath.get(parsed.pathname) ?? null) : null;
      } catch {
        return null;
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
