/**
 * The customer's language as a conversation keeps it (the real eld detector), the
 * shop's words per language, and the prompt lines that carry the language.
 */
import { answerLanguageOf, formatAnswerLanguage } from '../../src/agent/prompts';
import { languageFromAcceptLanguage, resolveTurnLanguage, type TurnLanguageInput } from '../../src/chat/conversation-language';
import { loadLanguageDetector, type LanguageDetector } from '../../src/knowledge/language/detect';
import { cachedKnowledgeLanguages } from '../../src/knowledge/knowledge-languages';
import { rewriteRequest } from '../../src/knowledge/query-rewriter';
import { standsAlone } from '../../src/knowledge/search-query';
import { shopFileSchema } from '../../src/shop/shop-file';
import { escalationOffer, widgetWordSets, wordsFor } from '../../src/shop/shop-words';
import { BUILT_IN_WORDS } from '../../src/shop/words';
import { SupportHours } from '../../src/chat/support-hours';
import { SIGN_IN_HINT } from '../../src/agent/tools/conversation-customer';
import { signInSentence } from '../../src/connectors/guarded-tool';

jest.setTimeout(60_000);

let detector: LanguageDetector;
beforeAll(async () => {
  detector = await loadLanguageDetector();
});

const turn = (input: Omit<TurnLanguageInput, 'detector'>) => resolveTurnLanguage({ ...input, detector });

