import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { HAND_OFF_TO_PERSON, handOffOf, type HandOff } from '../../src/agent/tools/hand-off-to-person';
import { defaultActReply } from '../../src/chat/conversation-acts';
import { groundedByTools, judgeTurn, keepsAnsweredArticle, STRONG_SUPPORT, toolFailedIn, type TurnFindings } from '../../src/chat/escalation';
import type { RetrievedDocument, StoredMessage } from '../../src/store/types';
import type { SentToolCall } from '../../src/connectors/guarded-tool';
import { shopFileSchema } from '../../src/shop/shop-file';
import { actReply } from '../../src/shop/shop-words';

/** A turn that found a well-covered answer and nothing else. */
const ANSWERED: TurnFindings = {
  customerAsked: false,
  handOff: null,
  toolFailed: false,
  groundedByTools: false,
  confidence: 0.8,
  threshold: 0.3,
  nothingAnswers: false,
  keepsAnsweredArticle: false,
  quoteSupport: 0.2,
  confidenceFromWords: true,
  ownWordsSupport: 0.3,
  knowledgeUnavailable: false,
};
const HAND_OFF: HandOff = { kind: 'hand_off', summary: 'Wants a person.', reason: null };

describe('the judge', () => {
  it('answers a covered question, and gives no reason', () => {
    expect(judgeTurn(ANSWERED)).toEqual({ escalated: false, reason: null });
  });

  it.each([
    ['customer_asked', { customerAsked: true, handOff: HAND_OFF, toolFailed: true, confidence: 0 }],
    ['model', { handOff: HAND_OFF, toolFailed: true, confidence: 0 }],
    ['tool_failed', { toolFailed: true, groundedByTools: true, confidence: 0 }],
    ['knowledge_unavailable', { knowledgeUnavailable: true, confidence: 0 }],
    ['not_in_help_center', { confidence: 0.29 }],
    ['not_in_help_center', { nothingAnswers: true }],
  ] as const)('escalates as %s, the stronger reason first', (reason, found) => {
    expect(judgeTurn({ ...ANSWERED, ...found })).toEqual({ escalated: true, reason });
  });

  it('does not judge an answer a tool grounded by the help center', () => {
    expect(judgeTurn({ ...ANSWERED, groundedByTools: true, confidence: 0, nothingAnswers: true, knowledgeUnavailable: true })).toEqual({ escalated: false, reason: null });
  });
});

describe('a strongly supported quote', () => {
  it('is answered although retrieval’s confidence, read from words, is low', () => {
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, quoteSupport: STRONG_SUPPORT })).toEqual({ escalated: false, reason: null });
  });

  it('does not overrule a low confidence read from meaning ("Do you engrave products?" holds its words in a sentence about returns)', () => {
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, quoteSupport: 0.9, confidenceFromWords: false })).toEqual({ escalated: true, reason: 'not_in_help_center' });
  });

  it('does not save a weakly supported one, nor a turn whose passages answer nothing', () => {
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, quoteSupport: STRONG_SUPPORT - 0.05 })).toEqual({ escalated: true, reason: 'not_in_help_center' });
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, quoteSupport: 0, nothingAnswers: true })).toEqual({ escalated: true, reason: 'not_in_help_center' });
  });
});

describe('a follow-up that keeps the article of the answer before it', () => {
  const article = (source: string) => ({ source, title: source, score: 0.5 });
  const stored = (role: StoredMessage['role'], more: Partial<StoredMessage> = {}): StoredMessage => ({
    id: `m${Math.random()}`,
    sessionId: 's',
    seq: 1,
    role,
    content: 'x',
    toolCalls: null,
    toolCallId: null,
    name: null,
    tokenCount: 1,
    confidence: null,
    escalated: null,
    escalationReason: null,
    metadata: {},
    createdAt: new Date(),
    ...more,
  });
  const answered = (sources: string[], escalated = false) => stored('assistant', { escalated, metadata: { sources: sources.map(article) } });
  const found = (source: string) => [{ source } as RetrievedDocument];

  it('is answered although retrieval’s confidence is low, when a sentence of the article holds its own words strongly ("und bei carbon?")', () => {
    const history = [stored('user'), answered(['shipping.md', 'returns.md'])];
    const keeps = keepsAnsweredArticle(history, found('shipping.md'));
    expect(keeps).toBe(true);
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, keepsAnsweredArticle: keeps, ownWordsSupport: STRONG_SUPPORT })).toEqual({ escalated: false, reason: null });
  });

  it('is not kept when the search found another article first, or the answer before was handed over, or was small talk', () => {
    expect(keepsAnsweredArticle([stored('user'), answered(['shipping.md', 'returns.md'])], found('returns.md'))).toBe(false);
    expect(keepsAnsweredArticle([stored('user'), answered(['shipping.md'], true)], found('shipping.md'))).toBe(false);
    expect(keepsAnsweredArticle([stored('user'), answered([])], found('shipping.md'))).toBe(false);
    expect(keepsAnsweredArticle([], found('shipping.md'))).toBe(false);
    expect(keepsAnsweredArticle([stored('user'), answered(['shipping.md'])], [])).toBe(false);
  });

  it('reads the latest answer: a person’s reply after it, citing nothing, ends the topic', () => {
    const history = [stored('user'), answered(['shipping.md']), stored('user'), stored('assistant', { metadata: { author: 'Anna' } })];
    expect(keepsAnsweredArticle(history, found('shipping.md'))).toBe(false);
  });

  it('is not carried by the article when its own words are weakly held there ("who won the world cup?" after a shipping question)', () => {
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, keepsAnsweredArticle: true, ownWordsSupport: 0.25 })).toEqual({ escalated: true, reason: 'not_in_help_center' });
    // Its own words' support counts only for a follow-up of the answered article.
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, keepsAnsweredArticle: false, ownWordsSupport: 0.9 })).toEqual({ escalated: true, reason: 'not_in_help_center' });
  });

  it('still hands over when no sentence of the passages answers', () => {
    expect(judgeTurn({ ...ANSWERED, confidence: 0.1, keepsAnsweredArticle: true, ownWordsSupport: 0.9, nothingAnswers: true })).toEqual({ escalated: true, reason: 'not_in_help_center' });
  });
});

