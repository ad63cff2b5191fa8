import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/observability/logger';
import { startLangfuseReceiver, type LangfuseReceiver } from '../support/langfuse-receiver';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { postStream } from '../support/sse';
import { openAIStubEnv, startTestService, TEST_AGENT_KEY, type TestService } from '../support/test-service';

/**
 * A card number a customer types appears nowhere: not in the stored history (the
 * history endpoint and every row of every table), not in what the real ChatOpenAI
 * client sends to the model (the loopback stub, which echoes the question back),
 * not in the service's logs (at trace level), not in Langfuse's traces (the real
 * SDK against a loopback receiver, with LANGFUSE_CAPTURE_PERSONAL_DATA on, so
 * texts are sent). A Luhn-invalid 16-digit number is kept as typed. Every way in:
 * POST /chat, /chat/stream, a message queued while a person holds the conversation
 * (with an Idempotency-Key, retried), and a feedback comment. And card numbers as
 * people paste them (no-break spaces, full-width digits, zero-width spaces, glued to
 * letters, line breaks: issue 30) are masked the same way, everywhere.
 */
const CARDS = ['4242 4242 4242 4242', '4000-0566-5566-5556', '5555555555554444', '378282246310005'];
const INVALID = '4242 4242 4242 4241';
/** As copied from a banking page or a PDF, or typed on a CJK keyboard. */
const PASTED = {
  noBreakSpace: '6011\u00a00009\u00a09013\u00a09424',
  fullWidth: '３５３０１１１３３３３０００００',
  zeroWidth: '5200\u200b8282\u200b8282\u200b8210',
  glued: 'Visa4000002500003155',
  lineBreaks: '2223\n0031\n2200\n3222',
  // Digits NFKC leaves as they are (issue 35): Eastern Arabic-Indic and Devanagari.
  easternArabic: '۴۰۰۰ ۰۰۲۷ ۶۰۰۰ ۳۱۸۴',
  devanagari: '६०११ १११११११ ११११७',
};
const PASTED_MESSAGE = `Pasted: ${Object.values(PASTED).join(', ')} for order ZX-14440.`;
const PASTED_MASKED =
  'Pasted: [card ending 9424], [card ending 0000], [card ending 8210], Visa[card ending 3155], [card ending 3222], [card ending 3184], [card ending 1117] for order ZX-14440.';

/** Digit zeros of the scripts the cards are typed in here (ASCII, Arabic-Indic, Eastern Arabic-Indic, Devanagari); full-width folds by NFKC. */
const DIGIT_ZEROS = [0x30, 0x660, 0x6f0, 0x966];
/** A text's digits of those scripts as ASCII (written here, independently of the module under test). */
const asciiDigits = (text: string) =>
  [...text].map((ch) => {
    const zero = DIGIT_ZEROS.find((z) => ch.codePointAt(0)! >= z && ch.codePointAt(0)! <= z + 9);
    return zero === undefined ? ch : String(ch.codePointAt(0)! - zero);
  }).join('');
/** One digit in any of those scripts, as a bracket expression. */
const digitInAnyScript = (digit: string) => `[${DIGIT_ZEROS.map((zero) => String.fromCodePoint(zero + Number(digit))).join('')}]`;

/**
 * The card's digits with up to six other characters between each two (separators, zero-width
 * characters, JSON escapes such as \n), each digit in any script, as a regular expression for
 * JavaScript and Postgres; texts are folded by NFKC first, so full-width digits are found too.
 */
const anyGrouping = (card: string) => new RegExp(asciiDigits(card.normalize('NFKC')).replace(/\D/g, '').split('').map(digitInAnyScript).join('[^0-9]{0,6}'));
const ALL_CARDS = [...CARDS, ...Object.values(PASTED)];
const cardsIn = (text: string) => ALL_CARDS.filter((card) => anyGrouping(card).test(text.normalize('NFKC')));

const rawLogLines: string[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    rawLogLines.push(...String(chunk).split('\n').filter((l) => l.trim() !== ''));
    done();
  },
});

let stub: OpenAIStub;
let receiver: LangfuseReceiver;
let service: TestService;

