import { DocumentSkipped, DocumentUnreadableError, convertDocument, formatOf } from '../../src/knowledge/sources/convert';
import { docxToMarkdown } from '../../src/knowledge/sources/docx';
import { htmlToMarkdown } from '../../src/knowledge/sources/html';
import { pdfToPages } from '../../src/knowledge/sources/pdf';
import {
  CHROME_MARKERS,
  MANUAL_PAGES,
  corruptPdf,
  encryptedPdf,
  helpArticlePage,
  noTextPdf,
  policyDocx,
  shortArticlePage,
  threePagePdf,
} from '../support/documents';

const utf8 = (text: string) => new TextEncoder().encode(text);

function expectNoChrome(markdown: string): void {
  for (const marker of CHROME_MARKERS) expect({ marker, found: markdown.includes(marker) }).toEqual({ marker, found: false });
  expect(markdown).not.toMatch(/cookies|Related articles|Was this article helpful|© 2026/);
}

describe('HTML pages to Markdown', () => {
  it('keeps a help article’s headings, list, table and code and none of the page’s navigation, header, footer, banner, related links, script or form', async () => {
    const page = await htmlToMarkdown(helpArticlePage(), 'https://help.acme.test/hc/en-us/articles/refunds?utm=mail#top');
    expectNoChrome(page.markdown);
    expect(page.title).toBe('Returns and refunds');
    expect(page.markdown.startsWith('# Returns and refunds\n\nYou can return most items within 30 days')).toBe(true);
    expect(page.markdown).toContain('## How to start a return');
    expect(page.markdown).toMatch(/1\. +Sign in to your account and open \[Your orders\]\(https:\/\/help\.acme\.test\/account\/orders\)\./);
    expect(page.markdown).toContain('| Payment method | Refund time |');
    expect(page.markdown).toContain('| PayPal | 1-2 business days |');
    expect(page.markdown).toContain('### Checking a refund from the command line');
    expect(page.markdown).toContain('```\ncurl https://api.acme.test/refunds/123\n```');
    expect(page.markdown).toContain('Not returnable: gift cards');
    // The title heading once, not again from the article's own h1.
    expect(page.markdown.match(/Returns and refunds/g)).toHaveLength(1);
  });

  it('lists every link of the whole page, absolute, without fragments, http(s) only, each once', async () => {
    const page = await htmlToMarkdown(helpArticlePage(), 'https://help.acme.test/hc/en-us/articles/refunds');
    expect(page.links).toEqual([
      'https://help.acme.test/hc/en-us',
      'https://help.acme.test/hc/en-us/categories/orders',
      'https://help.acme.test/hc/en-us/categories/shipping',
      'https://help.acme.test/hc/en-us/sections/returns',
      'https://help.acme.test/account/orders',
      'https://help.acme.test/hc/en-us/articles/exchanges',
      'https://help.acme.test/hc/en-us/articles/damaged',
      'https://twitter.com/acme',
      'https://help.acme.test/hc/en-us/articles/refunds',
    ]);
  });

  it('resolves the canonical URL and links against <base href>, and leaves relative links out without a page URL', async () => {
    const html = `<html><head><base href="https://docs.acme.test/v2/"><link rel="canonical" href="guide/setup"></head>
      <body><article><h1>Setup</h1><p>Plug the kettle in and fill it to the MAX line before the first boil.</p><a href="faq">FAQ</a></article></body></html>`;
    const page = await htmlToMarkdown(html, 'https://other.test/x');
    expect(page.canonicalUrl).toBe('https://docs.acme.test/v2/guide/setup');
    expect(page.links).toEqual(['https://docs.acme.test/v2/faq']);

    const unknown = await htmlToMarkdown('<body><h1>A</h1><p>Text of the page.</p><a href="/rel">x</a><a href="https://abs.test/y#f">y</a></body>');
    expect(unknown.links).toEqual(['https://abs.test/y']);
    expect(unknown.canonicalUrl).toBeNull();
  });

  it('keeps the whole of a short article on a page without <main>, and drops its chrome', async () => {
    const page = await htmlToMarkdown(shortArticlePage(), 'https://acme.test/gift-wrap');
    expect(page.title).toBe('Gift wrapping');
    expect(page.markdown).toBe('# Gift wrapping\n\nGift wrap costs 3 EUR per item and can be added at checkout.');
  });

  it('takes the page’s own <article> when Readability keeps only a fragment of a short one', async () => {
    // Two short sections: Readability scores one paragraph and would keep just that.
    const html = `<html><head><title>Store hours</title></head><body><header>Acme HEADERTEXT</header>
      <article><h1>Store hours</h1><h2>Weekdays</h2><p>9 to 18.</p><h2>Weekends</h2><p>10 to 16, closed on public holidays.</p>
      <ul><li>Berlin</li><li>Hamburg</li></ul></article><footer>FOOTERTEXT</footer></body></html>`;
    const page = await htmlToMarkdown(html);
    expect(page.markdown).toContain('## Weekdays');
    expect(page.markdown).toContain('9 to 18.');
    expect(page.markdown).toContain('10 to 16, closed on public holidays.');
    expect(page.markdown).toMatch(/- +Hamburg/);
    expectNoChrome(page.markdown);
  });

  it('takes the title from <title> when the page has no h1, and null when it has neither', async () => {
    expect((await htmlToMarkdown('<html><head><title> Shipping  costs </title></head><body><p>Shipping is free above 50 EUR.</p></body></html>')).title).toBe(
      'Shipping costs',
    );
    expect((await htmlToMarkdown('<body><p>Shipping is free above 50 EUR.</p></body>')).title).toBeNull();
  });

  it('keeps an article a whole-page form wraps (ASP.NET), while dropping forms beside it', async () => {
    const html = `<body><form id="aspnetForm"><h1>Exchanges</h1><p>Exchanges are free within 30 days for another size or colour.</p></form>
      <form class="search"><input> FORMTEXT</form></body>`;
    const page = await htmlToMarkdown(html);
    expect(page.markdown).toContain('Exchanges are free within 30 days');
    expect(page.markdown).not.toContain('FORMTEXT');
  });
});

