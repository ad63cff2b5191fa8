import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { CommerceStore, OrderRecord } from '../../store/commerce-store';
import { conversationUserId, isSameCustomer } from './conversation-customer';

export const LOOKUP_ORDER = 'lookup_order';

// 'ZX-14440', and the ways customers type it: 'zx14440', 'ZX 14440', '#ZX-14440'.
const ORDER_NUMBER = /^#?ZX[-\s]?(\d{5})$/i;

/** The order number in its stored form ('ZX-14440'), or null when the text is not one. */
export function normalizeOrderId(text: string): string | null {
  const match = ORDER_NUMBER.exec(text.trim());
  return match ? `ZX-${match[1]}` : null;
}

/**
 * lookup_order(order_id): the order as pretty JSON, tracking newest first.
 * Answers in a sentence, never by throwing, when the number is malformed or
 * unknown, or when the order belongs to another customer than the conversation's
 * (`configurable.user_id`). Without a signed-in customer, the order number alone
 * is enough, as on the shop's tracking page.
 */
export function createLookupOrderTool(commerce: CommerceStore) {
  return tool(
    async ({ order_id }, config) => {
      const orderId = normalizeOrderId(order_id);
      if (!orderId) {
        return `${quoteShort(order_id)} is not a Northwind Home order number. Order numbers look like ZX-14440: "ZX", a hyphen and five digits.`;
      }
      const order = await commerce.findOrder(orderId);
      if (!order) return `No order ${orderId} was found. Check the number on the confirmation e-mail.`;

      const customer = conversationUserId(config);
      if (customer && order.userId && !isSameCustomer(customer, order.userId)) {
        return `Order ${orderId} belongs to a different customer account than the one in this conversation, so its details cannot be shared here. Ask the customer to check the order number, or to sign in with the account that placed the order.`;
      }
      return JSON.stringify(presentOrder(order), null, 2);
    },
    {
      name: LOOKUP_ORDER,
      description:
        'Look up a Northwind Home order by its order number (like ZX-14440). Returns the status, carrier, ship date, ' +
        'destination city, items and the carrier tracking events, newest first. Use it when the customer asks where ' +
        'an order is, what it contains, or what happened to a delivery.',
      schema: z.object({
        order_id: z.string().describe('The order number as the customer gave it, e.g. "ZX-14440".'),
      }),
    },
  );
}

/** What the model sees: snake_case like the shop's API, no customer identity (anonymous lookups are allowed). */
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
