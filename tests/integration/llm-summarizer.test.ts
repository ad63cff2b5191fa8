import { ChatOpenAI } from '@langchain/openai';
import { createSupportTools } from '../../src/agent/tools';
import type { OrderProofs } from '../../src/identity/order-proofs';
import type { Retriever } from '../../src/knowledge/retriever';
import type { CommerceStore } from '../../src/store/commerce-store';
import type { ContextMessage } from '../../src/memory/context';
import { LlmSummarizer, SummarizerError } from '../../src/memory/summarizer';
import { TokenCounter } from '../../src/memory/tokens';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';

/** The real ChatOpenAI client against an OpenAI-compatible server on loopback. */
const TIMEOUT_MS = 400;

const counter = new TokenCounter('gpt-4o-mini');
let stub: OpenAIStub;
let summarizer: LlmSummarizer;

beforeAll(async () => {
  stub = await startOpenAIStub();
  const chatModel = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test', maxRetries: 0, configuration: { baseURL: stub.baseURL } });
  summarizer = new LlmSummarizer({ chatModel, modelName: 'gpt-4o-mini', tokenCounter: counter, timeoutMs: TIMEOUT_MS });
});
afterAll(async () => {
  await stub.close();
});
beforeEach(() => {
  stub.reset();
});

function message(role: ContextMessage['role'], content: string, extra: Partial<ContextMessage> = {}): ContextMessage {
  return { role, content, tokens: counter.countMessage({ content, ...extra }), ...extra };
}

const TOOL_OUTPUT = JSON.stringify({ order_id: 'ZX-1', carrier: 'PostNord', tracking_events: [{ location: 'Hub Q-7734', status: 'held' }] });
const messages: ContextMessage[] = [
  message('user', 'My order number is ZX-1. Please contact me by SMS only.'),
  message('assistant', '', { tool_calls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'ZX-1' } }] }),
  message('tool', TOOL_OUTPUT, { tool_call_id: 'call_1', name: 'lookup_order' }),
  message('assistant', 'Order ZX-1 shipped with PostNord.'),
];
const previousSummary = '- Customer: My name is Ana Silva.';

type SentMessage = { role: string; content: string };
const sentMessages = () => stub.chatRequests().at(-1)!.body.messages as SentMessage[];