describe('PDFs to text per page', () => {
  it('gives the text of each page with its page number', async () => {
    const pages = await pdfToPages(await threePagePdf());
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    pages.forEach((p, k) => expect(p.text.replace(/\s+/g, ' ')).toBe(MANUAL_PAGES[k]));
  });

  it('gives nothing for a PDF without a text layer, which convertDocument reports skipped (no_text_layer)', async () => {
    const bytes = await noTextPdf();
    expect(await pdfToPages(bytes)).toEqual([]);
    const attempt = convertDocument(bytes, 'pdf');
    await expect(attempt).rejects.toBeInstanceOf(DocumentSkipped);
    await expect(convertDocument(bytes, 'pdf')).rejects.toMatchObject({ reason: 'no_text_layer', message: expect.stringMatching(/no text layer/) });
  });

  it('refuses an encrypted PDF with a clear error', async () => {
    const attempt = pdfToPages(await encryptedPdf());
    await expect(attempt).rejects.toBeInstanceOf(DocumentUnreadableError);
    await expect(pdfToPages(await encryptedPdf())).rejects.toThrow(/encrypted and needs a password/);
  });

  it('refuses a corrupt PDF and bytes that are not a PDF with a clear error', async () => {
    await expect(pdfToPages(await corruptPdf())).rejects.toMatchObject({ reason: 'unreadable', message: expect.stringMatching(/cannot be read/) });
    await expect(pdfToPages(utf8('<html>not a pdf</html>'))).rejects.toBeInstanceOf(DocumentUnreadableError);
  });

  it('leaves the caller’s bytes intact (pdf.js may detach the buffer it reads), and reads a Node Buffer too', async () => {
    const bytes = await threePagePdf();
    const copy = bytes.slice();
    await pdfToPages(bytes);
    expect(bytes.byteLength).toBe(copy.byteLength);
    expect(Buffer.from(bytes).equals(Buffer.from(copy))).toBe(true);

    const buffer = Buffer.from(copy);
    expect(await pdfToPages(buffer)).toHaveLength(3);
    expect(buffer.equals(Buffer.from(copy))).toBe(true);
  });
});

describe('Word files to Markdown', () => {
  it('keeps the heading, the list and the table of a .docx', async () => {
    const { title, markdown } = await docxToMarkdown(await policyDocx());
    expect(title).toBe('Warranty policy');
    expect(markdown.startsWith('# Warranty policy\n\nEvery Acme appliance carries a warranty')).toBe(true);
    expect(markdown).toContain('## What is not covered');
    expect(markdown).toMatch(/- +Damage from dropping the appliance/);
    expect(markdown).toMatch(/\| Product \| Period \|\n\| --- \| --- \|\n\| Kettle \| 2 years \|\n\| Toaster \| 3 years \|/);
  });

  it('refuses a Word file whose declared sizes lie as unreadable (JSZip checks them once inflated; the bomb check counts the real bytes)', async () => {
    const bytes = await policyDocx();
    // Its central directory now says word/document.xml holds 60 MB; it holds a few KB (a bomb's would say less: see document-bombs.test.ts).
    const name = Buffer.from('word/document.xml');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let patched = false;
    for (let at = 0; at + 46 < bytes.length; at++) {
      if (view.getUint32(at, true) === 0x02014b50 && Buffer.from(bytes.subarray(at + 46, at + 46 + name.length)).equals(name)) {
        view.setUint32(at + 24, 60 * 1024 * 1024, true);
        patched = true;
      }
    }
    expect(patched).toBe(true);
    await expect(docxToMarkdown(bytes)).rejects.toThrow(/cannot be read.*uncompressed data size mismatch/);
  });

  it('refuses bytes that are not a .docx with a clear error', async () => {
    await expect(docxToMarkdown(utf8('PK not really a zip'))).rejects.toBeInstanceOf(DocumentUnreadableError);
  });
});

