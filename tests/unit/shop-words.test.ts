/**
 * The words a customer reads, per language: the shop file's words for their language, else
 * the built-in words of it, else the shop's first language (its words, else the built-in
 * ones); and the built-in tables themselves.
 */
import { SupportHours } from '../../src/chat/support-hours';
import { shopFileSchema } from '../../src/shop/shop-file';
import { escalationOffer, widgetWordSets, wordsFor, wordsLanguage, type WordSource } from '../../src/shop/shop-words';
import { BUILT_IN_WORDS, wordFields } from '../../src/shop/words';

function shopWith(languages: string[] | undefined, words: unknown): WordSource {
  const parsed = shopFileSchema.parse({ name: 'Röstwerk', ...(languages && { languages }), agents: [{ key: 'support', description: 'd', instructions: 'i' }], words });
  return { words: parsed.words, languages: parsed.languages ?? [] };
}

const de = BUILT_IN_WORDS['de']!;
const nl = BUILT_IN_WORDS['nl']!;
const en = BUILT_IN_WORDS['en']!;

describe('which words a customer gets', () => {
  // A German shop: its own words at the top (German, its first language), a few French ones, nothing Dutch or Swahili.
  const shop = shopWith(['de', 'en'], {
    sign_in: 'Bitte melden Sie sich bei Röstwerk an.',
    widget: { subtitle: 'Frisch geröstet, schnell beantwortet', labels: { send: 'Abschicken' } },
    fr: { sign_in: 'Connectez-vous chez Röstwerk.', widget: { labels: { send: 'Envoyer !' } } },
  });

  it("gives the shop file's words for the customer's language first, then the built-in words of that language, label by label", () => {
    const french = wordsFor(shop, 'fr');
    expect(french.sign_in).toBe('Connectez-vous chez Röstwerk.');
    expect(french.widget.labels.send).toBe('Envoyer !');
    expect(french.widget.labels.close).toBe(BUILT_IN_WORDS['fr']!.widget.labels.close);
    expect(french.tool_failure).toBe(BUILT_IN_WORDS['fr']!.tool_failure);
    // Not the shop's German subtitle: the French customer reads French.
    expect(french.widget.subtitle).toBe(BUILT_IN_WORDS['fr']!.widget.subtitle);
  });

  it('gives a customer whose language the shop file has no words for the built-in words of their language', () => {
    expect(wordsLanguage(shop, 'nl')).toBe('nl');
    expect(wordsFor(shop, 'nl')).toEqual(nl);
  });

  it("gives the shop's first language when nothing is written in theirs: the shop's words, else the built-in ones of that language", () => {
    for (const language of ['sw', null, undefined, 'xx']) {
      expect(wordsLanguage(shop, language)).toBe('de');
      const words = wordsFor(shop, language);
      expect(words.sign_in).toBe('Bitte melden Sie sich bei Röstwerk an.');
      expect(words.widget.subtitle).toBe('Frisch geröstet, schnell beantwortet');
      expect(words.widget.labels.send).toBe('Abschicken');
      expect(words.offline_notice).toBe(de.offline_notice);
      expect(words.widget.labels.close).toBe(de.widget.labels.close);
    }
    // The shop's first language is German whatever the customer's second choice of English would say.
    expect(wordsFor(shop, 'de').human_offer).toBe(de.human_offer);
  });

  it("uses a language only the shop file has, and English for what neither it nor the shop's first language has", () => {
    const swahiliShop = shopWith(['sw'], { human_offer: 'Mtu atakusaidia.', de: { human_offer: 'Ein Mensch hilft Ihnen.' } });
    expect(wordsFor(swahiliShop, 'sw').human_offer).toBe('Mtu atakusaidia.');
    expect(wordsFor(swahiliShop, 'sw').sign_in).toBe(en.sign_in);
    expect(wordsFor(swahiliShop, 'de')).toMatchObject({ human_offer: 'Ein Mensch hilft Ihnen.', sign_in: de.sign_in });
  });

  it('treats a shop without languages as English first, and the shop file wins over the built-in English there', () => {
    const plain = shopWith(undefined, { human_offer: 'A roaster will take over.' });
    expect(wordsFor(plain, 'en').human_offer).toBe('A roaster will take over.');
    expect(wordsFor(plain, 'is').human_offer).toBe('A roaster will take over.');
    expect(wordsFor(plain, 'de').human_offer).toBe(de.human_offer);
  });

  it("builds the widget's sets for every built-in language and the shop's own, titles naming the shop", () => {
    const sets = widgetWordSets('Röstwerk', shop);
    expect(sets.default_language).toBe('de');
    expect(Object.keys(sets.sets).sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'ja', 'nl', 'pl', 'pt', 'tr', 'zh']);
    expect(sets.sets['de']!.title).toBe('Röstwerk Kundenservice');
    expect(sets.sets['nl']!.title).toBe('Klantenservice Röstwerk');
    expect(sets.sets['de']!.labels.send).toBe('Abschicken');
  });
});

