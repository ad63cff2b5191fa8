import { startTestService, type TestService } from '../support/test-service';

/**
 * The person who takes over reads what the customer asked and what was tried, whoever handed the
 * conversation over: offline, the judge escalates without a model to write a summary, so the
 * service writes one (src/chat/handover-summary.ts). On the sample help center, through the real
 * service; shown as the model's summary is (history, sessions list, console).
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, 240_000);
afterAll(async () => {
  await service?.close();
});

jest.setTimeout(120_000);

const CARD = '4111 1111 1111 1111';

describe('a hand-over the bot decided carries a summary for the person who takes over', () => {
  it('names what the customer asked, the question before it, and the closest articles, redacted', async () => {
    const first = await service.postChat({ message: 'How long does a refund take?', session_id: 'summary-offline' });
    expect(first.body.escalated).toBe(false);
    expect(first.body.handoff_summary).toBeUndefined();

    const { status, body } = await service.postChat({ message: `Can I pay with Bitcoin or Dogecoin? Wallet ref ${CARD}`, session_id: 'summary-offline' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ escalated: true, escalation_reason: 'not_in_help_center' });
    expect(body.handoff_summary).toMatch(/^The customer asked “Can I pay with Bitcoin or Dogecoin\?/);
    expect(body.handoff_summary).toContain('(after “How long does a refund take?”)');
    expect(body.handoff_summary).toContain(`“${body.sources[0].title}”`);
    expect(body.handoff_summary).toMatch(/did not answer it \(search confidence 0\.\d\d\)\.$|found no article\.$/);
    expect(body.handoff_summary).not.toContain(CARD);

    const history = await service.getHistory('summary-offline');
    expect(history.body).toMatchObject({ escalation_reason: 'not_in_help_center', handoff_summary: body.handoff_summary });
    expect(history.body.messages.at(-1)).toMatchObject({ role: 'assistant', escalated: true, handoff_summary: body.handoff_summary });
    const listed = await service.request('GET', '/api/v1/chat/sessions?waiting=true');
    expect(listed.body.sessions.find((s: any) => s.session_id === 'summary-offline')).toMatchObject({ handoff_summary: body.handoff_summary });
  });

  it('says that the customer asked for a person, in their words', async () => {
    const { body } = await service.postChat({ message: 'Can I talk to a real human please?', session_id: 'summary-asked' });
    expect(body).toMatchObject({ escalated: true, escalation_reason: 'customer_asked' });
    expect(body.handoff_summary).toBe('The customer asked for a person: “Can I talk to a real human please?”.');
  });
});
