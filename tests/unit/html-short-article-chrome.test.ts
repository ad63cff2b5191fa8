/**
 * Chrome around short help articles, as eval:answers --as-site found it leaking (pages of
 * scripts/lib/site-chrome.ts): Readability, given the whole page, climbed from a short
 * <article> to its parent and took the "Recently viewed articles" list beside it (other
 * articles' titles in this one's chunks: a fifth of mtrag-fiqa's and mtrag-clapnq's pages),
 * and the article's own byline line and Follow link were kept in every page.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { buildChromedSite, CHROME_MARKERS } from '../../scripts/lib/site-chrome';
import { htmlToMarkdown } from '../../src/knowledge/sources/html';
import { makeTempDir } from '../support/test-service';

const SHORT_ARTICLES: Record<string, string> = {
  'penobscot.md': '# Penobscot River\n\nAngling, especially fly fishing, has always been popular on the river. The West Branch is known as a world class landlocked salmon river.\n',
  'mortgage.md': '# fiqa document 102326\n\nWhat are the risks, if any? You could end up paying large mortgage payments on a house occupied by an ex-friend.\n',
  'football.md': '# Football\n\nFootball is a family of team sports that involve kicking a ball to score a goal.\n',
  'india.md': '# India\n\nIndia is a country in South Asia and the most populous country in the world.\n',
  // mtrag-fiqa's shortest kind: a title that is its one sentence. Readability kept the article's
  // footer ("Have more questions? Submit a request") beside it.
  'dividends.md': '# If you receive dividends on an investment, those are taxed.\n\nIf you receive dividends on an investment, those are taxed.\n',
};

test('short articles in site chrome keep their title and text only: no byline, no Follow link, no recently viewed list', async () => {
  const dir = await makeTempDir('short-articles-');
  try {
    for (const [file, text] of Object.entries(SHORT_ARTICLES)) await fs.writeFile(path.join(dir, file), text);
    const site = buildChromedSite(dir, 'https://help.example.test');
    for (const [pagePath, file] of site.documentByPath) {
      const page = await htmlToMarkdown(site.pages.get(pagePath)!.body, `https://help.example.test${pagePath}`);
      // The document's own markdown, exactly: its `# title` and its paragraph.
      expect({ file, markdown: page.markdown }).toEqual({ file, markdown: SHORT_ARTICLES[file]!.trim() });
      expect(CHROME_MARKERS.filter((m) => page.markdown.includes(m))).toEqual([]);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("an article's own footer (votes, \"more questions?\", share links) is chrome; its header (title, date) is kept", async () => {
  const html = `<html><body><main><article>
    <header><h1>Paying in instalments</h1><p><time datetime="2026-10-02">Updated 2 October</time></p></header>
    <p>Orders over 200 euros can be paid in three monthly instalments at no extra cost. Choose instalments at checkout.</p>
    <p>The first instalment is charged when the order ships, the others 30 and 60 days later.</p>
    <footer><p>Was this article helpful?</p><p class="article-more-questions">Have more questions? <a href="/requests/new">Submit a request</a></p><a href="https://x.example/share">Share</a></footer>
  </article></main></body></html>`;
  const page = await htmlToMarkdown(html, 'https://help.example.test/articles/instalments');
  expect(page.markdown).toContain('# Paying in instalments');
  expect(page.markdown).toContain('Updated 2 October');
  expect(page.markdown).toContain('The first instalment is charged when the order ships');
  expect(page.markdown).not.toMatch(/helpful|more questions|Submit a request|Share/);
});