describe('choosing a format', () => {
  it.each([
    ['text/html; charset=utf-8', 'page', 'html'],
    ['application/pdf', 'download?id=4', 'pdf'],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'x', 'docx'],
    ['application/octet-stream', 'https://acme.test/files/Manual%20v2.PDF?dl=1', 'pdf'],
    [null, 'policies/warranty.docx', 'docx'],
    [null, 'faq.htm', 'html'],
    ['text/plain', 'https://acme.test/README.md', 'markdown'],
    ['text/plain', 'notes.txt', 'text'],
    ['text/markdown', 'x.txt', 'markdown'],
  ] as const)('content type %p for %p is %p', (type, name, format) => {
    expect(formatOf(type, name)).toBe(format);
  });

  it.each([
    ['image/png', 'photo.pdf'],
    ['application/vnd.ms-excel', 'prices.xls'],
    [null, 'old-policy.doc'],
    [null, 'https://acme.test/help/'],
    ['application/json', 'data.json'],
  ] as const)('content type %p for %p is not a document', (type, name) => {
    expect(formatOf(type, name)).toBeNull();
  });
});

describe('converting a document', () => {
  it('gives a PDF one part per page with its number', async () => {
    const doc = await convertDocument(await threePagePdf(), 'pdf');
    expect(doc.parts.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(doc.format).toBe('markdown');
  });

  it('gives an HTML page its title, canonical URL and links', async () => {
    const doc = await convertDocument(utf8(helpArticlePage({ canonical: '/hc/en-us/articles/42' })), 'html', { url: 'https://help.acme.test/x?y=1' });
    expect(doc).toMatchObject({ title: 'Returns and refunds', canonicalUrl: 'https://help.acme.test/hc/en-us/articles/42' });
    expect(doc.links).toContain('https://help.acme.test/account/orders');
    expect(doc.parts).toHaveLength(1);
  });

  it('reads an HTML page in the charset its Content-Type or <meta> names', async () => {
    const latin1 = Buffer.from('<html><head><meta charset="windows-1252"><title>x</title></head><body><h1>Größen</h1><p>Die Größe wählen.</p></body></html>', 'latin1');
    expect((await convertDocument(latin1, 'html')).parts[0]!.markdown).toContain('Die Größe wählen.');
    const header = Buffer.from('<body><h1>Café</h1><p>Crème brûlée.</p></body>', 'latin1');
    expect((await convertDocument(header, 'html', { contentType: 'text/html; charset=ISO-8859-1' })).title).toBe('Café');
  });

  it('skips a page that has nothing once its chrome is gone, and a document over the size cap', async () => {
    const chromeOnly = utf8('<html><body><nav><a href="/">Home</a></nav><footer>© Acme</footer></body></html>');
    await expect(convertDocument(chromeOnly, 'html')).rejects.toMatchObject({ reason: 'empty' });
    await expect(convertDocument(utf8('<h1>Only a title</h1>'), 'html')).rejects.toMatchObject({ reason: 'empty' });
    await expect(convertDocument(utf8('x'.repeat(2000)), 'text', { maxBytes: 1000 })).rejects.toMatchObject({
      reason: 'too_large',
      message: expect.stringMatching(/2000 bytes, more than the 1000 allowed/),
    });
  });

  it('refuses text that is not UTF-8, and takes markdown as it is', async () => {
    await expect(convertDocument(Uint8Array.from([0x48, 0xff, 0xfe, 0x49]), 'markdown')).rejects.toBeInstanceOf(DocumentUnreadableError);
    expect(await convertDocument(utf8('# Hi\n\nText.'), 'markdown')).toEqual({ title: null, format: 'markdown', parts: [{ markdown: '# Hi\n\nText.' }] });
  });

  it('cuts a long title and removes control characters from titles and text', async () => {
    const html = utf8(`<body><h1>${'Long '.repeat(100)}</h1><p>Body\u0000 text\u0007.</p></body>`);
    const doc = await convertDocument(html, 'html');
    expect(doc.title!.length).toBeLessThanOrEqual(200);
    expect(doc.parts[0]!.markdown).not.toMatch(/[\u0000\u0007]/);
  });
});
