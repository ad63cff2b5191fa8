import { defaultActReply, type SmallTalkAct } from '../chat/conversation-acts';
import { describeHours, type SupportHours } from '../chat/support-hours';
import type { LanguageWords, ShopWords } from './shop-file';
import { fill, type WidgetLabel, type WidgetLabels } from './widget-labels';
import { BUILT_IN_FALLBACK_LANGUAGE, BUILT_IN_WORDS, builtInWords, type BuiltInWords } from './words';

/** One language's complete words: the shop file's over the built-in words (see wordsFor). */
export type WordSet = BuiltInWords;

/** What a shop's words are read from: its shop file's `words` and `languages`. */
export interface WordSource {
  words: ShopWords;
  /** The shop's languages, the default first; empty: English is the default. */
  languages: readonly string[];
}

/** What the widget shows before and around the answers, in one language. */
export interface WidgetWords {
  title: string;
  subtitle: string;
  /** The first message of a new conversation; `{title}` is the panel's title (a page's data-title may change it). */
  welcome: string;
  /** Under an escalated answer outside support hours; `{hours}` becomes the hours. */
  outside_hours: string;
  labels: WidgetLabels;
}

/**
 * The widget's words in every language it can speak (the built-in ones and those the shop
 * file has words for), built into widget.js: the widget shows the set for the page's
 * `lang`, else the browser's language, else `sets[default_language]`.
 */
export interface WidgetWordSets {
  default_language: string;
  sets: Record<string, WidgetWords>;
}

/** The shop's default language: the first of its `languages`, else English. */
export function defaultLanguage(shop: WordSource): string {
  return shop.languages[0] ?? BUILT_IN_FALLBACK_LANGUAGE;
}

/**
 * The language a customer's words are written in: theirs when the shop file or the built-in
 * words have it, else the shop's default language.
 */
export function wordsLanguage(shop: WordSource, language: string | null | undefined): string {
  const code = language?.toLowerCase();
  if (code && (Object.hasOwn(shop.words.by_language, code) || builtInWords(code))) return code;
  return defaultLanguage(shop);
}

/**
 * One language's words, field by field: the shop file's words for the language (the fields
 * at the top for the default language), else the built-in words of the language. A language
 * with neither is written in the shop's default language; what even that lacks (a default
 * language without built-in words) is English.
 */
export function wordsFor(shop: WordSource, language: string | null | undefined): WordSet {
  const chosen = wordsLanguage(shop, language);
  const fallback = defaultLanguage(shop);
  // The default language's words are the fields at the top (and a set under its own code, if the file has one too).
  const shopWordsOf = (code: string): Array<LanguageWords | undefined> => (code === fallback ? [shop.words, shop.words.by_language[code]] : [shop.words.by_language[code]]);
  const layers = [...new Set([chosen, fallback])].flatMap((code) => [...shopWordsOf(code), builtInWords(code)]).filter((set) => set !== undefined);
  const last = BUILT_IN_WORDS[BUILT_IN_FALLBACK_LANGUAGE]!;
  const pick = (get: (set: LanguageWords) => string | undefined, otherwise: string): string => layers.map(get).find((value) => value !== undefined) ?? otherwise;
  const labels = Object.fromEntries(
    (Object.keys(last.widget.labels) as WidgetLabel[]).map((name) => [name, pick((set) => set.widget?.labels?.[name], last.widget.labels[name])]),
  ) as WidgetLabels;
  return {
    human_offer: pick((set) => set.human_offer, last.human_offer),
    outside_hours: pick((set) => set.outside_hours, last.outside_hours),
    handover: pick((set) => set.handover, last.handover),
    handover_outside_hours: pick((set) => set.handover_outside_hours, last.handover_outside_hours),
    offline_notice: pick((set) => set.offline_notice, last.offline_notice),
    sign_in: pick((set) => set.sign_in, last.sign_in),
    tool_failure: pick((set) => set.tool_failure, last.tool_failure),
    order_not_found: pick((set) => set.order_not_found, last.order_not_found),
    proof_limited: pick((set) => set.proof_limited, last.proof_limited),
    page_intro: pick((set) => set.page_intro, last.page_intro),
    widget: {
      title: pick((set) => set.widget?.title, last.widget.title),
      subtitle: pick((set) => set.widget?.subtitle, last.widget.subtitle),
      welcome: pick((set) => set.widget?.welcome, last.widget.welcome),
      outside_hours: pick((set) => set.widget?.outside_hours, last.widget.outside_hours),
      labels,
    },
  };
}

/** The widget's words, its title with the shop's name filled in. */
export function widgetWords(shopName: string, words: WordSet): WidgetWords {
  return { ...words.widget, title: fill(words.widget.title, { shop: shopName }) };
}

/** The languages a customer can be served in: the default first, then the built-in ones and the shop file's own. */
export function servedLanguages(shop: WordSource): string[] {
  return [...new Set([defaultLanguage(shop), ...Object.keys(BUILT_IN_WORDS), ...Object.keys(shop.words.by_language)])];
}

/** The widget's words in every language it can be served in, the shop's default language named. */
export function widgetWordSets(shopName: string, shop: WordSource): WidgetWordSets {
  const sets = Object.fromEntries(servedLanguages(shop).map((language) => [language, widgetWords(shopName, wordsFor(shop, language))]));
  return { default_language: defaultLanguage(shop), sets };
}

/**
 * The end of an escalated answer, asked at answer time in the conversation's language: the
 * offer of a person (`human_offer`), unless the support hours say nobody answers now
 * (`outside_hours`, with `{hours}` written for the reader); to a customer who asked for a
 * person, `handover` and `handover_outside_hours` instead.
 */
export function escalationOffer(shop: WordSource, supportHours: SupportHours): EscalationOffer {
  return (language, customerAsked = false) => {
    const set = wordsFor(shop, language);
    const { open, schedule } = supportHours.availability();
    // A customer who asked for a person is told it is done, not that the answer was uncertain.
    if (open !== false) return customerAsked ? set.handover : set.human_offer;
    const hours = describeHours(schedule, wordsLanguage(shop, language)) ?? set.widget.labels.support_hours;
    return fill(customerAsked ? set.handover_outside_hours : set.outside_hours, { hours });
  };
}

/** The hand-over sentence in a language: for a customer who asked for a person (`customerAsked`), or for an answer the service could not give. */
export type EscalationOffer = (language?: string | null, customerAsked?: boolean) => string;

/**
 * The reply to small talk in a language: the shop's own for that language (`words.<lang>.acts`,
 * or the top-level `words.acts` for the default language), else the built-in one in that
 * language. Unlike the other words, a language never gets the default language's reply.
 */
export function actReply(words: ShopWords, defaultLanguage: string, act: SmallTalkAct, language: string): string {
  const own = language === defaultLanguage ? words.acts : words.by_language[language]?.acts;
  return own?.[act] ?? defaultActReply(act, language);
}
