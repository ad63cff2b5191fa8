/**
 * The language module (src/knowledge/language/analysis.ts): which configuration indexes a
 * language, how spaceless scripts are cut, a document's language with and without the shop's
 * languages, the offline word rules, and chunking that collapses runs of spaces (issue 36).
 */
import { chunkDocument } from '../../src/knowledge/chunking';
import { cutWords, documentLanguage, searchTextOf, textAnalysis } from '../../src/knowledge/language/analysis';
import { loadLanguageDetector, type LanguageDetector } from '../../src/knowledge/language/detect';
import { tokenizeWords } from '../../src/knowledge/words';

describe('textAnalysis', () => {
  it.each([
    ['en', 'english', 'none'],
    ['de', 'german', 'none'],
    ['de-AT', 'german', 'none'],
    ['es', 'spanish', 'none'],
    ['ru', 'russian', 'none'],
    ['pl', 'simple_unaccent', 'none'],
    ['cs', 'simple_unaccent', 'none'],
    // Only PGlite has an Estonian stemmer; PostgreSQL 15 has none.
    ['et', 'simple_unaccent', 'none'],
    ['zh', 'simple', 'words'],
    ['ja', 'simple', 'words'],
    ['th', 'simple', 'words'],
    ['ko', 'simple', 'bigrams'],
    [null, 'simple_unaccent', 'none'],
    ['not a language', 'simple_unaccent', 'none'],
  ])('%s → %s (%s)', (language, config, segmentation) => {
    expect(textAnalysis(language)).toEqual({ config, segmentation });
  });
});

describe('cutWords', () => {
  it('leaves text without a spaceless script exactly as it is', () => {
    const text = 'Refunds  take 5–7 days; Rückerstattungen dauern länger.';
    expect(cutWords(text)).toBe(text);
    expect(searchTextOf('Refunds', text)).toBeNull();
  });

  it('cuts Chinese, Japanese and Thai into words', () => {
    expect(cutWords('请问退货政策是什么').trim().split(/\s+/).length).toBeGreaterThan(3);
    expect(cutWords('注文をキャンセルしたい').trim().split(/\s+/)).toContain('キャンセル');
    expect(cutWords('ฉันต้องการคืนสินค้า').trim().split(/\s+/)).toEqual(['ฉัน', 'ต้องการ', 'คืน', 'สินค้า']);
  });

  it('cuts Korean into overlapping character pairs, so a particle does not hide its word', () => {
    expect(cutWords('주문을 취소')).toBe('주문 문을 취소');
  });
});

describe('documentLanguage', () => {
  let detector: LanguageDetector;
  beforeAll(async () => {
    detector = await loadLanguageDetector();
  }, 60_000);

  it('detects the language with no language named', () => {
    expect(documentLanguage(detector, 'Eine Bestellung kann innerhalb von zwei Stunden nach dem Kauf storniert werden.')).toBe('de');
    expect(documentLanguage(detector, 'Las devoluciones se reembolsan en un plazo de cinco días hábiles.')).toBe('es');
    expect(documentLanguage(detector, '您可以在收到商品后三十天内申请退货。')).toBe('zh');
  });

  it('falls back to the shop’s default language, else English, when nothing reliable can be told', () => {
    expect(documentLanguage(detector, 'HL-2041 · 12,50 €', ['de', 'en'])).toBe('de');
    expect(documentLanguage(detector, '12345 67890')).toBe('en');
  });
});

describe('tokenizeWords', () => {
  it('stems English as before when the language is not given', () => {
    expect(tokenizeWords('How do refunds work when shipping?')).toEqual(['refund', 'work', 'ship']);
  });

  it('applies no English stemmer nor English stop words to another language', () => {
    expect(tokenizeWords('Preis der Bestellungen', 'de')).toEqual(['preis', 'bestellungen']);
    expect(tokenizeWords('Preis der Bestellungen')).toContain('prei');
  });

  it('gives Chinese and Thai text words to compare, marks kept in their word', () => {
    expect(tokenizeWords('退货政策是什么', 'zh').length).toBeGreaterThan(2);
    expect(tokenizeWords('ฉันต้องการคืนสินค้า', 'th')).toEqual(['ฉัน', 'ต้องการ', 'คืน', 'สินค้า']);
  });
});

describe('chunkDocument', () => {
  it('chunks a text with runs of spaces as the same text with single spaces (a crawled page shows one)', async () => {
    const sentence = (i: number) => `Sentence ${i} of the returns policy says what happens to parcel ${i}.`;
    const file = Array.from({ length: 60 }, (_, i) => sentence(i).replace(/ /g, i % 3 === 0 ? '  ' : ' ')).join('\n');
    const page = Array.from({ length: 60 }, (_, i) => sentence(i)).join('\n');
    const fromFile = await chunkDocument(file, 'markdown');
    expect(fromFile.length).toBeGreaterThan(2);
    expect(fromFile).toEqual(await chunkDocument(page, 'markdown'));
  });
});
