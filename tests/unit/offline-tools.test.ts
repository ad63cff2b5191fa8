import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { buildPromptMessages, buildSystemPrompt, formatKnowledge } from '../../src/agent/prompts';
import { createGetUserProfileTool } from '../../src/agent/tools/get-user-profile';
import { createLookupOrderTool } from '../../src/agent/tools/lookup-order';
import { truncateToolOutput } from '../../src/memory/context';
import { TokenCounter } from '../../src/memory/tokens';
import { ExtractiveChatModel, OFFLINE_NOTICE, orderLookupArguments } from '../../src/models/extractive-chat-model';
import type { ConversationIdentity } from '../../src/agent/tools/conversation-customer';
import type { OrderProofs } from '../../src/identity/order-proofs';
import type { CommerceStore, OrderRecord } from '../../src/store/commerce-store';

const TOOL_OUTPUT_MAX_CHARS = 4000;

/** An order far past TOOL_OUTPUT_MAX_CHARS once presented: many items and carrier scans. */
const ORDER: OrderRecord = {
  orderId: 'ZX-14440',
  userId: 'lukas@example.com',
  status: 'in_transit',
  carrier: 'PostNord',
  shipDate: '2026-04-11',
  destinationCity: 'Cork',
  items: Array.from({ length: 12 }, (_, i) => ({ sku: `SKU-${30000 + i}`, name: `Vesper air fryer part ${i}`, qty: 1, unitPrice: 19.99 + i })),
  // oldest first, as the carrier reports them; the newest is the Cork depot scan
  trackingEvents: Array.from({ length: 40 }, (_, i) => ({
    ts: `2026-04-${String(11 + Math.floor(i / 4)).padStart(2, '0')}T${String(6 + (i % 4) * 4).padStart(2, '0')}:00:00Z`,
    location: i === 39 ? 'Cork depot' : `Hub ${i}`,
    status: i === 39 ? 'out for delivery' : 'scanned',
    detail: i === 39 ? 'The driver will call before delivery.' : `Package scanned at hub ${i}; no action required by the recipient at this stage.`,
  })),
  createdAt: new Date('2026-04-10T09:00:00Z'),
};

/**
 * The shop's records, in memory: the real tools run on it (the Postgres-backed store is
 * covered by the integration tests; here only the model is under test).
 */
const commerce: CommerceStore = {
  findOrder: async (orderId) => (orderId === ORDER.orderId ? ORDER : null),
  findCustomer: async () => null,
};
/**
 * The order proofs need the database (tests/integration/customer-identity*); here
 * the order's own verified customer asks, so the tool never reaches them.
 */
const NO_PROOFS = {
  isProven: async () => false,
  check: async () => {
    throw new Error('no proof is checked in these tests');
  },
} as unknown as OrderProofs;
/** The sample shop's order numbers (shops/sample/shop.yaml): "ZX" and five digits. */
const SAMPLE_ORDER_NUMBERS = { prefix: 'ZX', digits: 5 };
const lookupOrder = createLookupOrderTool(commerce, NO_PROOFS, { name: 'Northwind Home', orderNumbers: SAMPLE_ORDER_NUMBERS });
/** The run config of a conversation whose verified customer placed ORDER. */
const asOwner = { configurable: { identity: identityOf('lukas@example.com') } };
function identityOf(customer: string | null): ConversationIdentity {
  return { verifiedCustomerId: customer, sessionId: 'offline-tools', clientAddress: null, stopTurn: () => {} };
}
const getUserProfile = createGetUserProfileTool(commerce);

const counter = new TokenCounter('gpt-4o-mini');
const offlineModel = () => new ExtractiveChatModel(counter, { orderNumbers: SAMPLE_ORDER_NUMBERS });
const withTools = () => offlineModel().bindTools([lookupOrder, getUserProfile]);

const SYSTEM = buildSystemPrompt({});
const KNOWLEDGE = formatKnowledge([]);

