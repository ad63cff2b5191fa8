import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { CommerceStore, OrderRecord } from '../../store/commerce-store';
import { OrderProofLimitError } from '../../errors';
import type { OrderProofs, ProofOutcome } from '../../identity/order-proofs';
import { foldDecimalDigits } from '../../knowledge/language/digits';
import { conversationIdentity, isSameCustomer, signInHint } from './conversation-customer';

export const LOOKUP_ORDER = 'lookup_order';

/** The shop's order numbers, from its shop file (`order_numbers`): a prefix and a number of digits, stored as PREFIX-digits. */
export interface OrderNumberFormat {
  prefix: string;
  digits: number;
}

/** Who the built-in tools speak for: the shop's name and, for lookup_order, its order number format (null: any reference). */
export interface ShopIdentity {
  name: string;
  orderNumbers: OrderNumberFormat | null;
}

/** Used where no shop is given (tests of other parts): a neutral name, any order reference. */
export const UNNAMED_SHOP: ShopIdentity = { name: 'the shop', orderNumbers: null };

// Without a format: an order reference as written, up to 40 letters, digits and hyphens.
const ANY_ORDER_REFERENCE = /^#?([A-Za-z0-9][A-Za-z0-9-]{0,39})$/;
const EXAMPLE_DIGITS = '14440987654321098765';
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/**
 * The ways customers type an order number: 'PREFIX-12345', 'prefix12345', 'PREFIX 12345', '#PREFIX-12345',
 * with the digits of any script ('ZX-١٤٤٤٠'): fold the match with foldDecimalDigits. The number stands
 * apart from letters and digits on both sides (a lookaround, as \b knows only ASCII).
 */
export function orderNumberPattern(format: OrderNumberFormat, anchored: boolean): RegExp {
  const core = `#?${anchored ? '' : '(?<![\\p{L}\\p{N}_])'}${format.prefix}[-\\s]?(\\p{Nd}{${format.digits}})`;
  return anchored ? new RegExp(`^${core}$`, 'iu') : new RegExp(`${core}(?![\\p{L}\\p{N}_])`, 'iu');
}

/** An order number as the shop writes it, for descriptions and hints ('ZX-14440'). */
export function exampleOrderNumber(format: OrderNumberFormat): string {
  return `${format.prefix.toUpperCase()}-${EXAMPLE_DIGITS.slice(0, format.digits).padEnd(format.digits, '0')}`;
}

/** The order number in its stored form ('ZX-14440'), or null when the text is not one. */
export function normalizeOrderId(text: string, format: OrderNumberFormat | null = null): string | null {
  if (!format) return ANY_ORDER_REFERENCE.exec(text.trim())?.[1] ?? null;
  const match = orderNumberPattern(format, true).exec(text.trim());
  return match ? `${format.prefix.toUpperCase()}-${foldDecimalDigits(match[1]!)}` : null;
}

/** What the model is told when the text is not an order number of the shop. */
function notAnOrderNumber(text: string, shop: ShopIdentity): string {
  const format = shop.orderNumbers;
  if (!format) return `${quoteShort(text)} is not an order number of ${shop.name}: an order number is up to 40 letters, digits and hyphens.`;
  const digits = NUMBER_WORDS[format.digits] ?? String(format.digits);
  return `${quoteShort(text)} is not a ${shop.name} order number. Order numbers look like ${exampleOrderNumber(format)}: "${format.prefix.toUpperCase()}", a hyphen and ${digits} digits.`;
}

/**
 * lookup_order(order_id, email?, postcode?): the order as pretty JSON, tracking
 * newest first, for whoever may see it: the verified customer who placed it (a
 * customer token, `configurable.identity`), or a visitor who proved it in this
 * session with the e-mail address or delivery postcode on the order. Anyone else
 * gets a sentence, never data, and the same sentence whether the order exists or
 * not, so order numbers cannot be walked through. A proof that does not match
 * says only that. Too many of those (OrderProofs) stop the turn with a 429.
 */
