import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { CommerceStore, CustomerProfile } from '../../store/commerce-store';
import { conversationIdentity, isSameCustomer, signInHint } from './conversation-customer';

export const GET_USER_PROFILE = 'get_user_profile';

/**
 * get_user_profile(user_id?): the conversation's own customer profile, with
 * purchase history, as pretty JSON. It answers only for a verified customer (a
 * valid customer token on this request, `configurable.identity`): another id, an
 * anonymous session or a user_id that was only claimed gets a refusal sentence
 * that says how to sign in, and no data. user_id may be left out, since the
 * model often does not know the customer's id.
 */
export function createGetUserProfileTool(commerce: CommerceStore) {
  return tool(
    async ({ user_id }, config) => {
      const identity = conversationIdentity(config);
      const customer = identity.verifiedCustomerId;
      if (!customer) {
        return (
          `This conversation is not signed in to a customer account, so no customer profile or order history can be shared. ${signInHint(identity)} ` +
          'Without signing in, one order can be looked up with its order number and the e-mail address or delivery postcode used for it.'
        );
      }
      const requested = user_id?.trim() || customer;
      if (!isSameCustomer(requested, customer)) {
        return 'A customer profile can only be shared with the signed-in customer it belongs to, and the requested id is not the customer in this conversation, so nothing was looked up.';
      }
      const profile = await commerce.findCustomer(customer);
      if (!profile) return `No customer profile was found for the signed-in customer (${customer}).`;
      return JSON.stringify(presentProfile(profile), null, 2);
    },
    {
      name: GET_USER_PROFILE,
      description:
        "Get the signed-in customer's profile: name, contact details, city, loyalty tier, member-since date and " +
        'purchase history. Use it when the answer depends on who the customer is or what they bought before. ' +
        'Only the customer of this conversation can be looked up.',
      schema: z.object({
        user_id: z
          .string()
          .optional()
          .describe("The customer's id (their e-mail address). Leave it out to mean the customer of this conversation."),
      }),
    },
  );
}

function presentProfile(profile: CustomerProfile) {
  return {
    user_id: profile.userId,
    name: profile.name,
    email: profile.email,
    phone: profile.phone,
    city: profile.city,
    loyalty_tier: profile.loyaltyTier,
    member_since: profile.memberSince,
    purchase_history: profile.purchaseHistory.map((p) => ({
      order_id: p.orderId,
      date: p.date,
      product: p.product,
      total: p.total,
      returned: p.returned,
    })),
  };
}
