/**
 * The chrome-wrapped site of eval:answers --as-site: every document is one article page
 * (its title the page's h1, its text inside the article body, lists and links kept),
 * the sitemap lists exactly those pages, and a page's URL maps back to its document,
 * which is how answers citing URLs are scored.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { buildChromedSite, CHROME_MARKERS, renderMarkdownBody, serveChromedSite } from '../../scripts/lib/site-chrome';
import { makeTempDir } from '../support/test-service';

describe('the chromed site of a folder of documents', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir('site-chrome-');
    await fs.writeFile(path.join(dir, 'doc_1.md'), '# Returns & refunds\n\nItems can be returned <within> 30 days.\nRefunds take 5 days.\n\n* Keep the label\n* Use the [form](https://shop.example/form)\n');
    await fs.writeFile(path.join(dir, 'doc_2.md'), '# Gift cards\n\nGift cards never expire.\n\n1. Buy one\n2. Send it\n');
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("renders a document's markdown as its CMS would: title apart, paragraphs, lists, links, text escaped", () => {
    const { title, html } = renderMarkdownBody('# Returns & refunds\n\nItems can be returned <within> 30 days.\nRefunds take 5 days.\n\n* Keep the label\n* Use the [form](https://shop.example/form)\n');
    expect(title).toBe('Returns & refunds');
    expect(html).toBe(
      '<p>Items can be returned &lt;within&gt; 30 days.\nRefunds take 5 days.</p>\n<ul><li>Keep the label</li><li>Use the <a href="https://shop.example/form">form</a></li></ul>',
    );
  });

  it('makes one article page per document inside the chrome, lists them in the sitemap and maps each page back to its document', async () => {
    const site = buildChromedSite(dir, 'http://127.0.0.1:1');
    expect([...site.documentByPath.values()].sort()).toEqual(['doc_1.md', 'doc_2.md']);
    const sitemap = site.pages.get('/sitemap.xml')!.body;
    for (const [pagePath, file] of site.documentByPath) {
      expect(sitemap).toContain(`<loc>http://127.0.0.1:1${pagePath}</loc>`);
      const page = site.pages.get(pagePath)!.body;
      const body = /<div class="article-body">([\s\S]*?)<\/div>/.exec(page)![1]!;
      expect(body).toContain(file === 'doc_1.md' ? 'Refunds take 5 days.' : 'Gift cards never expire.');
      expect(page).toContain(`<h1 class="article-title">${file === 'doc_1.md' ? 'Returns &amp; refunds' : 'Gift cards'}</h1>`);
      // The chrome is there, and none of it inside the article's body.
      for (const marker of ['We use cookies to improve your experience', 'Related articles', 'All rights reserved']) expect(page).toContain(marker);
      expect(CHROME_MARKERS.filter((m) => body.includes(m))).toEqual([]);
    }
    // The other document is named in this page's chrome (related links, sidebar): what must not leak.
    const [first] = site.documentByPath.keys();
    expect(site.pages.get(first!)!.body).toContain('Gift cards</a>');
  });

  it('serves the site on loopback: the sitemap, each page, a 404 for anything else; a URL names its document', async () => {
    const served = await serveChromedSite(dir);
    try {
      const sitemap = await (await fetch(served.sitemapUrl)).text();
      const urls = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
      expect(urls.map((u) => served.documentOf(u)).sort()).toEqual(['doc_1.md', 'doc_2.md']);
      const page = await fetch(urls[0]!);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect((await fetch(`${served.origin}/hc/en-us/sections/reference`)).status).toBe(404);
      expect(served.documentOf(`${served.origin}/nowhere`)).toBeNull();
      expect(served.documentOf('https://elsewhere.example/hc/en-us/articles/360000-x')).toBeNull();
    } finally {
      await served.close();
    }
  });
});
