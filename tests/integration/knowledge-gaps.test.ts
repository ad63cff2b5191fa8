/**
 * The learning loop on the real service, offline (PGlite, the embedded default's offline
 * responder): questions the help center cannot answer are grouped into one gap, a person
 * answers one of them, the draft made from that conversation holds the answer and nothing
 * personal, and once it is published the next customer asking the same thing is answered
 * from it instead of escalated.
 */
import { startTestService, type TestService } from '../support/test-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

const ENGRAVING = ['Do you offer engraving on your products?', 'Can you engrave the products you sell?', 'Do you engrave products?'];
const FOURTH_ENGRAVING = 'Could you do an engraving on products I buy?';
const UNRELATED = 'Do you have a student discount?';

// Personal data planted in the conversation the draft is made from.
const CARD = '4111 1111 1111 1111';
const EMAIL = 'anna.kowalski@example.org';
const PHONE = '+49 30 1234 5678';
const ORDER = 'ORD-48213';
const CUSTOMER_NAME = 'Kowalski';
const AGENT_NAME = 'Rosalind';

let counter = 0;
async function ask(message: string, userId?: string): Promise<{ sessionId: string; body: any }> {
  const sessionId = `gap-${Date.now().toString(36)}-${++counter}`;
  const response = await service.postChat({ session_id: sessionId, message, ...(userId && { user_id: userId }) });
  expect(response.status).toBe(200);
  return { sessionId, body: response.body };
}

async function gaps(): Promise<any[]> {
  const insights = await service.request('GET', '/api/v1/knowledge/insights?limit=20');
  expect(insights.status).toBe(200);
  return insights.body.gaps;
}

describe('the learning loop, offline', () => {
  test('three paraphrases make one gap of three; a person answers one; the draft holds the answer and nothing personal; once published the fourth paraphrase is answered from it', async () => {
    // A customer who names herself in the conversation and is labelled by her e-mail address.
    const first = await ask(`Hello, I'm Anna ${CUSTOMER_NAME}. ${ENGRAVING[0]}`, EMAIL);
    const others = [await ask(ENGRAVING[1]!), await ask(ENGRAVING[2]!)];
    const unrelated = await ask(UNRELATED);
    for (const asked of [first, ...others, unrelated]) expect(asked.body).toMatchObject({ escalated: true, escalation_reason: 'not_in_help_center' });

    const before = await gaps();
    const engraving = before.find((g) => /engrav/i.test(g.question));
    expect(engraving).toMatchObject({ count: 3, reasons: { not_in_help_center: 3 } });
    expect(engraving.session_ids.sort()).toEqual([first.sessionId, ...others.map((o) => o.sessionId)].sort());
    expect(engraving.examples).toHaveLength(2);
    const student = before.find((g) => /student/i.test(g.question));
    expect(student).toMatchObject({ count: 1, session_ids: [unrelated.sessionId] });

    // A person takes the first conversation over and answers it; the customer adds her details.
    const conversation = (action: string, body: unknown) => service.request('POST', `/api/v1/conversations/${first.sessionId}/${action}`, body);
    expect((await conversation('takeover', { agent_name: AGENT_NAME })).status).toBe(200);
    expect((await service.postChat({ session_id: first.sessionId, message: `My order is ${ORDER}, call me on ${PHONE}, card ${CARD}.` })).status).toBe(202);
    const reply =
      `Hi Anna,\n\nYes, we engrave products: engraving costs 9 euros per item and adds two working days to the delivery. ` +
      `Choose "Add engraving" on the product page and type up to 30 characters. ` +
      `I have noted it for order ${ORDER}; we will call ${PHONE} or write to ${EMAIL} if anything is unclear.\n\nBest regards,\n${AGENT_NAME}`;
    expect((await conversation('replies', { content: reply })).status).toBe(201);

    const drafted = await service.request('POST', '/api/v1/knowledge/drafts', { session_id: first.sessionId });
    expect(drafted.status).toBe(200);
    const { title, body, source } = drafted.body;
    expect(title).toMatch(/engraving/i);
    expect(body).toContain('engraving costs 9 euros per item and adds two working days');
    expect(body).toContain('type up to 30 characters');
    const draft = `${title}\n${body}`;
    for (const personal of [CARD, '4111', EMAIL, 'kowalski', PHONE, '1234 5678', ORDER, '48213', 'Anna', AGENT_NAME]) {
      expect(draft.toLowerCase()).not.toContain(personal.toLowerCase());
    }
    expect(source).toMatch(/^learned\/[a-z0-9-]+\.md$/);

    const published = await service.request('PUT', `/api/v1/knowledge/sources/${encodeURIComponent(source)}`, { title, content: body });
    expect(published.status).toBe(201);

    const fourth = await ask(FOURTH_ENGRAVING);
    expect(fourth.body.escalated).toBe(false);
    expect(fourth.body.sources.map((s: any) => s.source)).toContain(source);
    expect(fourth.body.response).toContain('9 euros');
    // The gap is still listed from the earlier askings; the student discount one is untouched.
    expect((await gaps()).find((g) => /student/i.test(g.question))).toMatchObject({ count: 1 });
  });

  test('a draft needs a conversation with an escalated question and a reply from a person', async () => {
    expect((await service.request('POST', '/api/v1/knowledge/drafts', { session_id: 'no-such-session' })).body.error.code).toBe('not_found');
    expect((await service.request('POST', '/api/v1/knowledge/drafts', { session_id: 'bad id!' })).status).toBe(400);
    expect((await service.request('POST', '/api/v1/knowledge/drafts', { session_id: 'x', extra: 1 })).status).toBe(400);
    expect((await service.request('POST', '/api/v1/knowledge/drafts', { session_id: 'x' }, null)).status).toBe(401);

    const answered = await ask('How long do refunds take?');
    expect(answered.body.escalated).toBe(false);
    const noQuestion = await service.request('POST', '/api/v1/knowledge/drafts', { session_id: answered.sessionId });
    expect(noQuestion).toMatchObject({ status: 422, body: { error: { code: 'no_escalated_question' } } });

    const unanswered = await ask(UNRELATED);
    const noReply = await service.request('POST', '/api/v1/knowledge/drafts', { session_id: unanswered.sessionId });
    expect(noReply).toMatchObject({ status: 422, body: { error: { code: 'no_person_reply' } } });
  });
});
