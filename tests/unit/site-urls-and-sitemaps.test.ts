import zlib from 'node:zlib';
import { LinkMazeGuard, DEFAULT_MAZE_LIMITS, normaliseUrl, SiteScope, withoutQuery } from '../../src/knowledge/sources/site-urls';
import { looksLikeSitemap, parseSitemap, SitemapError, sitemapText } from '../../src/knowledge/sources/sitemap';

describe('URLs as the crawler compares them', () => {
  test('one spelling per page: no fragment, no tracking parameters, the rest sorted, the default port and case of the host dropped', () => {
    expect(normaliseUrl('HTTP://Help.Example.com:80/a/./b/../c?z=1&utm_source=mail&a=2#section')).toBe('http://help.example.com/a/c?a=2&z=1');
    expect(normaliseUrl('/faq?gclid=x', 'https://help.example.com/a/b')).toBe('https://help.example.com/faq');
    expect(normaliseUrl('mailto:help@example.com')).toBeNull();
    expect(normaliseUrl('javascript:void(0)')).toBeNull();
    expect(normaliseUrl('https://user:pw@example.com/')).toBeNull();
    expect(withoutQuery('https://example.com/a?page=2#x')).toBe('https://example.com/a');
  });

  test("a start page's scope is its host and its folder", () => {
    const scope = new SiteScope('https://example.com/help/en/index.html');
    expect(scope.contains('https://example.com/help/en/returns')).toBe(true);
    expect(scope.contains('https://example.com/help/de/returns')).toBe(false);
    expect(scope.contains('https://other.example.com/help/en/returns')).toBe(false);
    expect(scope.sameOrigin('https://example.com/files/manual.pdf')).toBe(true);
    expect(new SiteScope('https://example.com').pathPrefix).toBe('/');
  });

  test('the maze guard refuses long, deep, far, repeating and many-variant URLs, each with its reason', () => {
    const guard = new LinkMazeGuard({ ...DEFAULT_MAZE_LIMITS, maxQueryVariants: 2 });
    expect(guard.refuse('https://example.com/help/returns', 1)).toBeNull();
    expect(guard.refuse(`https://example.com/${'a'.repeat(600)}`, 1)).toMatch(/longer than 512/);
    expect(guard.refuse(`https://example.com/${Array.from({ length: 13 }, (_, k) => `d${k}`).join('/')}`, 1)).toMatch(/deeper than 12/);
    expect(guard.refuse('https://example.com/help/next', 31)).toMatch(/more than 30 links away/);
    expect(guard.refuse('https://example.com/cal/2026/cal/2027/cal/2028', 1)).toMatch(/repeats/);
    expect(guard.refuse('https://example.com/search?q=a', 1)).toBeNull();
    expect(guard.refuse('https://example.com/search?q=b', 1)).toBeNull();
    expect(guard.refuse('https://example.com/search?q=c', 1)).toMatch(/more than 2 query variants of \/search/);
  });
});

describe('sitemaps', () => {
  test('a urlset gives its URLs with lastmod; an index its sitemaps; namespace prefixes and XML entities are understood', () => {
    const urlset = parseSitemap(
      `<?xml version="1.0"?><sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc> https://e.com/a?x=1&amp;y=2 </sm:loc><sm:lastmod>2026-11-01</sm:lastmod></sm:url><sm:url><sm:loc>https://e.com/b</sm:loc></sm:url></sm:urlset>`,
      'https://e.com/sitemap.xml',
    );
    expect(urlset).toEqual({
      kind: 'urlset',
      urls: [
        { loc: 'https://e.com/a?x=1&y=2', lastmod: '2026-11-01' },
        { loc: 'https://e.com/b', lastmod: null },
      ],
    });
    expect(parseSitemap('<sitemapindex><sitemap><loc>https://e.com/1.xml</loc></sitemap></sitemapindex>', 'u')).toEqual({
      kind: 'index',
      sitemaps: [{ loc: 'https://e.com/1.xml', lastmod: null }],
    });
    expect(parseSitemap('<urlset></urlset>', 'u')).toEqual({ kind: 'urlset', urls: [] });
  });

  test('malformed XML, declared entities, an unknown root and too many entries are refused whole with a reason', () => {
    const problem = (xml: string, maxEntries?: number) => {
      try {
        parseSitemap(xml, 'https://e.com/s.xml', maxEntries);
        return null;
      } catch (error) {
        expect(error).toBeInstanceOf(SitemapError);
        return [(error as SitemapError).problem, (error as SitemapError).message];
      }
    };
    expect(problem('<urlset><url><loc>x</loc></urlset>')).toEqual(['malformed', expect.stringMatching(/not well-formed XML \(line 1/)]);
    expect(problem('<!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>&a;</loc></url></urlset>')).toEqual(['malformed', expect.stringMatching(/declares XML entities/)]);
    expect(problem('<html><body>Not a sitemap</body></html>')).toEqual(['malformed', expect.stringMatching(/neither a <urlset> nor a <sitemapindex>/)]);
    expect(problem(`<urlset>${'<url><loc>https://e.com/a</loc></url>'.repeat(11)}</urlset>`, 10)).toEqual(['too_many_entries', expect.stringMatching(/lists 11 entries, more than 10/)]);
  });

  test('a gzip sitemap is inflated, but not past the cap', () => {
    const xml = '<urlset><url><loc>https://e.com/a</loc></url></urlset>';
    expect(sitemapText(zlib.gzipSync(xml), 'u')).toBe(xml);
    expect(() => sitemapText(zlib.gzipSync(Buffer.alloc(1024 * 1024)), 'https://e.com/s.xml.gz', 64 * 1024)).toThrow(/inflates to more than 65536 bytes/);
  });

  test('a sitemap is told from a page by its type or its first bytes', () => {
    expect(looksLikeSitemap('application/xml', Buffer.from('<urlset/>'))).toBe(true);
    expect(looksLikeSitemap('text/plain', Buffer.from('<?xml version="1.0"?>\n<!-- generated -->\n<sitemapindex>'))).toBe(true);
    expect(looksLikeSitemap(undefined, zlib.gzipSync('<urlset/>'))).toBe(true);
    expect(looksLikeSitemap('text/html; charset=utf-8', Buffer.from('<!doctype html><html>'))).toBe(false);
    expect(looksLikeSitemap('application/xhtml+xml', Buffer.from('<?xml version="1.0"?><html>'))).toBe(false);
  });
});