beforeAll(async () => {
  stub = await startOpenAIStub();
  receiver = await startLangfuseReceiver();
  service = await startTestService({
    env: {
      ...openAIStubEnv(stub.baseURL),
      LANGFUSE_PUBLIC_KEY: 'pk-lf-test',
      LANGFUSE_SECRET_KEY: 'sk-lf-test',
      LANGFUSE_BASE_URL: receiver.baseUrl,
      LANGFUSE_CAPTURE_PERSONAL_DATA: 'true',
    },
    logger: createLogger('trace', logSink),
  });
}, 180_000);
afterAll(async () => {
  await service?.close();
  await receiver?.close();
  await stub?.close();
});

const agent = { authorization: `Bearer ${TEST_AGENT_KEY}` };

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any, replayed: response.headers.get('idempotent-replayed') };
}

describe('a card number typed by a customer (REDACT default: card)', () => {
  const sessionId = 'redact-1';
  let historyText = '';

  beforeAll(async () => {
    // POST /chat: a card, an order number, a phone number and a Luhn-invalid 16-digit number.
    const first = await service.postChat({
      session_id: sessionId,
      message: `My card ${CARDS[0]} was charged twice for order ZX-14440. Call +1 555 123 4567. Not a card: ${INVALID}`,
    });
    expect(first.status).toBe(200);
    expect(first.body.redacted).toEqual({ card: 1 });
    expect(first.body.response).toContain('[card ending 4242]');
    expect(first.body.response).toContain(INVALID);
    const token = service.sessionToken(sessionId)!;

    // POST /chat again: the pasted forms, each masked where it was typed.
    const pasted = await post('/api/v1/chat', { session_id: sessionId, message: PASTED_MESSAGE }, { 'x-session-token': token });
    expect(pasted.status).toBe(200);
    expect(pasted.body.redacted).toEqual({ card: 7 });
    expect(pasted.body.response).toContain(PASTED_MASKED);

    // POST /chat/stream: the same, on the stream's `done` event.
    const streamed = await postStream(`${service.baseURL}/api/v1/chat/stream`, { session_id: sessionId, message: `Or use ${CARDS[1]} please` }, {
      headers: { 'x-session-token': token },
    });
    const done = streamed.events.find((e) => e.event === 'done')!;
    expect((done.data as any).redacted).toEqual({ card: 1 });
    expect(cardsIn(JSON.stringify(streamed.events))).toEqual([]);

    // A feedback comment.
    const rated = await post('/api/v1/chat/feedback', { session_id: sessionId, message_id: first.body.message_id, rating: 'down', comment: `Refund to ${CARDS[2]}` }, {
      'x-session-token': token,
    });
    expect(rated.status).toBe(200);
    expect(rated.body.comment).toBe('Refund to [card ending 4444]');

    // A message queued while a person holds the conversation, with an Idempotency-Key, and its retry.
    expect((await post(`/api/v1/conversations/${sessionId}/takeover`, { agent_name: 'Maria' }, agent)).status).toBe(200);
    const held = { 'x-session-token': token, 'idempotency-key': 'redact-held-1' };
    const queued = await post('/api/v1/chat', { session_id: sessionId, message: `Amex ${CARDS[3]}` }, held);
    expect(queued).toMatchObject({ status: 202, body: { handler: 'human', redacted: { card: 1 } }, replayed: null });
    const retried = await post('/api/v1/chat', { session_id: sessionId, message: `Amex ${CARDS[3]}` }, held);
    expect(retried).toMatchObject({ status: 202, body: queued.body, replayed: 'true' });

    const history = await service.getHistory(sessionId);
    expect(history.status).toBe(200);
    historyText = JSON.stringify(history.body);
    await service.deps.tracing.flush();
  }, 180_000);

  it('is masked in the stored history, with its last four digits, and the customer messages say what was masked', async () => {
    expect(cardsIn(historyText)).toEqual([]);
    const history = JSON.parse(historyText);
    const customer = history.messages.filter((m: any) => m.role === 'user');
    expect(customer.map((m: any) => m.content)).toEqual([
      `My card [card ending 4242] was charged twice for order ZX-14440. Call +1 555 123 4567. Not a card: ${INVALID}`,
      PASTED_MASKED,
      'Or use [card ending 5556] please',
      'Amex [card ending 0005]',
    ]);
    expect(customer.map((m: any) => m.redacted)).toEqual([{ card: 1 }, { card: 7 }, { card: 1 }, { card: 1 }]);
    const rated = history.messages.find((m: any) => m.feedback);
    expect(rated.feedback.comment).toBe('Refund to [card ending 4444]');
  });

  it('is in no row of any table (messages, sessions, feedback, idempotency records, …)', async () => {
    const tables = await service.db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1",
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['chat_messages', 'chat_sessions', 'answer_feedback', 'idempotency_keys']));
    for (const { table_name } of tables) {
      for (const card of ALL_CARDS) {
        const [row] = await service.db.query<{ n: number }>(`select count(*)::int as n from "${table_name}" t where normalize(t::text, NFKC) ~ $1`, [
          anyGrouping(card).source,
        ]);
        expect({ table_name, card, rows: row!.n }).toEqual({ table_name, card, rows: 0 });
      }
    }
    // The Luhn-invalid number is stored as typed.
    const [kept] = await service.db.query<{ n: number }>('select count(*)::int as n from chat_messages where content like $1', [`%${INVALID}%`]);
    expect(kept!.n).toBeGreaterThan(0);
  });

  it('never reaches the model: the real ChatOpenAI client sent only the masks (and the invalid number as typed)', () => {
    const sent = JSON.stringify(stub.chatRequests().map((r) => r.body));
    expect(stub.chatRequests().length).toBeGreaterThan(0);
    expect(cardsIn(sent)).toEqual([]);
    expect(sent).toContain('[card ending 4242]');
    expect(sent).toContain(JSON.stringify(PASTED_MASKED).slice(1, -1));
    expect(sent).toContain(INVALID);
  });

  it('is in no log line, at trace level', () => {
    expect(rawLogLines.length).toBeGreaterThan(0);
    expect(cardsIn(rawLogLines.join('\n'))).toEqual([]);
  });

  it('is in no Langfuse trace or score, though texts are captured', () => {
    const traced = JSON.stringify({ spans: receiver.spans, scores: receiver.scores });
    expect(receiver.spans.length).toBeGreaterThan(0);
    expect(traced).toContain('[card ending 4242]');
    expect(traced).toContain('Visa[card ending 3155]');
    expect(cardsIn(traced)).toEqual([]);
  });
});