describe('the end of an escalated answer outside support hours', () => {
  afterEach(() => jest.useRealTimers());

  it("writes the hours for the conversation's language, not as configured", () => {
    // Saturday 28 November 2026, noon in Berlin: closed.
    jest.useFakeTimers({ now: new Date('2026-11-28T11:00:00Z') });
    const hours = SupportHours.fromSchedule({ timeZone: 'Europe/Berlin', entries: [{ days: 'mon-thu', hours: '09:00-17:00' }] });
    const offer = escalationOffer(shopWith(['de'], {}), hours);
    const german = offer('de').replace(/[\u00a0\u202f]/g, ' ');
    expect(german).toBe(de.outside_hours.replace('{hours}', 'Mo–Do 09:00–17:00 Uhr (Mitteleuropäische Zeit)'));
    expect(offer('nl')).toContain('ma–do 09:00–17:00');
    expect(offer('fr')).toMatch(/lun\.–jeu\. 09:00\s–\s17:00/);
    for (const text of [german, offer('nl'), offer('fr')]) expect(text).not.toMatch(/mon-thu|Europe\/Berlin|\{hours\}/);
  });
  it('tells a customer who asked for a person that it is done, in and out of hours, not that an answer was uncertain', () => {
    const week = SupportHours.fromSchedule({ timeZone: 'Europe/Berlin', entries: [{ days: 'mon-thu', hours: '09:00-17:00' }] });
    const offer = escalationOffer(shopWith(['de'], {}), week);
    // Thursday 26 November 2026, noon in Berlin: open.
    jest.useFakeTimers({ now: new Date('2026-11-26T11:00:00Z') });
    expect(offer('de', true)).toBe(de.handover);
    expect(offer('de')).toBe(de.human_offer);
    // Saturday: closed.
    jest.setSystemTime(new Date('2026-11-28T11:00:00Z'));
    const closed = offer('de', true).replace(/[\u00a0\u202f]/g, ' ');
    expect(closed).toBe(de.handover_outside_hours.replace('{hours}', 'Mo–Do 09:00–17:00 Uhr (Mitteleuropäische Zeit)'));
    expect(closed).not.toContain('nicht sicher');
  });
});

describe('the built-in words', () => {
  const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  const fields = wordFields;

  it.each(Object.keys(BUILT_IN_WORDS).filter((l) => l !== 'en'))('%s fills in what English fills in, and writes its own words', (language) => {
    const words = BUILT_IN_WORDS[language]!;
    const english = new Map(fields(en));
    for (const [name, text] of fields(words)) {
      expect({ name, empty: text.trim() === '' }).toEqual({ name, empty: false });
      // `failed` may leave out the service's English `{reason}`; every other value the page fills in must have its place.
      const wanted = placeholders(english.get(name)!).filter((p) => !(name === 'widget.labels.failed' && p === 'reason'));
      expect({ name, placeholders: placeholders(text) }).toEqual({ name, placeholders: wanted });
    }
    expect(fields(words).map(([name]) => name)).toEqual(fields(en).map(([name]) => name));
  });
});
