/**
 * The widget's own words in English: its buttons, status lines and notes, as opposed to the
 * shop's title, subtitle and welcome. Their names are the labels every built-in language
 * gives (src/shop/words/) and the shop file may set per language (`words.widget.labels`,
 * `words.<lang>.widget.labels`). `{…}` marks a value the widget fills in. web/widget.ts
 * bundles this file as its fallback when it is served without the shop's words.
 */
export const DEFAULT_LABELS = {
  open: 'Chat with us',
  close: 'Close chat',
  conversation: 'Conversation',
  your_message: 'Your message',
  placeholder: 'Type your question…',
  send: 'Send',
  you: 'You',
  loading: 'Loading your conversation…',
  history_failed: 'Your earlier messages could not be loaded. You can still send a message.',
  rating_question: 'Was this answer helpful?',
  helpful: 'Helpful',
  not_helpful: 'Not helpful',
  feedback_thanks: 'Thank you for your feedback.',
  feedback_failed: 'Your rating could not be sent. Please try again.',
  /** `{agent}`: the person's name, else support_team. */
  queued: 'Sent. {agent} will reply here.',
  support_team: 'Our support team',
  session_lost: 'Your earlier conversation could not be continued. Send again to start a new one.',
  type_first: 'Type a message first.',
  interrupted: 'The answer was interrupted. Please send your message again.',
  unreachable: 'We could not reach support. Check your connection and send again.',
  /** Over the service's message limits (429, or the order-proof limit inside an answer's stream). */
  too_many: 'You are sending messages faster than we can answer. Please wait a moment and send again.',
  /** The service, its database or its model failed (5xx, an error inside the answer's stream, an answer that could not be read). */
  unavailable: 'We cannot answer right now. Please try again in a few minutes.',
  /** Any other refusal (a 4xx about the request itself). `{reason}`: the service's message, in English (other languages leave it out). */
  failed: 'Sorry, that did not work: {reason}',
  /** `{name}`: the person's name, else `support`. */
  from_support: '{name} from support',
  /** `{name}`: the person who took the conversation over. */
  answering: '{name} from support is answering',
  /** The note when a person takes the conversation over; `{name}`: the person. */
  joined: '{name} from support joined the conversation.',
  /** The note when the person hands the conversation back to the assistant. */
  handed_back: 'The support team handed the conversation back to the assistant.',
  /** Read out by screen readers while an answer is being written. */
  typing: 'Support is typing',
  support: 'Support',
  sources: 'Sources',
  /** `{page}`: the page of a PDF source. */
  page: '(page {page})',
  /** Under an escalated answer while people answer: the first part in bold. */
  person_lead: 'Asked for a person.',
  person_text: 'Someone from our support team can take over this conversation; their reply will appear right here.',
  /** In the outside-hours note when the service names no hours. */
  support_hours: 'during support hours',
} as const;

/** The English widget words beside the labels. */
export const DEFAULT_WIDGET_WORDS = {
  /** `{shop}` becomes the shop's name. */
  title: '{shop} support',
  subtitle: 'Answers from our help center, any time',
  /** `{title}` becomes the panel's title. */
  welcome: 'Hi! I am the {title} assistant. Ask me about orders, delivery, returns or payments.',
  /** Under an escalated answer outside support hours; `{hours}` becomes the hours. */
  outside_hours: 'Our support team is offline right now. They answer {hours}; your conversation is flagged for them and their reply will appear here.',
} as const;

export type WidgetLabel = keyof typeof DEFAULT_LABELS;
export type WidgetLabels = Record<WidgetLabel, string>;

/** Languages written right to left: the widget and the page at / lay out from the right for them. */
export const RIGHT_TO_LEFT = new Set(['ar', 'he', 'fa', 'ur', 'yi']);

/** The labels a shop gave (any value; only non-empty strings of known names count) over the defaults. */
export function widgetLabels(...given: unknown[]): WidgetLabels {
  const labels: WidgetLabels = { ...DEFAULT_LABELS };
  for (const set of given) {
    if (!set || typeof set !== 'object') continue;
    for (const [name, value] of Object.entries(set)) {
      if (Object.hasOwn(DEFAULT_LABELS, name) && typeof value === 'string' && value.trim() !== '') labels[name as WidgetLabel] = value.trim();
    }
  }
  return labels;
}

/** A label with its `{name}` places filled in. */
export function fill(label: string, values: Record<string, string | number>): string {
  return label.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}
