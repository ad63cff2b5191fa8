import { defaultActReply, type SmallTalkAct } from '../chat/conversation-acts';
import type { SupportHours } from '../chat/support-hours';
import type { ShopWords, WordSet } from './shop-file';
import type { WidgetLabel } from './widget-labels';

/** What the widget shows before and around the answers, from the shop file's `words.widget`. */
export interface WidgetWords {
  title: string;
  subtitle: string;
  /** The first message of a new conversation; `{title}` is the panel's title (a page's data-title may change it). */
  welcome: string;
  /** Under an escalated answer outside support hours; `{hours}` becomes the hours. */
  outside_hours: string;
  /** The widget's own words the shop set (the widget fills in the rest from widget-labels.ts, in English). */
  labels: Partial<Record<WidgetLabel, string>>;
}

/**
 * The widget's words in every language the shop file has words for, built into
 * widget.js: `sets[default_language]` is the default set, and the widget shows the
 * set for the page's `lang`, else the browser's language, else the default.
 */
export interface WidgetWordSets {
  default_language: string;
  sets: Record<string, WidgetWords>;
}

/**
 * One language's words: the default set with the language's own fields over it
 * (`words.de`), a field the language leaves out falling back to the default set's.
 * The default language, or a language without a set, gets the default set.
 */
export function wordsFor(words: ShopWords, language: string | null | undefined): WordSet {
  const { by_language: byLanguage, ...defaults } = words;
  const own = language ? byLanguage[language] : undefined;
  if (!own) return defaults;
  const { widget, ...sentences } = own;
  // Field by field, the labels too: a language that sets one button keeps the default set's others.
  return { ...defaults, ...sentences, widget: { ...defaults.widget, ...widget, labels: { ...defaults.widget.labels, ...widget?.labels } } };
}

/** The widget's words: the shop file's, the title defaulting to "<shop> support". */
export function widgetWords(shopName: string, words: WordSet): WidgetWords {
  return {
    title: words.widget.title ?? `${shopName} support`,
    subtitle: words.widget.subtitle,
    welcome: words.widget.welcome,
    outside_hours: words.widget.outside_hours,
    labels: words.widget.labels,
  };
}

/** The widget's words for the default language (`languages`' first, else English) and every language with its own set. */
export function widgetWordSets(shopName: string, words: ShopWords, defaultLanguage: string): WidgetWordSets {
  const sets: Record<string, WidgetWords> = { [defaultLanguage]: widgetWords(shopName, wordsFor(words, null)) };
  for (const language of Object.keys(words.by_language)) {
    if (language !== defaultLanguage) sets[language] = widgetWords(shopName, wordsFor(words, language));
  }
  return { default_language: defaultLanguage, sets };
}

/**
 * The end of an escalated answer, asked at answer time in the conversation's
 * language: the offer of a person (`words.human_offer`), unless the support hours
 * say nobody answers now (`words.outside_hours`, with `{hours}` filled in).
 */
export function escalationOffer(words: ShopWords, supportHours: SupportHours): (language?: string | null) => string {
  return (language) => {
    const set = wordsFor(words, language);
    const { open, hours } = supportHours.availability();
    if (open !== false) return set.human_offer;
    return set.outside_hours.replaceAll('{hours}', hours ?? '');
  };
}

/**
 * The reply to small talk in a language: the shop's own for that language (`words.<lang>.acts`,
 * or the top-level `words.acts` for the default language), else the built-in one in that
 * language. Unlike the other words, a language never gets the default language's reply.
 */
export function actReply(words: ShopWords, defaultLanguage: string, act: SmallTalkAct, language: string): string {
  const own = language === defaultLanguage ? words.acts : words.by_language[language]?.acts;
  return own?.[act] ?? defaultActReply(act, language);
}
