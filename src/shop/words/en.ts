import { DEFAULT_LABELS, DEFAULT_WIDGET_WORDS } from '../widget-labels';
import type { BuiltInWords } from './types';

/** English. The widget's part lives in widget-labels.ts, which widget.js bundles as its own fallback. */
export const en: BuiltInWords = {
  human_offer:
    'I am not confident I have the right answer, so I have flagged this conversation for our support team: a human agent can take over if you would like.',
  outside_hours:
    'I am not confident I have the right answer, so I have flagged this conversation for our support team. They are not available right now; they answer {hours} and will see your question and reply in this chat.',
  handover: 'I have passed your conversation to our support team: someone will take over and reply to you here.',
  handover_outside_hours: 'I have flagged your conversation for our support team. They are not available right now; they answer {hours} and will reply to you in this chat.',
  offline_notice: 'I am running in offline mode (no language model is configured), so I can only quote our help center and our records.',
  sign_in: 'To see your orders and account, please sign in to your account on our shop and open the chat there.',
  tool_failure: "I could not reach our shop's system just now, so I could not look that up. Please try again in a moment.",
  order_not_found: 'I could not find that order for your account. Please check the order number on your order confirmation.',
  proof_limited: 'There were too many order lookups with details that did not match. Please try again later, or sign in to your account to see your orders.',
  page_intro: 'Questions about an order, a delivery or a return? Ask in the chat below.',
  widget: { ...DEFAULT_WIDGET_WORDS, labels: DEFAULT_LABELS },
};
