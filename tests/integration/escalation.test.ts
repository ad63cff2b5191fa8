/**
 * When the service answers and when it hands over, and why (docs/escalation.md): the
 * conversation acts before search, the model's hand_off_to_person tool through the real
 * ChatOpenAI client against the loopback OpenAI-compatible stub, and the reason on every
 * escalated answer: in the answer, the stream's done event, the history, the sessions
 * list, the answers metric and the stored rows.
 */
import { HUMAN_HANDOFF_OFFER, ESCALATION_REASONS, PERSON_HANDOFF } from '../../src/chat/escalation';
import { metric } from '../support/metrics';
import { postStream } from '../support/sse';
import { startOfflineAndOnline, type OfflineAndOnline } from '../support/test-service';

let services: OfflineAndOnline;
const online = () => services.online;
const offline = () => services.offline;
const stub = () => services.stub;

beforeAll(async () => {
  services = await startOfflineAndOnline();
}, 180_000);
afterAll(async () => {
  await services?.close();
});
beforeEach(() => {
  stub().reset();
});

const CARD = '4242 4242 4242 4242';
const SUMMARY = `Customer wants a refund for a lamp that arrived broken; paid with card ${CARD}. The returns passages do not cover broken deliveries.`;

describe('the hand_off_to_person tool, with a model (loopback)', () => {
  it('is offered in every request, and a call escalates with reason model: the summary, redacted, reaches the history, the sessions list and the metric', async () => {
    const before = await metric(online(), 'chat_answers_total', { escalation_reason: 'model' });
    stub().enqueueChat({
      toolCalls: [{ id: 'call_handoff', name: 'hand_off_to_person', arguments: { summary: SUMMARY, reason: 'refund dispute' } }],
      content: 'I am passing this to a colleague from our team, who will reply here.',
    });
    const { status, body } = await online().postChat({ message: 'My lamp arrived broken and I want my money back, nobody answers my emails', session_id: 'handoff-model' });
    expect(status).toBe(200);

    // Offered, though no agent lists it in its tools; the turn ends after the call (one model request).
    const requests = stub().chatRequests();
    expect(requests).toHaveLength(1);
    const offered = (requests[0]!.body.tools as Array<{ function: { name: string; parameters: { required?: string[] } } }>).map((t) => t.function);
    expect(offered.find((f) => f.name === 'hand_off_to_person')?.parameters.required).toEqual(['summary']);
    expect(requests[0]!.body.messages[0].content).toContain('Call the hand_off_to_person tool');

    // The model wrote words beside the call: the customer reads them, and no second hand-over sentence.
    expect(body).toMatchObject({
      escalated: true,
      escalation_reason: 'model',
      response: 'I am passing this to a colleague from our team, who will reply here.',
      handoff_summary: expect.stringContaining('[card ending 4242]'),
    });
    expect(body.handoff_summary).not.toContain(CARD);
    // One model call on the bill: the turn ended with the hand-off.
    expect(body.usage.by_purpose.answer.calls).toBe(1);

    const history = await online().getHistory('handoff-model');
    expect(history.body).toMatchObject({ escalation_reason: 'model', handoff_summary: body.handoff_summary });
    const answer = history.body.messages.at(-1);
    expect(answer).toMatchObject({ role: 'assistant', escalated: true, escalation_reason: 'model', handoff_summary: body.handoff_summary });
    // The call and its result are kept with the turn, as every tool call is.
    expect(history.body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(JSON.stringify(history.body.messages)).not.toContain(CARD.replaceAll(' ', ''));

    const listed = await online().request('GET', '/api/v1/chat/sessions?escalation_reason=model');
    expect(listed.status).toBe(200);
    expect(listed.body.sessions.find((s: any) => s.session_id === 'handoff-model')).toMatchObject({
      escalated: true,
      escalation_reason: 'model',
      handoff_summary: body.handoff_summary,
    });
    const waiting = await online().request('GET', '/api/v1/chat/sessions?waiting=true');
    expect(waiting.body.sessions.map((s: any) => s.session_id)).toContain('handoff-model');
    expect(await metric(online(), 'chat_answers_total', { escalation_reason: 'model' })).toBe(before + 1);
  });

  it('gives the shop’s hand-over sentence when the model called the tool without a word, also in the stream’s done event', async () => {
    stub().enqueueChat({ toolCalls: [{ id: 'call_silent', name: 'hand_off_to_person', arguments: { summary: 'Wants to change the delivery address of an order in transit.' } }] });
    const streamed = await postStream(`${online().baseURL}/api/v1/chat/stream`, { message: 'Can you send my parcel to my office instead?', session_id: 'handoff-silent' });
    const done = streamed.events.find((e) => e.event === 'done')!.data;
    expect(done).toMatchObject({ escalated: true, escalation_reason: 'model', response: HUMAN_HANDOFF_OFFER });
    // What streamed adds up to the answer.
    const pieces = streamed.events.filter((e) => e.event === 'token').map((e) => e.data.delta).join('');
    expect(pieces).toBe(HUMAN_HANDOFF_OFFER);
  });

  it('answers as before when the model does not call it: not escalated, no reason', async () => {
    stub().enqueueChat({ content: 'Refunds take five to seven days.' });
    const { body } = await online().postChat({ message: 'How long does a refund take?' });
    expect(body).toMatchObject({ escalated: false, escalation_reason: null });
    expect(body.handoff_summary).toBeUndefined();
  });
});

describe('conversation acts, before search', () => {
  it('answers small talk in the shop’s words, unsearched and with no model call, as a normal turn', async () => {
    const { body } = await online().postChat({ message: 'Thanks so much!', session_id: 'acts-thanks' });
    expect(body).toMatchObject({ escalated: false, escalation_reason: null, sources: [], confidence: 1 });
    expect(body.response).not.toBe('');
    expect(stub().chatRequests()).toHaveLength(0);
    expect(stub().embeddingRequests()).toHaveLength(0);
    const history = await online().getHistory('acts-thanks');
    expect(history.body.messages).toMatchObject([{ role: 'user', content: 'Thanks so much!' }, { role: 'assistant', content: body.response, act: 'thanks' }]);
    expect(history.body.messages[1].retrieval).toBeUndefined();
  });

  it('answers a German greeting in German offline, without changing a language the conversation keeps', async () => {
    const first = await offline().postChat({ message: 'Guten Morgen!', session_id: 'acts-morgen' });
    expect(first.body).toMatchObject({ language: 'de', escalated: false, sources: [] });
    // A conversation that keeps English is not flipped by a short German word.
    await offline().postChat({ message: 'How long does delivery to Norway take?', session_id: 'acts-kept' });
    const thanks = await offline().postChat({ message: 'danke', session_id: 'acts-kept' });
    expect(thanks.body).toMatchObject({ language: 'en', escalated: false });
  });

  it('hands a customer who asks for a person over at once, offline and with a model, as customer_asked, into the waiting queue', async () => {
    for (const service of [offline(), online()]) {
      const { body } = await service.postChat({ message: 'Can I talk to a human please?', session_id: 'acts-person' });
      // Told that it is done, not that an answer was uncertain.
      expect(body).toMatchObject({ escalated: true, escalation_reason: 'customer_asked', response: PERSON_HANDOFF, sources: [] });
      const waiting = await service.request('GET', '/api/v1/chat/sessions?waiting=true&escalation_reason=customer_asked');
      expect(waiting.body.sessions.map((s: any) => s.session_id)).toEqual(['acts-person']);
    }
    expect(stub().chatRequests()).toHaveLength(0);
  });
});

describe('every escalation says why', () => {
  it('refuses an unknown escalation_reason filter with a 400', async () => {
    const refused = await offline().request('GET', '/api/v1/chat/sessions?escalation_reason=because');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('escalation_reason must be one of') });
  });

  it('gives every escalated answer on every path a reason, and no reason to an answer that was not escalated', async () => {
    // Not in the help center (offline), the knowledge base down (with a model), and the paths above.
    const offTopic = await offline().postChat({ message: 'Who won the football world cup in 1954?', session_id: 'sweep-off-topic' });
    expect(offTopic.body).toMatchObject({ escalated: true, escalation_reason: 'not_in_help_center' });
    stub().setEmbeddingsFailure(500);
    stub().enqueueChat({ content: 'I cannot look that up right now.' });
    const down = await online().postChat({ message: 'What does express delivery cost?', session_id: 'sweep-knowledge-down' });
    stub().setEmbeddingsFailure(null);
    expect(down.body).toMatchObject({ escalated: true, escalation_reason: 'knowledge_unavailable', degraded: ['knowledge_unavailable'] });
    const answered = await offline().postChat({ message: 'How long do I have to return an item?', session_id: 'sweep-answered' });
    expect(answered.body).toMatchObject({ escalated: false, escalation_reason: null });

    for (const service of [offline(), online()]) {
      const rows = await service.db.query<{ escalated: boolean; escalation_reason: string | null }>(
        `select escalated, escalation_reason from chat_messages where role = 'assistant' and escalated is not null`,
      );
      expect(rows.length).toBeGreaterThan(3);
      expect(rows.filter((r) => r.escalated && !(ESCALATION_REASONS as readonly string[]).includes(r.escalation_reason ?? ''))).toEqual([]);
      expect(rows.filter((r) => !r.escalated && r.escalation_reason !== null)).toEqual([]);
      const sessions = await service.db.query<{ session_id: string }>(`select session_id from chat_sessions where escalated and escalation_reason is null`);
      expect(sessions).toEqual([]);
    }
    expect(await metric(offline(), 'chat_escalations_total', { reason: 'not_in_help_center' })).toBeGreaterThan(0);
  });
});
