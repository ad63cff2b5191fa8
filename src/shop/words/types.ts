import type { WidgetLabels } from '../widget-labels';

/**
 * Every fixed word a customer reads that is not the model's answer, in one language: the
 * sentences the service adds to answers, the page at `/`, and the widget's. A built-in
 * language must give every one (a missing label fails typecheck); a shop file's `words`
 * may override any of them, per language.
 */
export interface BuiltInWords {
  /** Appended to an escalated answer while people answer (or when no hours are set). */
  human_offer: string;
  /** Appended to an escalated answer outside support hours; `{hours}` becomes the hours, written for the reader. */
  outside_hours: string;
  /** The answer to a customer who asked for a person, while people answer (or when no hours are set). */
  handover: string;
  /** The same outside support hours; `{hours}` becomes the hours, written for the reader. */
  handover_outside_hours: string;
  /** The first sentence of an answer written without a language model (no OPENAI_API_KEY, or the model failed). */
  offline_notice: string;
  /** Told a customer who is not signed in when a tool answers only for the signed-in customer. */
  sign_in: string;
  /** Told the customer when one of the shop's systems (an action, an MCP server) failed or timed out. */
  tool_failure: string;
  /** Told the customer when the shop's API has no such order for them (it answered 404), or a guest's details did not match. */
  order_not_found: string;
  /** Told a guest after too many order lookups with details that did not match (the order-proof limit). */
  proof_limited: string;
  /** The page at `/` of a shop of its own, under the shop's name. */
  page_intro: string;
  widget: {
    /** The panel's title, and the title of the page at `/`; `{shop}` becomes the shop's name. */
    title: string;
    subtitle: string;
    /** The first message of a new conversation; `{title}` becomes the panel's title. */
    welcome: string;
    /** Under an escalated answer outside support hours; `{hours}` becomes the hours. Its first sentence is shown in bold. */
    outside_hours: string;
    labels: WidgetLabels;
  };
}
