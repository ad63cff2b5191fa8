import type { SupportHours } from '../chat/support-hours';
import type { ShopWords } from './shop-file';

/** What the widget shows before and around the answers, from the shop file's `words.widget`. */
export interface WidgetWords {
  title: string;
  subtitle: string;
  /** The first message of a new conversation; `{title}` is the panel's title (a page's data-title may change it). */
  welcome: string;
  /** Under an escalated answer outside support hours; `{hours}` becomes the hours. */
  outside_hours: string;
}

/** The widget's words: the shop file's, the title defaulting to "<shop> support". */
export function widgetWords(shopName: string, words: ShopWords): WidgetWords {
  return {
    title: words.widget.title ?? `${shopName} support`,
    subtitle: words.widget.subtitle,
    welcome: words.widget.welcome,
    outside_hours: words.widget.outside_hours,
  };
}

/**
 * The end of an escalated answer, asked at answer time: the offer of a person
 * (`words.human_offer`), unless the support hours say nobody answers now
 * (`words.outside_hours`, with `{hours}` filled in).
 */
export function escalationOffer(words: Pick<ShopWords, 'human_offer' | 'outside_hours'>, supportHours: SupportHours): () => string {
  return () => {
    const { open, hours } = supportHours.availability();
    if (open !== false) return words.human_offer;
    return words.outside_hours.replaceAll('{hours}', hours ?? '');
  };
}
