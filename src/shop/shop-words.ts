import type { CustomerSentences } from '../agent/tools/conversation-customer';
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
 * The built-in sentences about a customer's order, by language, for a shop file that
 * does not set `order_not_found` or `proof_limited` in the customer's language.
 */
export const ORDER_SENTENCES: Record<string, { order_not_found: string; proof_limited: string }> = {
  en: {
    order_not_found: 'I could not find that order for your account. Please check the order number on your order confirmation.',
    proof_limited: 'There were too many order lookups with details that did not match. Please try again later, or sign in to your account to see your orders.',
  },
  de: {
    order_not_found: 'Ich konnte diese Bestellung zu Ihrem Konto nicht finden. Bitte prüfen Sie die Bestellnummer in Ihrer Bestellbestätigung.',
    proof_limited: 'Es gab zu viele Bestellabfragen mit Angaben, die nicht passten. Bitte versuchen Sie es später noch einmal oder melden Sie sich in Ihrem Kundenkonto an.',
  },
  fr: {
    order_not_found: "Je n'ai pas trouvé cette commande pour votre compte. Veuillez vérifier le numéro de commande sur votre confirmation.",
    proof_limited: 'Trop de recherches de commande avec des informations qui ne correspondaient pas. Veuillez réessayer plus tard ou vous connecter à votre compte.',
  },
  es: {
    order_not_found: 'No he encontrado ese pedido en su cuenta. Compruebe el número de pedido en su confirmación.',
    proof_limited: 'Ha habido demasiadas consultas de pedidos con datos que no coincidían. Inténtelo de nuevo más tarde o inicie sesión en su cuenta.',
  },
  nl: {
    order_not_found: 'Ik kon deze bestelling niet vinden bij uw account. Controleer het bestelnummer in uw orderbevestiging.',
    proof_limited: 'Er waren te veel zoekopdrachten naar bestellingen met gegevens die niet klopten. Probeer het later opnieuw of log in op uw account.',
  },
};

/**
 * The sentences the tools pass on to a customer in a language. sign_in and
 * tool_failure as wordsFor gives them; the order sentences from the language's own
 * set, else (for the default language) the default set, else the built-in sentence
 * of the language (ORDER_SENTENCES), else the default set's, else the English one.
 */
export function customerSentences(words: ShopWords, language: string | null | undefined, defaultLanguage: string): CustomerSentences {
  const { sign_in, tool_failure } = wordsFor(words, language);
  const own = language ? words.by_language[language] : undefined;
  const isDefault = !language || language === defaultLanguage;
  const builtIn = (language && ORDER_SENTENCES[language]) || undefined;
  const pick = (field: 'order_not_found' | 'proof_limited') =>
    own?.[field] ?? (isDefault ? words[field] : undefined) ?? builtIn?.[field] ?? words[field] ?? ORDER_SENTENCES[defaultLanguage]?.[field] ?? ORDER_SENTENCES.en![field];
  return { sign_in, tool_failure, order_not_found: pick('order_not_found'), proof_limited: pick('proof_limited') };
}