describe('REDACT settings', () => {
  it('REDACT=card,iban masks IBANs too; REDACT= (empty) keeps card numbers as typed; an unknown detector stops the start', async () => {
    expect(loadConfig({ REDACT: '' }).redaction.detectors).toEqual([]);
    expect(loadConfig({}).redaction.detectors).toEqual(['card']);
    expect(loadConfig({ REDACT: 'card, IBAN' }).redaction.detectors).toEqual(['card', 'iban']);
    expect(() => loadConfig({ REDACT: 'card,ssn' })).toThrow(/REDACT/);

    const withIban = await startTestService({ env: { REDACT: 'card,iban' } });
    try {
      const answer = await withIban.postChat({ message: 'Refund to DE89 3704 0044 0532 0130 00 please, not card 4242424242424242' });
      expect(answer.status).toBe(200);
      expect(answer.body.redacted).toEqual({ iban: 1, card: 1 });
      const history = await withIban.getHistory(answer.body.session_id);
      expect(history.body.messages[0].content).toBe('Refund to [IBAN ending 3000] please, not card [card ending 4242]');
    } finally {
      await withIban.close();
    }

    const off = await startTestService({ env: { REDACT: '' } });
    try {
      const answer = await off.postChat({ message: 'My card is 4242 4242 4242 4242' });
      expect(answer.status).toBe(200);
      expect(answer.body.redacted).toBeUndefined();
      const history = await off.getHistory(answer.body.session_id);
      expect(history.body.messages[0].content).toBe('My card is 4242 4242 4242 4242');
    } finally {
      await off.close();
    }
  }, 90_000);
});
