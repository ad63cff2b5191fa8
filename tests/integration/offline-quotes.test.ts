import { OFFLINE_NOTICE } from '../../src/models/extractive-chat-model';
import { startTestService, type TestService } from '../support/test-service';

/**
 * The offline responder on the sample help center, through the real service (retrieval,
 * graph, escalation): it quotes the sentence that answers first, its quotes are in score
 * order, and a question the passages do not answer is escalated rather than answered
 * from a sentence about something else (issue 36, item 3).
 */
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, 60_000);
afterAll(async () => {
  await service?.close();
});

/** The quoted sentences of an offline answer, in the order given. */
const quotesOf = (response: string) => response.split('\n').filter((l) => l.startsWith('> ')).map((l) => l.slice(2));

describe('offline answers quote the sentence that answers', () => {
  it('"How long does a refund take?" quotes the refund timing sentence first', async () => {
    const { status, body } = await service.postChat({ message: 'How long does a refund take?' });
    expect(status).toBe(200);
    expect(body.response.startsWith(OFFLINE_NOTICE)).toBe(true);
    const [first] = quotesOf(body.response);
    expect(first).toMatch(/^We issue the refund within 5–7 business days/);
    expect(body.escalated).toBe(false);
  });

  it('"Do you ship to Australia?" quotes where the shop ships first, or is escalated', async () => {
    const { status, body } = await service.postChat({ message: 'Do you ship to Australia?' });
    expect(status).toBe(200);
    const [first] = quotesOf(body.response);
    if (!body.escalated) expect(first).toMatch(/ship(s)? (from our warehouse in Germany )?to|do not ship to/);
    else expect(first === undefined || /ship/.test(first)).toBe(true);
  });

  it('escalates, with the notice alone and no quote, when no sentence of the passages holds the telling words', async () => {
    const { status, body } = await service.postChat({ message: 'Can I pay with Bitcoin or Dogecoin?' });
    expect(status).toBe(200);
    expect(body.escalated).toBe(true);
    expect(quotesOf(body.response)).toEqual([]);
    expect(body.response.startsWith(OFFLINE_NOTICE)).toBe(true);
  });
});
