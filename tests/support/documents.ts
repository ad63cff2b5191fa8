/**
 * Documents as a shop has them, made in the test: a help-center page in its site's chrome,
 * a short article, PDFs (with text on three pages, without a text layer, encrypted, corrupt)
 * and a Word file with a heading, a list and a table.
 */
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { PDFDocument, PDFHexString, StandardFonts, rgb } from 'pdf-lib';

/** Text of the site's chrome in helpArticlePage: none of it may reach a chunk. */
export const CHROME_MARKERS = [
  'COOKIEBANNER',
  'HEADERTEXT',
  'NAVTEXT',
  'BREADCRUMBTEXT',
  'VOTETEXT',
  'SHARETEXT',
  'RELATEDTEXT',
  'SIDEBARTEXT',
  'FORMTEXT',
  'FOOTERTEXT',
  'SCRIPTTEXT',
  'STYLETEXT',
];

/** A help-center article (Zendesk Guide's shape) with navigation, header, footer, cookie banner, related links, a script and a form. */
export function helpArticlePage(options: { canonical?: string } = {}): string {
  return `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Returns and refunds – Acme Help Center</title>
${options.canonical ? `<link rel="canonical" href="${options.canonical}">` : ''}
<script>window.tracker = "SCRIPTTEXT";</script>
<style>.STYLETEXT { color: red }</style>
</head><body>
<div id="cookie-banner" class="cookie-consent"><p>We use cookies to improve your experience. COOKIEBANNER</p><button>Accept all</button></div>
<header class="site-header"><a href="/hc/en-us">Acme Help Center HEADERTEXT</a>
  <nav><ul><li><a href="/hc/en-us/categories/orders">Orders NAVTEXT</a></li><li><a href="/hc/en-us/categories/shipping">Shipping NAVTEXT</a></li></ul></nav>
</header>
<div class="container">
<nav class="breadcrumbs"><a href="/hc/en-us">Help Center</a> › <a href="/hc/en-us/sections/returns">Returns BREADCRUMBTEXT</a></nav>
<main>
<article class="article">
<header class="article-header"><h1>Returns and refunds</h1><p class="meta">Updated 3 days ago</p></header>
<div class="article-body">
<p>You can return most items within 30 days of delivery for a full refund. Items must be unused and in their original packaging, with the receipt or order number.</p>
<h2>How to start a return</h2>
<ol>
<li>Sign in to your account and open <a href="/account/orders">Your orders</a>.</li>
<li>Choose the item and select <strong>Return item</strong>.</li>
<li>Print the prepaid label and drop the parcel at any post office.</li>
</ol>
<h2>Refund times</h2>
<table><thead><tr><th>Payment method</th><th>Refund time</th></tr></thead>
<tbody><tr><td>Credit card</td><td>5-7 business days</td></tr><tr><td>PayPal</td><td>1-2 business days</td></tr></tbody></table>
<h3>Checking a refund from the command line</h3>
<pre><code>curl https://api.acme.test/refunds/123</code></pre>
<p>Not returnable: gift cards, downloadable software and personalised goods.</p>
</div>
<footer class="article-footer"><div class="article-votes">Was this article helpful? VOTETEXT <button>Yes</button></div><div class="share">Share SHARETEXT</div></footer>
</article>
<section class="related-articles"><h3>Related articles</h3><ul><li><a href="/hc/en-us/articles/exchanges">Exchanges RELATEDTEXT</a></li><li><a href="/hc/en-us/articles/damaged">Damaged items RELATEDTEXT</a></li></ul></section>
</main>
<aside class="sidebar"><h3>Popular SIDEBARTEXT</h3></aside>
</div>
<form class="newsletter" action="/subscribe"><label>Email FORMTEXT</label><input name="email"></form>
<footer class="site-footer"><p>© 2026 Acme FOOTERTEXT</p><a href="https://twitter.com/acme">Twitter</a><a href="mailto:help@acme.test">Mail</a><a href="#top">Top</a></footer>
<script>console.log("SCRIPTTEXT")</script>
</body></html>`;
}

/** A two-sentence article on a page without <main> or <article>: Readability alone keeps too little or too much of such pages. */
export function shortArticlePage(): string {
  return `<!doctype html><html><head><title>Gift wrap | Acme</title></head><body>
<nav><a href="/">Home NAVTEXT</a> <a href="/contact">Contact NAVTEXT</a></nav>
<div id="content"><h1>Gift wrapping</h1><p>Gift wrap costs 3 EUR per item and can be added at checkout.</p></div>
<div class="related"><a href="/a">Gift cards RELATEDTEXT</a></div>
<footer>Acme FOOTERTEXT</footer>
</body></html>`;
}

/** A warranty manual of three pages, each with its own facts. */
export const MANUAL_PAGES = [
  'Lumen kettle warranty. The Lumen kettle is covered for two years from the date of purchase.',
  'Descaling. Descale the kettle every month with citric acid to keep the warranty valid.',
  'Claims. To claim, send the serial number from the base plate to warranty@acme.test.',
];

export async function threePagePdf(pages: string[] = MANUAL_PAGES): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) doc.addPage().drawText(text, { x: 40, y: 720, size: 10, font, maxWidth: 520, lineHeight: 14 });
  return doc.save();
}

/** A scan-like PDF: a page with a drawn rectangle and no text layer. */
export async function noTextPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage().drawRectangle({ x: 50, y: 50, width: 300, height: 200, color: rgb(0.2, 0.4, 0.8) });
  return doc.save();
}

/** A PDF whose trailer names a standard-security /Encrypt dictionary that the empty user password does not open. */
export async function encryptedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText('Confidential price list', { x: 40, y: 720, size: 12, font });
  const { context } = doc;
  const encrypt = context.obj({ Filter: 'Standard', V: 1, R: 2, O: PDFHexString.of('ab'.repeat(32)), U: PDFHexString.of('cd'.repeat(32)), P: -44 });
  context.trailerInfo.Encrypt = context.register(encrypt);
  const id = PDFHexString.of('0123456789abcdef0123456789abcdef');
  context.trailerInfo.ID = context.obj([id, id]);
  return doc.save({ useObjectStreams: false });
}

/** A PDF cut in half (an interrupted download). */
export async function corruptPdf(): Promise<Uint8Array> {
  const whole = await threePagePdf();
  return whole.slice(0, Math.floor(whole.length / 2));
}

/** A Word file with a heading, a bulleted list and a table. */
export async function policyDocx(): Promise<Uint8Array> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Warranty policy', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun('Every Acme appliance carries a warranty against defects in materials and workmanship.')] }),
          new Paragraph({ text: 'What is not covered', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Damage from dropping the appliance', bullet: { level: 0 } }),
          new Paragraph({ text: 'Limescale from skipped descaling', bullet: { level: 0 } }),
          new Paragraph({ text: 'Warranty periods', heading: HeadingLevel.HEADING_2 }),
          new Table({
            rows: [
              new TableRow({ children: [cell('Product'), cell('Period')] }),
              new TableRow({ children: [cell('Kettle'), cell('2 years')] }),
              new TableRow({ children: [cell('Toaster'), cell('3 years')] }),
            ],
          }),
        ],
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}