/** The prompt as the graph builds it: system, history, the question, then this turn's call and result (capped). */
function prompt(question: string, turn: BaseMessage[] = [], history: Parameters<typeof buildPromptMessages>[0]['history'] = []): BaseMessage[] {
  return buildPromptMessages({ system: SYSTEM, history, knowledge: KNOWLEDGE, question, turn, toolOutputMaxChars: TOOL_OUTPUT_MAX_CHARS });
}

/** This turn after the model called lookup_order and the tool answered. */
function afterLookup(output: string): BaseMessage[] {
  return [
    new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'lookup_order', args: { order_id: 'ZX-14440' }, type: 'tool_call' }] }),
    new ToolMessage({ content: output, tool_call_id: 'call_1', name: 'lookup_order' }),
  ];
}

describe('the offline responder with tools', () => {
  it('calls lookup_order for an order number in the question, with empty content', async () => {
    const reply = await withTools().invoke(prompt('Where is my order ZX-14440?'));
    expect(reply).toBeInstanceOf(AIMessage);
    expect(reply.content).toBe('');
    expect(reply.tool_calls).toEqual([{ id: expect.stringMatching(/^call_\w+$/), name: 'lookup_order', args: { order_id: 'ZX-14440' }, type: 'tool_call' }]);
  });

  it('passes the order number as the customer typed it, which the real tool understands', async () => {
    const reply = await withTools().invoke(prompt('any news on zx 14440 please'));
    const args = reply.tool_calls![0]!.args as { order_id: string };
    expect(args.order_id).toBe('zx 14440');
    expect(JSON.parse(await lookupOrder.invoke(args, asOwner))).toMatchObject({ order_id: 'ZX-14440' });
  });

  it('passes an e-mail address or postcode given with the order number as the proof of an anonymous lookup', async () => {
    const reply = await withTools().invoke(prompt('Where is ZX-14440? My email is Lukas@Example.com.'));
    expect(reply.tool_calls![0]!.args).toEqual({ order_id: 'ZX-14440', email: 'Lukas@Example.com' });
    const cases: Array<[string, ReturnType<typeof orderLookupArguments>]> = [
      ['order zx 43466, postcode 40121 thanks', { order_id: 'zx 43466', postcode: '40121' }],
      ['ZX-14440 post code is T12 RX38', { order_id: 'ZX-14440', postcode: 'T12 RX38' }],
      ['ZX-20918 zip: 80-831 please', { order_id: 'ZX-20918', postcode: '80-831' }],
      ['ZX-45643 postcode 211 22', { order_id: 'ZX-45643', postcode: '211 22' }],
      ['ZX-17496, postcode is 5003 and the parcel is late', { order_id: 'ZX-17496', postcode: '5003' }],
      ['Where is my order ZX-14440?', { order_id: 'ZX-14440' }],
      ['My email is lukas@example.com', null],
    ];
    for (const [message, args] of cases) expect({ message, args: orderLookupArguments(message, SAMPLE_ORDER_NUMBERS) }).toEqual({ message, args });
  });

  it('gives every call its own id', async () => {
    const [a, b] = await Promise.all([withTools().invoke(prompt('ZX-14440?')), withTools().invoke(prompt('ZX-14440?'))]);
    expect(a.tool_calls![0]!.id).not.toBe(b.tool_calls![0]!.id);
  });

  it('does not call a tool without bound tools, nor when lookup_order is not among them', async () => {
    for (const model of [offlineModel(), offlineModel().bindTools([getUserProfile])]) {
      const reply = await model.invoke(prompt('Where is my order ZX-14440?'));
      expect(reply.tool_calls).toEqual([]);
      expect(reply.text.startsWith(OFFLINE_NOTICE)).toBe(true);
    }
  });

  it('reads only the last customer message: an order number earlier in the history calls nothing', async () => {
    const history = [
      { role: 'user' as const, content: 'Where is ZX-14440?', tokens: 0 },
      { role: 'assistant' as const, content: 'It is in transit.', tokens: 0 },
    ];
    const reply = await withTools().invoke(prompt('How long do returns take?', [], history));
    expect(reply.tool_calls).toEqual([]);
  });

  describe('after lookup_order answered', () => {
    const expectOrderDescribed = (answer: string) => {
      expect(answer.startsWith(OFFLINE_NOTICE)).toBe(true);
      expect(answer).toContain('Order ZX-14440 is in transit.');
      expect(answer).toContain('It went with PostNord on 2026-04-11 to Cork.');
      expect(answer).toContain(
        'Latest tracking (2026-04-20T18:00:00Z): out for delivery at Cork depot. The driver will call before delivery.',
      );
    };

    it('describes status, carrier, destination and the latest tracking event, and calls nothing more', async () => {
      const output = await lookupOrder.invoke({ order_id: 'ZX-14440' }, asOwner);
      const reply = await withTools().invoke(prompt('Where is my order ZX-14440?', afterLookup(output)));
      expect(reply.tool_calls).toEqual([]);
      expectOrderDescribed(reply.text);
    });

    it('still describes it when the JSON was cut off at TOOL_OUTPUT_MAX_CHARS', async () => {
      const output = await lookupOrder.invoke({ order_id: 'ZX-14440' }, asOwner);
      expect(output.length).toBeGreaterThan(2 * TOOL_OUTPUT_MAX_CHARS);
      const messages = prompt('Where is my order ZX-14440?', afterLookup(output));
      const seen = messages.at(-1)!.text;
      expect(seen).toBe(truncateToolOutput(output, TOOL_OUTPUT_MAX_CHARS));
      expect(() => JSON.parse(seen)).toThrow(); // cut mid-way: no longer JSON

      const reply = await withTools().invoke(messages);
      expectOrderDescribed(reply.text);
      expect(reply.text).not.toContain('[truncated');
    });

    it.each([
      ['another customer’s order', { order_id: 'ZX-14440' }, { configurable: { identity: identityOf('someone.else@example.com') } }, "is not on the signed-in customer's account"],
      ['an anonymous visitor without proof', { order_id: 'ZX-14440' }, {}, 'not signed in to a customer account'],
      ['an unknown order', { order_id: 'ZX-99999' }, asOwner, "Order ZX-99999 is not on the signed-in customer's account"],
      ['a malformed number', { order_id: 'order 12' }, {}, 'is not a Northwind Home order number'],
    ])('passes on the tool’s sentence for %s', async (_case, args, config, sentence) => {
      const output = await lookupOrder.invoke(args, config);
      expect(output).toContain(sentence);
      const reply = await withTools().invoke(prompt('Where is my order ZX-14440?', afterLookup(output)));
      expect(reply.text).toBe(`${OFFLINE_NOTICE} ${output}`);
      expect(reply.text).not.toContain('Cork');
    });

    it('passes on get_user_profile’s refusal in an anonymous session', async () => {
      const refusal = await getUserProfile.invoke({});
      expect(refusal).toContain('not signed in');
      const turn = [
        new AIMessage({ content: '', tool_calls: [{ id: 'call_p', name: 'get_user_profile', args: {}, type: 'tool_call' }] }),
        new ToolMessage({ content: refusal, tool_call_id: 'call_p', name: 'get_user_profile' }),
      ];
      const reply = await withTools().invoke(prompt('What tier am I?', turn));
      expect(reply.text).toBe(`${OFFLINE_NOTICE} ${refusal}`);
    });

    it('uses only this turn’s results: a lookup answered in an earlier turn is not answered again', async () => {
      const output = await lookupOrder.invoke({ order_id: 'ZX-14440' }, asOwner);
      const earlier = [
        new HumanMessage('Where is ZX-14440?'),
        ...afterLookup(output),
        new AIMessage('It is out for delivery.'),
        new HumanMessage('And what about ZX-14440 now?'),
      ];
      const reply = await withTools().invoke(earlier);
      expect(reply.tool_calls).toHaveLength(1); // a new question with an order number: a fresh lookup
    });
  });
});