export function createLookupOrderTool(commerce: CommerceStore, proofs: OrderProofs, shop: ShopIdentity = UNNAMED_SHOP) {
  const example = shop.orderNumbers ? exampleOrderNumber(shop.orderNumbers) : null;
  return tool(
    async ({ order_id, email, postcode }, config) => {
      const orderId = normalizeOrderId(order_id, shop.orderNumbers);
      if (!orderId) return notAnOrderNumber(order_id, shop);
      const identity = conversationIdentity(config);
      const customer = identity.verifiedCustomerId;
      if (customer) {
        const order = await commerce.findOrder(orderId);
        if (order?.userId && isSameCustomer(customer, order.userId)) return JSON.stringify(presentOrder(order), null, 2);
      }
      if (identity.sessionId && (await proofs.isProven(identity.sessionId, orderId))) {
        const order = await commerce.findOrder(orderId);
        if (order) return JSON.stringify(presentOrder(order), null, 2);
      }

      const proof = { email: email?.trim() || undefined, postcode: postcode?.trim() || undefined };
      if (!proof.email && !proof.postcode) {
        const why = customer ? `Order ${orderId} is not on the signed-in customer's account.` : `This conversation is not signed in to a customer account.`;
        const hint = customer ? '' : ` ${signInHint(identity)}`;
        return `${why} To look up order ${orderId}, ask the customer for the e-mail address or the delivery postcode used for it, then look it up again with that detail.${hint}`;
      }
      let outcome: ProofOutcome;
      try {
        outcome = await proofs.check({ sessionId: identity.sessionId, clientAddress: identity.clientAddress, orderId, ...proof });
      } catch (error) {
        if (!(error instanceof OrderProofLimitError)) throw error;
        identity.stopTurn(error);
        return `Too many lookups with details that did not match: no more order lookups are possible for now. ${signInHint(identity)}`;
      }
      if (outcome === 'mismatch') {
        return `The details given cannot be matched to order ${orderId}, so nothing about it can be shared. Ask the customer to check the order number and the e-mail address or postcode on the order confirmation.`;
      }
      const order = await commerce.findOrder(orderId);
      return order ? JSON.stringify(presentOrder(order), null, 2) : `Order ${orderId} could not be read just now.`;
    },
    {
      name: LOOKUP_ORDER,
      description:
        `Look up a ${shop.name} order by its order number${example ? ` (like ${example})` : ''}. Returns the status, carrier, ship date, ` +
        'destination city, items and the carrier tracking events, newest first. Use it when the customer asks where ' +
        'an order is, what it contains, or what happened to a delivery. Unless the order is on the signed-in ' +
        "customer's account, it needs the e-mail address or the delivery postcode on the order, exactly as the customer wrote it.",
      schema: z.object({
        order_id: z.string().describe(`The order number as the customer gave it${example ? `, e.g. "${example}"` : ''}.`),
        email: z.string().max(254).optional().describe('The e-mail address the customer gave for this order, if any. Never guess it.'),
        postcode: z.string().max(20).optional().describe('The delivery postcode the customer gave for this order, if any. Never guess it.'),
      }),
    },
  );
}

/** What the model sees: snake_case like the shop's API, no customer identity, e-mail address or postcode. */
function presentOrder(order: OrderRecord) {
  return {
    order_id: order.orderId,
    status: order.status,
    carrier: order.carrier,
    ship_date: order.shipDate,
    destination_city: order.destinationCity,
    items: order.items.map((i) => ({ sku: i.sku, name: i.name, qty: i.qty, unit_price: i.unitPrice })),
    tracking_events: [...order.trackingEvents]
      .sort((a, b) => Date.parse(b.ts) - Date.parse(a.ts))
      .map((e) => ({ ts: e.ts, location: e.location, status: e.status, detail: e.detail })),
  };
}

/** Echoes what the model sent, cut short: it is chat text, not worth repeating at length. */
function quoteShort(text: string): string {
  const trimmed = text.trim();
  return JSON.stringify(trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed);
}