describe("the conversation's language", () => {
  it('is detected on a first message long enough to tell, and kept', () => {
    expect(turn({ message: 'Wie lange dauert eine Rückerstattung, nachdem ich die Ware zurückgeschickt habe?' })).toEqual({
      language: 'de',
      source: 'detected',
      keep: true,
    });
  });

  it.each([['ok'], ['danke'], ['Und der Versand?'], ['Where is it?'], ['Okay, super, thanks!'], ['ZX-14440']])(
    'stays German after the follow-up %p',
    (message) => {
      const result = turn({ message, kept: 'de', shopLanguages: ['en'] });
      expect(result.language).toBe('de');
      expect(result.keep).toBe(false);
    },
  );

  it('changes when the customer writes a whole sentence in another language', () => {
    expect(turn({ message: 'Sorry, could you please answer in English? Where is my order right now?', kept: 'de' })).toEqual({
      language: 'en',
      source: 'detected',
      keep: true,
    });
  });

  it("lets the request's language override what the message is written in", () => {
    expect(turn({ message: 'Wie lange dauert eine Rückerstattung nach der Rücksendung?', requested: 'fr', kept: 'de' })).toEqual({
      language: 'fr',
      source: 'request',
      keep: true,
    });
  });

  it("breaks a tie with the widget's language, then the shop's default, then English, keeping none of them", () => {
    expect(turn({ message: 'ok', widget: 'de', shopLanguages: ['fr'] })).toEqual({ language: 'de', source: 'widget', keep: false });
    expect(turn({ message: 'ok', shopLanguages: ['fr', 'en'] })).toEqual({ language: 'fr', source: 'shop', keep: false });
    expect(turn({ message: 'ok' })).toEqual({ language: 'en', source: 'fallback', keep: false });
  });

  it('reads the first language of an Accept-Language header by weight', () => {
    expect(languageFromAcceptLanguage('de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(languageFromAcceptLanguage('en;q=0.5, ar-EG')).toBe('ar');
    expect(languageFromAcceptLanguage('*')).toBeNull();
    expect(languageFromAcceptLanguage(undefined)).toBeNull();
    expect(languageFromAcceptLanguage('de;q=0')).toBeNull();
  });
});

describe("the shop's words per language", () => {
  const shop = (words: unknown) => shopFileSchema.safeParse({ name: 'Pine & Pebble', agents: [{ key: 'support', description: 'd', instructions: 'i' }], words });

  it("falls back field by field to the built-in words of the customer's language, and the widget's words come in every language served", () => {
    const parsed = shop({
      human_offer: 'A person can take over.',
      widget: { title: 'Pine & Pebble support' },
      de: { human_offer: 'Ein Mensch kann übernehmen.', sign_in: 'Bitte melden Sie sich an.', widget: { welcome: 'Hallo! Fragen Sie mich.' } },
    });
    expect(parsed.success).toBe(true);
    const source = { words: parsed.data!.words, languages: ['en', 'de'] };
    expect(wordsFor(source, 'de')).toMatchObject({ human_offer: 'Ein Mensch kann übernehmen.', sign_in: 'Bitte melden Sie sich an.' });
    // What the German set leaves out is the built-in German, not the shop's English.
    expect(wordsFor(source, 'de').offline_notice).toBe(BUILT_IN_WORDS['de']!.offline_notice);
    expect(wordsFor(source, 'fr').human_offer).toBe(BUILT_IN_WORDS['fr']!.human_offer);
    const sets = widgetWordSets('Pine & Pebble', source);
    expect(sets.default_language).toBe('en');
    expect(sets.sets['de']).toMatchObject({ title: 'Pine & Pebble Kundenservice', welcome: 'Hallo! Fragen Sie mich.' });
    expect(sets.sets['en']).toMatchObject({ title: 'Pine & Pebble support', welcome: expect.stringContaining('{title} assistant') });
    expect(Object.keys(sets.sets)).toEqual(expect.arrayContaining(['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'tr', 'ja', 'zh']));
    const offer = escalationOffer(source, new SupportHours(null, 'UTC'));
    expect(offer('de')).toBe('Ein Mensch kann übernehmen.');
    expect(offer(null)).toBe('A person can take over.');
  });

  it('reports a misspelt field, at the top or in a language, with its path', () => {
    const parsed = shop({ human_ofer: 'x', de: { widget: { titel: 'y' } }, deutsch: {} });
    expect(parsed.success).toBe(false);
    const problems = parsed.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(problems).toContainEqual(expect.stringMatching(/^words\.human_ofer: unknown field/));
    expect(problems).toContainEqual(expect.stringMatching(/^words\.de\.widget/));
    expect(problems).toContainEqual(expect.stringMatching(/^words\.deutsch: unknown field/));
  });
});

describe('the language in the prompts', () => {
  it('names the language for the model, and reads it back for the offline responder', () => {
    const line = formatAnswerLanguage('de');
    expect(line).toContain('Write your whole answer in German');
    expect(answerLanguageOf(`Knowledge passages: none matched this question.\n\n${line}`)).toBe('de');
    expect(answerLanguageOf('Knowledge passages: none matched this question.')).toBeNull();
  });

  it("asks the rewrite for the knowledge base's language, first messages included", () => {
    const request = rewriteRequest('Wo ist meine Bestellung?', [], 'en');
    expect(request).toContain('(none: this is the first message)');
    expect(request).toContain('write the search query in English');
    expect(rewriteRequest('Und der Versand?', [{ role: 'user', content: 'Rückerstattung?' }])).not.toContain('search query in');
  });

  it("lists the knowledge base's languages once per minute, and asks again after a failure", async () => {
    let calls = 0;
    let clock = 0;
    let fail = true;
    const list = cachedKnowledgeLanguages(
      async () => {
        calls += 1;
        if (fail) throw new Error('down');
        return ['en'];
      },
      60_000,
      () => clock,
    );
    await expect(list()).rejects.toThrow('down');
    fail = false;
    expect(await list()).toEqual(['en']);
    expect(await list()).toEqual(['en']);
    expect(calls).toBe(2);
    clock = 60_001;
    await list();
    expect(calls).toBe(3);
  });
});

describe('the follow-up detector in other languages', () => {
  it.each([
    ['de', 'Wie lange dauert es?', false],
    ['de', 'Und der Versand?', false],
    ['de', 'Gibt es Versandkosten nach Österreich?', true],
    ['de', 'Wie lange dauert eine Rückerstattung nach der Rücksendung?', true],
    ['fr', 'Et pour la livraison ?', false],
    ['fr', 'Combien coûte la livraison en Belgique ?', true],
    ['es', '¿Y eso cuánto cuesta?', false],
    ['ja', '送料は？', false],
    ['sv', 'Hur lång tid tar en återbetalning efter returen?', true],
  ])('in %s, %p stands alone: %p', (language, message, alone) => {
    expect(standsAlone(message, language)).toBe(alone);
  });

  it('keeps the English lists for English', () => {
    expect(standsAlone('Is it free?', 'en')).toBe(false);
    expect(standsAlone('Are there any fees for paying by card?')).toBe(true);
  });
});

describe("the tools' sentences in the customer's language", () => {
  it("hands the model the shop's sign-in sentence to pass on, else the built-in hint", () => {
    const german = { sentences: { sign_in: 'Bitte melden Sie sich in Ihrem Kundenkonto an.', tool_failure: 'Unser System ist gerade nicht erreichbar.', order_not_found: BUILT_IN_WORDS.de!.order_not_found, proof_limited: BUILT_IN_WORDS.de!.proof_limited } };
    expect(signInSentence('getOrder', german)).toContain('Tell the customer, in these words: "Bitte melden Sie sich in Ihrem Kundenkonto an."');
    expect(signInSentence('getOrder')).toContain(SIGN_IN_HINT);
  });

  it("tells the order sentences in the customer's language: the shop's own, else the built-in one of that language, else the shop's default language's", () => {
    const shop = (given: Record<string, unknown>) => {
      const parsed = shopFileSchema.parse({ name: 'Bohnenglück', languages: ['de'], agents: [{ key: 'a', description: 'a', instructions: 'a' }], words: given });
      return { words: parsed.words, languages: parsed.languages ?? [] };
    };
    // Nothing set: each language its built-in sentence; a language without built-in words gets the default language's.
    expect(wordsFor(shop({}), 'de').order_not_found).toBe(BUILT_IN_WORDS.de!.order_not_found);
    expect(wordsFor(shop({}), 'fr').proof_limited).toBe(BUILT_IN_WORDS.fr!.proof_limited);
    expect(wordsFor(shop({}), 'ko').order_not_found).toBe(BUILT_IN_WORDS.de!.order_not_found);
    // The top-level set is the default language's: it wins there, and for a language without built-in words.
    const shops = shop({ order_not_found: 'Diese Bestellung kennen wir nicht.', en: { order_not_found: 'We do not know that order.' } });
    expect(wordsFor(shops, 'de').order_not_found).toBe('Diese Bestellung kennen wir nicht.');
    expect(wordsFor(shops, 'en').order_not_found).toBe('We do not know that order.');
    expect(wordsFor(shops, 'nl').order_not_found).toBe(BUILT_IN_WORDS.nl!.order_not_found);
    expect(wordsFor(shops, 'ko').order_not_found).toBe('Diese Bestellung kennen wir nicht.');
  });
});