describe('the LLM summarizer, with the real OpenAI client', () => {
  it('sends the keep/drop rules and the budget, then the previous summary and a transcript without tool outputs', async () => {
    stub.enqueueChat({ content: '  - Ana Silva, order ZX-1, SMS only; shipped with PostNord.\n' });
    const summary = await summarizer.summarize({ previousSummary, messages, tokenBudget: 400 });
    expect(summary).toBe('- Ana Silva, order ZX-1, SMS only; shipped with PostNord.');
    expect(summarizer.model).toBe('gpt-4o-mini');

    expect(stub.chatRequests()).toHaveLength(1);
    const [system, user, ...rest] = sentMessages();
    expect(rest).toEqual([]);
    expect(system!.role).toBe('system');
    expect(system!.content).toMatch(/decisions and the reasons/);
    expect(system!.content).toMatch(/names, order numbers, addresses, cities, dates, amounts, contact preferences/);
    expect(system!.content).toMatch(/open questions and pending tasks/);
    expect(system!.content).toMatch(/tool outputs/);
    expect(system!.content).toMatch(/greetings, thanks, acknowledgements/);
    expect(system!.content).toContain('within 300 words (400 tokens)');

    expect(user!.role).toBe('user');
    expect(user!.content).toContain(`Previous summary:\n${previousSummary}`);
    expect(user!.content).toContain('Customer: My order number is ZX-1. Please contact me by SMS only.');
    expect(user!.content).toContain('Agent: [called lookup_order with {"order_id":"ZX-1"}]');
    expect(user!.content).toContain('[tool lookup_order returned data: omitted]');
    expect(user!.content).toContain('Agent: Order ZX-1 shipped with PostNord.');
    expect(user!.content).not.toContain('Hub Q-7734');
    expect(user!.content).not.toContain('tracking_events');
  });

  it('says there is no previous summary on the first one', async () => {
    stub.enqueueChat({ content: '- Order ZX-1, SMS only.' });
    await summarizer.summarize({ previousSummary: null, messages, tokenBudget: 400 });
    expect(sentMessages()[1]!.content).toContain('Previous summary:\n(none)');
  });

  it('caps a reply longer than the budget at a line boundary', async () => {
    const replyLines = Array.from({ length: 60 }, (_, i) => `- Fact number ${i + 1}: the customer said something worth keeping.`);
    stub.enqueueChat({ content: replyLines.join('\n') });
    const summary = await summarizer.summarize({ previousSummary, messages, tokenBudget: 100 });

    expect(counter.countText(summary)).toBeLessThanOrEqual(100);
    const kept = summary.split('\n');
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(replyLines.slice(0, kept.length));
  });

  it('rejects when the model answers with an error, after one attempt', async () => {
    stub.enqueueChat({ status: 500, error: 'upstream exploded' });
    await expect(summarizer.summarize({ previousSummary, messages, tokenBudget: 400 })).rejects.toMatchObject({ reason: 'model_error' });
    expect(stub.chatRequests()).toHaveLength(1); // maxRetries 0: no second attempt
  });

  it('rejects when the model answers with nothing', async () => {
    stub.enqueueChat({ content: '   ' });
    await expect(summarizer.summarize({ previousSummary, messages, tokenBudget: 400 })).rejects.toBeInstanceOf(SummarizerError);
  });

  it('rejects when the model does not answer within its own deadline, and hangs up', async () => {
    stub.enqueueChat({ delayMs: TIMEOUT_MS * 10, content: 'too late' });
    await expect(summarizer.summarize({ previousSummary, messages, tokenBudget: 400 })).rejects.toMatchObject({ reason: 'timeout' });
    await waitFor(() => stub.chatRequests()[0]?.aborted === true);
  });

  it('rejects when the caller gives up first', async () => {
    stub.enqueueChat({ delayMs: TIMEOUT_MS * 10, content: 'nobody is listening' });
    const caller = new AbortController();
    const summary = summarizer.summarize({ previousSummary, messages, tokenBudget: 400, signal: caller.signal });
    await waitFor(() => stub.chatRequests().length === 1);
    caller.abort();
    await expect(summary).rejects.toThrow();
    await waitFor(() => stub.chatRequests()[0]!.aborted);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the LLM summarizer after the answer's prompt (answerPrefix)", () => {
  const system = 'You are the support agent of Northwind Home.';
  const tool = createSupportTools({ commerce: {} as CommerceStore, retriever: {} as Retriever, orderProofs: {} as OrderProofs }).find((t) => t.name === 'lookup_order')!;

  it('asks after the same tools (never called), system prompt, earlier summary pair and messages as the answer sends, the request last', async () => {
    const chatModel = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test', maxRetries: 0, configuration: { baseURL: stub.baseURL } });
    const shared = new LlmSummarizer({ chatModel, modelName: 'gpt-4o-mini', tokenCounter: counter, timeoutMs: TIMEOUT_MS, sharesAnswerModel: true });
    stub.enqueueChat({ content: '- Ana Silva, order ZX-1, SMS only.' });
    const calls: unknown[] = [];
    const summary = await shared.summarize({
      previousSummary,
      messages,
      tokenBudget: 400,
      answerPrefix: { system, tools: [tool] },
      promptCacheKey: 'conv-abc',
      onModelCall: (call) => calls.push(call),
    });
    expect(summary).toBe('- Ana Silva, order ZX-1, SMS only.');
    const body = stub.chatRequests().at(-1)!.body;
    expect(body.tool_choice).toBe('none');
    expect(body.tools.map((t: any) => t.function.name)).toEqual(['lookup_order']);
    expect(body.prompt_cache_key).toBe('conv-abc');
    const sent = body.messages as Array<{ role: string; content: string; tool_call_id?: string }>;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[0]!.content).toBe(system);
    expect(sent[1]!.content).toContain(previousSummary);
    expect(sent[5]!.tool_call_id).toBe('call_1');
    expect(sent.at(-1)!.content).toMatch(/^Stop answering the customer/);
    expect(sent.at(-1)!.content).toContain('within 300 words (400 tokens)');
    expect(calls).toHaveLength(1);
  });

  it('keeps its own short prompt when another model writes the summaries', async () => {
    stub.enqueueChat({ content: '- Order ZX-1.' });
    await summarizer.summarize({ previousSummary: null, messages, tokenBudget: 400, answerPrefix: { system, tools: [tool] } });
    const body = stub.chatRequests().at(-1)!.body;
    expect(body.tools).toBeUndefined();
    expect(body.messages[0].content).toMatch(/rolling summary/);
  });
});
