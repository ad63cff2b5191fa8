/**
 * The widget's own words: its buttons, status lines and notes, as opposed to the shop's
 * title, subtitle and welcome. The shop file sets any of them per language
 * (`words.widget.labels`, `words.<lang>.widget.labels`); what it leaves out is English,
 * from here. `{…}` marks a value the widget fills in. web/widget.ts bundles this file and
 * the shop file's schema reads its names and defaults, so both know the same words.
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
  /** Any other refusal (a 4xx about the request itself). `{reason}`: the service's message, in English. */
  failed: 'Sorry, that did not work: {reason}',
  /** `{name}`: the person's name, else `support`. */
  from_support: '{name} from support',
  /** `{name}`: the person who took the conversation over. */
  answering: '{name} from support is answering',
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

/**
 * The widget's words the shop file sets beside its labels (`words.widget`), as they are when it
 * does not: the shop file's schema defaults to them, and the widget falls back to them.
 */
export const DEFAULT_WIDGET_WORDS = {
  subtitle: 'Answers from our help center, any time',
  /** `{title}` becomes the panel's title. */
  welcome: 'Hi! I am the {title} assistant. Ask me about orders, delivery, returns or payments.',
  /** Under an escalated answer outside support hours; `{hours}` becomes the hours. */
  outside_hours: 'Our support team is offline right now. They answer {hours}; your conversation is flagged for them and their reply will appear here.',
} as const;

export type WidgetLabel = keyof typeof DEFAULT_LABELS;
export type WidgetLabels = Record<WidgetLabel, string>;

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