describe("what the judge reads from the turn's tool traffic", () => {
  const call = (id: string, name: string) => new AIMessage({ content: '', tool_calls: [{ id, name, args: {} }] });
  const sent = (failed: boolean): SentToolCall => ({ kind: 'sent_tool_call', sent_arguments: {}, bound: [], model_arguments: {}, ...(failed ? { outcome: 'failed', failure: 'http_503' } : { outcome: 'answered' }) });
  const result = (id: string, name: string, artifact: unknown) => new ToolMessage({ content: 'x', tool_call_id: id, name, artifact });

  it('a refused request (4xx) is not a failed system', () => {
    const refused: SentToolCall = { kind: 'sent_tool_call', sent_arguments: {}, bound: [], model_arguments: {}, outcome: 'failed', failure: 'http_400' };
    expect(toolFailedIn([call('1', 'quote'), result('1', 'quote', refused)])).toBe(false);
  });

  it('a failed system counts only when no later call of the same tool succeeded', () => {
    const failedOnce = [call('1', 'quote'), result('1', 'quote', sent(true))];
    expect(toolFailedIn(failedOnce)).toBe(true);
    expect(toolFailedIn([...failedOnce, call('2', 'quote'), result('2', 'quote', sent(false))])).toBe(false);
    expect(toolFailedIn([...failedOnce, call('2', 'other'), result('2', 'other', sent(false))])).toBe(true);
  });

  it("the model's hand-off is found, and does not count as a tool that grounded the answer", () => {
    const turn = [call('h', HAND_OFF_TO_PERSON), result('h', HAND_OFF_TO_PERSON, HAND_OFF)];
    expect(handOffOf(turn)).toEqual(HAND_OFF);
    expect(groundedByTools(turn)).toBe(false);
    expect(groundedByTools([...turn, result('2', 'lookup_order', undefined)])).toBe(true);
  });
});

describe("the shop file's words for small talk and its agents' hand-off", () => {
  const parse = (extra: Record<string, unknown>) =>
    shopFileSchema.parse({ name: 'Pine & Pebble', agents: [{ key: 'help', description: 'd', instructions: 'i', hand_off: false }], ...extra });

  it('replies in the shop’s words per language, else in the built-in reply of that language, never in the default language’s', () => {
    const { words } = parse({ words: { acts: { greeting: 'Hello from Pine & Pebble!' }, de: { acts: { thanks: 'Gern, Ihr Pine & Pebble.' } } } });
    expect(actReply(words, 'en', 'greeting', 'en')).toBe('Hello from Pine & Pebble!');
    expect(actReply(words, 'en', 'thanks', 'de')).toBe('Gern, Ihr Pine & Pebble.');
    expect(actReply(words, 'en', 'greeting', 'de')).toBe(defaultActReply('greeting', 'de'));
    expect(actReply(words, 'en', 'goodbye', 'en')).toBe(defaultActReply('goodbye', 'en'));
  });

  it('refuses an unknown act and an empty reply, with their paths', () => {
    expect(() => parse({ words: { acts: { shrug: 'hm' } } })).toThrow(/shrug/);
    const empty = shopFileSchema.safeParse({ name: 'P', agents: [{ key: 'help', description: 'd', instructions: 'i' }], words: { de: { acts: { greeting: ' ' } } } });
    expect(empty.success).toBe(false);
    expect(JSON.stringify(empty.error?.issues)).toContain('"de","acts","greeting"');
  });

  it('keeps hand_off: false on the agent, and defaults it to true', () => {
    expect(parse({}).agents[0]!.hand_off).toBe(false);
    expect(shopFileSchema.parse({ name: 'P', agents: [{ key: 'help', description: 'd', instructions: 'i' }] }).agents[0]!.hand_off).toBe(true);
  });
});
