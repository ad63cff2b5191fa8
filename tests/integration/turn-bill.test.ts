/**
 * Every model call of a turn on the bill, through the real service and the real
 * ChatOpenAI client against the loopback stub: the rolling summary's and the query
 * rewrite's calls carry the conversation's prompt_cache_key, and their tokens and
 * cost are in the answer's usage (on their own and in the total) and stored with it.
 * And the operator's ceiling (MODEL_INPUT_MAX_TOKENS) counts the tool definitions
 * and this turn's tool results, not only the messages.
 */
import { promptCacheKeyFor } from '../../src/agent/nodes/generate-response';
import { createSupportTools } from '../../src/agent/tools';
import { estimateCost } from '../../src/chat/cost';
import type { OrderProofs } from '../../src/identity/order-proofs';
import type { Retriever } from '../../src/knowledge/retriever';
import { toolDefinitionTokens } from '../../src/memory/input-ceiling';
import { TokenCounter } from '../../src/memory/tokens';
import type { CommerceStore } from '../../src/store/commerce-store';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { openAIStubEnv, startTestService, type TestService } from '../support/test-service';

const PRICES = { 'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 } };
const ANSWER_USAGE = { prompt_tokens: 2000, completion_tokens: 100, cached_tokens: 1024 };
const SUMMARY_USAGE = { prompt_tokens: 800, completion_tokens: 50, cached_tokens: 0 };
const REWRITE_USAGE = { prompt_tokens: 300, completion_tokens: 10, cached_tokens: 0 };
const CEILING = 4000;

let stub: OpenAIStub;
let billed: TestService;
let ceiling: TestService;

type Sent = { role: string; content: string };
const systemOf = (body: any) => String((body.messages as Sent[])[0]?.content ?? '');
// The summary is asked for last, after the answer's own prompt (the system prompt and the history).
const isSummary = (body: any) => String((body.messages as Sent[]).at(-1)?.content ?? '').includes('rolling summary');
const isRewrite = (body: any) => systemOf(body).includes('standalone search query');

beforeAll(async () => {
  stub = await startOpenAIStub();
  [billed, ceiling] = await Promise.all([
    startTestService({ env: openAIStubEnv(stub.baseURL, { MODEL_PRICES: JSON.stringify(PRICES), QUERY_REWRITE: 'model' }) }),
    startTestService({ env: openAIStubEnv(stub.baseURL, { MODEL_INPUT_MAX_TOKENS: String(CEILING) }) }),
  ]);
}, 60_000);
afterAll(async () => {
  await billed?.close();
  await ceiling?.close();
  await stub?.close();
});
beforeEach(() => stub.reset());

describe("the summary's and the rewrite's calls on the answer's bill", () => {
  it('adds their tokens and cost to the usage (each purpose on its own and in the total), stores it, and sends them the cache key', async () => {
    stub.setDefaultChat((body) => {
      if (isSummary(body)) return { content: '- Customer: asked how returns work.', usage: SUMMARY_USAGE };
      if (isRewrite(body)) return { content: 'return shipping label', usage: REWRITE_USAGE };
      return { content: 'You can return it within 30 days.', usage: ANSWER_USAGE };
    });
    const session = 'bill-every-call';
    // Summarize once two turns are stored, keeping the last one verbatim.
    const memory_strategy = { mode: 'summarize', context_limit: 2, keep_last_n_turns: 1 };
    for (const message of ['How do returns work?', 'Do I need the original box for a return?']) {
      expect((await billed.postChat({ message, session_id: session, memory_strategy })).status).toBe(200);
    }
    const before = stub.chatRequests().length;
    const third = await billed.postChat({ message: 'And how do I print it?', session_id: session, memory_strategy });
    expect(third.status).toBe(200);

    const calls = stub.chatRequests().slice(before);
    expect(calls.filter((c) => isSummary(c.body))).toHaveLength(1);
    expect(calls.filter((c) => isRewrite(c.body))).toHaveLength(1);
    expect(third.body.memory.summarized).toBe(true);
    // The summary is asked for after the head of the answer's own prompt (the same tool
    // definitions, never called, and system prompt, then the first turn as the answer was sent it),
    // so the provider serves that prefix from its cache.
    const summaryCall = calls.find((c) => isSummary(c.body))!.body;
    const previousAnswer = stub.chatRequests()[before - 1]!.body;
    expect(summaryCall.tool_choice).toBe('none');
    expect(summaryCall.tools).toEqual(previousAnswer.tools);
    expect(summaryCall.messages.slice(0, 3)).toEqual(previousAnswer.messages.slice(0, 3));
    expect(summaryCall.messages[1].content).toBe('How do returns work?');
    // One stable key per conversation, on every call of the turn.
    expect(calls.map((c) => c.body.prompt_cache_key)).toEqual(calls.map(() => promptCacheKeyFor(session)));

    const total = (k: 'prompt_tokens' | 'completion_tokens' | 'cached_tokens') => ANSWER_USAGE[k] + SUMMARY_USAGE[k] + REWRITE_USAGE[k];
    expect(third.body.usage).toMatchObject({
      prompt_tokens: total('prompt_tokens'),
      completion_tokens: total('completion_tokens'),
      cached_tokens: total('cached_tokens'),
      total_tokens: total('prompt_tokens') + total('completion_tokens'),
    });
    const tokens = (u: typeof ANSWER_USAGE) => ({ ...u, total_tokens: u.prompt_tokens + u.completion_tokens });
    const cost = (u: typeof ANSWER_USAGE) => estimateCost(PRICES, 'gpt-4o-mini', tokens(u))!;
    expect(third.body.usage.by_purpose).toEqual({
      answer: { ...tokens(ANSWER_USAGE), calls: 1, cost: cost(ANSWER_USAGE) },
      summary: { ...tokens(SUMMARY_USAGE), calls: 1, cost: cost(SUMMARY_USAGE) },
      rewrite: { ...tokens(REWRITE_USAGE), calls: 1, cost: cost(REWRITE_USAGE) },
    });
    expect(third.body.cost).toBeCloseTo(cost(ANSWER_USAGE) + cost(SUMMARY_USAGE) + cost(REWRITE_USAGE), 7);

    // Stored with the answer: the history shows it, and the conversation's totals count it.
    const history = await billed.getHistory(session);
    const last = history.body.messages.filter((m: any) => m.role === 'assistant').at(-1);
    expect(last.usage).toEqual(third.body.usage);
    expect(last.cost).toBe(third.body.cost);

    // The metrics count each call once, under its purpose (the answer's not doubled by the total).
    const metrics = await (await fetch(`${billed.baseURL}/metrics`)).text();
    const prompt = (purpose: string) => Number(new RegExp(`llm_tokens_total\\{model="gpt-4o-mini",kind="prompt",purpose="${purpose}"\\} (\\d+)`).exec(metrics)?.[1]);
    expect(prompt('summary')).toBe(SUMMARY_USAGE.prompt_tokens);
    expect(prompt('answer')).toBe(3 * ANSWER_USAGE.prompt_tokens);
  });

  it('reports only the answer when no other call was made', async () => {
    stub.setDefaultChat({ content: 'Returns are free.', usage: ANSWER_USAGE });
    const answer = await billed.postChat({ message: 'How do returns work?' });
    expect(Object.keys(answer.body.usage.by_purpose)).toEqual(['answer']);
    expect(answer.body.usage.prompt_tokens).toBe(ANSWER_USAGE.prompt_tokens);
  });
});

describe('the ceiling (MODEL_INPUT_MAX_TOKENS) counts tool definitions and tool results', () => {
  it('leaves out older turns when a tool round would not fit beside them, and reports everything sent', async () => {
    const session = 'ceiling-tools';
    const long = (label: string) => `${label} `.padEnd(1600, 'lorem ipsum dolor sit amet ');
    // Stored history of several ~400-token turns: more than the ceiling leaves room for.
    stub.setDefaultChat((body) => ({ content: long(`answer to ${(body.messages as Sent[]).at(-1)!.content.slice(0, 12)}`) }));
    for (let turn = 1; turn <= 8; turn++) {
      expect((await ceiling.postChat({ message: long(`question ${turn}`).slice(0, 1600), session_id: session })).status).toBe(200);
    }

    // This turn the model searches the help center, then answers.
    stub.enqueueChat(
      { toolCalls: [{ id: 'call_s', name: 'search_knowledge_base', arguments: { query: 'return a damaged kettle' } }] },
      { content: 'Here is how to return it.' },
    );
    const before = stub.chatRequests().length;
    const { status, body } = await ceiling.postChat({ message: 'How do I return a damaged kettle?', session_id: session });
    expect(status).toBe(200);
    const [first, second] = stub.chatRequests().slice(before).map((c) => c.body.messages as Sent[]);
    const userTurns = (messages: Sent[]) => messages.filter((m) => m.role === 'user').length;
    // The search result came back to the model, and older turns made room for it.
    expect(second!.some((m) => m.role === 'tool')).toBe(true);
    expect(userTurns(second!)).toBeLessThan(userTurns(first!));

    const counter = new TokenCounter('gpt-4o-mini');
    const tools = createSupportTools({ commerce: {} as CommerceStore, retriever: {} as Retriever, orderProofs: {} as OrderProofs }).filter((t) =>
      ['search_knowledge_base', 'lookup_order', 'get_user_profile'].includes(t.name),
    );
    const toolTokens = toolDefinitionTokens(
      tools.filter((t) => (stub.chatRequests()[before]!.body.tools as any[]).some((d) => d.function.name === t.name)),
      (text) => counter.countMessage({ content: text }),
    );
    expect(toolTokens).toBeGreaterThan(100);
    const report = body.memory.input_ceiling;
    expect(report.max_tokens).toBe(CEILING);
    expect(report.dropped_turns).toBeGreaterThan(0);
    // Everything counted: at most the ceiling, and beyond the strategy's count by at least the tool definitions.
    expect(report.input_tokens).toBeLessThanOrEqual(CEILING);
    expect(report.input_tokens).toBeGreaterThanOrEqual(body.memory.tokens_after + toolTokens);
  });
});
