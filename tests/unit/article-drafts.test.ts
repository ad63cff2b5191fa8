/**
 * A draft article keeps the person's answer and masks what is personal: each kind of
 * personal data on its own, and what only looks like it (a year, a price) stays.
 */
import { draftArticle, redactPersonalData } from '../../src/knowledge/drafts';
import type { SessionRecord, StoredMessage } from '../../src/store/types';

describe('personal data in a draft', () => {
  test.each([
    ['a card number', 'Your card 4242 4242 4242 4242 was charged.', '4242 4242 4242 4242'],
    ['an e-mail address', 'Write to jan.novak+shop@example.co.uk for it.', 'jan.novak'],
    ['a phone number', 'Call +44 20 7946 0958 or (555) 123-4567.', '7946'],
    ['another phone number', 'Call (555) 123-4567.', '123-4567'],
    ['an order number with letters', 'Order ORD-88231 is on its way.', '88231'],
    ['an order number with #', 'Order #1042 is on its way.', '1042'],
    ['a bare order number', 'Order 5531207 is on its way.', '5531207'],
  ])('masks %s', (_kind, text, personal) => {
    expect(redactPersonalData(text)).not.toContain(personal);
  });

  test('leaves a year, a price, a duration and a size as they are', () => {
    const text = 'Since 2026 engraving costs 9.50 euros, takes 2-3 days and fits 30 characters on a 500ml bottle.';
    expect(redactPersonalData(text)).toBe(text);
  });
});

function message(seq: number, role: StoredMessage['role'], content: string, extra: Partial<StoredMessage> = {}): StoredMessage {
  return { id: String(seq), sessionId: 's', seq, role, content, toolCalls: null, toolCallId: null, name: null, tokenCount: 1, confidence: null, escalated: null, escalationReason: null, metadata: {}, createdAt: new Date(), ...extra };
}

const session = { sessionId: 's', userId: 'maria.gonzalez@example.com', agentName: 'Tomasz' } as SessionRecord;

describe('a draft from a conversation', () => {
  const conversation = [
    message(1, 'user', 'hi, my name is Maria Gonzalez. do you offer engraving?'),
    message(2, 'assistant', 'I could not find that.', { escalated: true, escalationReason: 'not_in_help_center', confidence: 0.1 }),
    message(3, 'assistant', 'Tomasz from support joined the conversation.', { metadata: { handoff: { handler: 'human', agent_name: 'Tomasz' } } }),
    message(4, 'assistant', 'Hello Maria,\nEngraving costs 9 euros per item. Gonzalez orders included.\nKind regards,\nTomasz', { metadata: { author: { type: 'human', name: 'Tomasz' } } }),
  ];

  test("takes the question as its title and the person's reply, without greeting and sign-off, as its body; no name is left", () => {
    const draft = draftArticle(session, conversation);
    expect(draft.title).toBe('Do you offer engraving?');
    expect(draft.body).toBe('Engraving costs 9 euros per item. [name] orders included.');
    expect(draft.source).toBe('learned/do-you-offer-engraving.md');
  });

  test('a name the customer gives in the question itself is masked in the title', () => {
    const named = conversation.map((m) => (m.seq === 1 ? { ...m, content: 'can Maria get engraving on the products?' } : m));
    expect(draftArticle(session, named).title).toBe('Can [name] get engraving on the products?');
  });

  test('a request for a person is not a question the help center lacked', () => {
    const asked = conversation.map((m) => (m.seq === 2 ? { ...m, escalationReason: 'customer_asked' } : m));
    expect(() => draftArticle(session, asked)).toThrow(expect.objectContaining({ code: 'no_escalated_question', status: 422 }));
  });
});
