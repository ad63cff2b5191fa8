/**
 * Prompt caching over HTTP: the real service and the real ChatOpenAI client against
 * the loopback stub, which simulates OpenAI's prefix cache (tests/support/prefix-cache.ts).
 *
 * - usage.cached_tokens in /chat, the stream's `done`, the history and the metrics is
 *   exactly what the model server reported; the prompt_cache_key is sent;
 * - the estimated cost appears with MODEL_PRICES, and not without;
 * - 30-turn conversations that change topic every turn (so the retrieved passages
 *   change every turn) get most of their prompt served from the cache with the
 *   default strategy, compact and summarize. The measured shares are written to
 *   test-artifacts/prompt-cache-http.json (and asserted against the targets).
 */
import fs from 'node:fs';
import path from 'node:path';
import { promptCacheKeyFor } from '../../src/agent/nodes/generate-response';
import { startOpenAIStub, type OpenAIStub } from '../support/openai-stub';
import { postStream } from '../support/sse';
import { openAIStubEnv, REPO_ROOT, startTestService, type TestService } from '../support/test-service';

const PRICES = { 'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 } };
const TURNS = 30;
const COUNTED_FROM = 5;

let stub: OpenAIStub;
let priced: TestService;
let unpriced: TestService;

beforeAll(async () => {
  stub = await startOpenAIStub();
  // Three passages a turn, as in `npm run eval:memory`'s prompt-cache replay.
  priced = await startTestService({ env: openAIStubEnv(stub.baseURL, { MODEL_PRICES: JSON.stringify(PRICES), RETRIEVAL_TOP_K: '3' }) });
  unpriced = await startTestService({ env: openAIStubEnv(stub.baseURL) });
});
afterAll(async () => {
  await priced?.close();
  await unpriced?.close();
  await stub?.close();
});
beforeEach(() => stub.reset());

/** The usage the stub reported for the answer's model call(s) since `from`. */
function reportedSince(from: number) {
  const calls = stub.chatRequests().slice(from).filter((r) => r.usage);
  return {
    prompt_tokens: calls.reduce((sum, r) => sum + r.usage!.prompt_tokens, 0),
    cached_tokens: calls.reduce((sum, r) => sum + r.usage!.prompt_tokens_details.cached_tokens, 0),
  };
}

/** A support answer of realistic length (about 190 tokens at the stub's 4 characters a token). */
function answerFor(question: string): string {
  return (
    `Thanks for asking about ${question.toLowerCase().replace(/\?$/, '')}. ` +
    'According to the help center, the rules are set out in the article I quoted: please check the conditions that apply to your country, ' +
    'keep your order number at hand and contact us again if anything is unclear. The article also explains the deadlines that apply, ' +
    'which documents you need and how long each step usually takes, so you know what to expect before you start. ' +
    'If your case is not covered there, I can connect you with a member of our support team. I am happy to help with anything else about your order.'
  );
}

const TOPICS = [
  'returning a kettle',
  'shipping costs to Austria',
  'paying with Klarna',
  'warranty claims for an air fryer',
  'changing my delivery address',
  'VAT invoices for a company',
  'deleting my account',
  'tracking a parcel',
  'a refund to my credit card',
  'cancelling an order',
];

describe('usage.cached_tokens, the prompt cache key and the cost', () => {
  it('reports exactly the cached tokens the model server reported, in /chat, the history, the metrics and the stream, and sends a stable cache key', async () => {
    stub.setDefaultChat((body) => ({ content: answerFor(String(body.messages.at(-1)?.content ?? '')) }));
    const session = 'cache-report';
    const answers: any[] = [];
    for (let turn = 0; turn < 8; turn++) {
      const before = stub.chatRequests().length;
      const { status, body } = await priced.postChat({ message: `Question ${turn + 1}: what about ${TOPICS[turn]}?`, session_id: session });
      expect(status).toBe(200);
      const reported = reportedSince(before);
      expect(body.usage.cached_tokens).toBe(reported.cached_tokens);
      expect(body.usage.prompt_tokens).toBe(reported.prompt_tokens);
      answers.push(body);
    }
    // The cache served later turns (their prompts share the instructions and the history so far).
    expect(answers.at(-1).usage.cached_tokens).toBeGreaterThanOrEqual(1024);
    // One key per conversation, a hash of the session id (never the id itself).
    const keys = new Set(stub.chatRequests().map((r) => r.body.prompt_cache_key));
    expect([...keys]).toEqual([promptCacheKeyFor(session)]);
    expect(promptCacheKeyFor(session)).not.toContain(session);

    // The history shows each answer's usage as reported, and the conversation's totals.
    const history = await priced.getHistory(session);
    const stored = history.body.messages.filter((m: any) => m.role === 'assistant');
    expect(stored.map((m: any) => m.usage.cached_tokens)).toEqual(answers.map((a) => a.usage.cached_tokens));
    expect(history.body.usage).toMatchObject({
      answers: 8,
      prompt_tokens: answers.reduce((sum, a) => sum + a.usage.prompt_tokens, 0),
      cached_tokens: answers.reduce((sum, a) => sum + a.usage.cached_tokens, 0),
    });

    // Metrics: kind="cached" beside prompt and completion.
    const metrics = await (await fetch(`${priced.baseURL}/metrics`)).text();
    const cached = /llm_tokens_total\{model="gpt-4o-mini",kind="cached",purpose="answer"\} (\d+)/.exec(metrics);
    expect(Number(cached?.[1])).toBe(answers.reduce((sum, a) => sum + a.usage.cached_tokens, 0));

    // The stream's done event carries the cached tokens of its model call.
    const before = stub.chatRequests().length;
    const streamed = await postStream(
      `${priced.baseURL}/api/v1/chat/stream`,
      { message: 'And what about gift cards?', session_id: session },
      { headers: { 'X-Session-Token': priced.sessionToken(session)! } },
    );
    const done = streamed.events.at(-1)!;
    expect(done.event).toBe('done');
    expect(stub.chatRequests().at(-1)!.body.stream).toBe(true);
    expect(done.data.usage.cached_tokens).toBe(reportedSince(before).cached_tokens);
    expect(done.data.usage.cached_tokens).toBeGreaterThanOrEqual(1024);
  });

  it('estimates the cost from MODEL_PRICES (cached input at its own price) per answer and per conversation, and shows none without prices', async () => {
    stub.enqueueChat(
      { content: 'First answer.', usage: { prompt_tokens: 2000, completion_tokens: 100, cached_tokens: 0 } },
      { content: 'Second answer.', usage: { prompt_tokens: 3000, completion_tokens: 200, cached_tokens: 2048 } },
    );
    const first = await priced.postChat({ message: 'How do returns work?', session_id: 'cost-1' });
    const second = await priced.postChat({ message: 'And refunds?', session_id: 'cost-1' });
    const price = PRICES['gpt-4o-mini'];
    const expected1 = (2000 * price.input + 100 * price.output) / 1e6;
    const expected2 = ((3000 - 2048) * price.input + 2048 * price.cached_input + 200 * price.output) / 1e6;
    expect(first.body.cost).toBeCloseTo(expected1, 9);
    expect(second.body.cost).toBeCloseTo(expected2, 9);
    expect(second.body.usage.cached_tokens).toBe(2048);

    const history = await priced.getHistory('cost-1');
    const stored = history.body.messages.filter((m: any) => m.role === 'assistant');
    expect(stored.map((m: any) => m.cost)).toEqual([first.body.cost, second.body.cost]);
    expect(history.body.usage.cost).toBeCloseTo(expected1 + expected2, 9);
    expect(history.body.usage).toMatchObject({ answers: 2, cached_tokens: 2048, priced_answers: 2 });

    stub.enqueueChat({ content: 'Unpriced.', usage: { prompt_tokens: 2000, completion_tokens: 100, cached_tokens: 1024 } });
    const unpricedAnswer = await unpriced.postChat({ message: 'How do returns work?', session_id: 'cost-2' });
    expect(unpricedAnswer.body.usage.cached_tokens).toBe(1024);
    expect(unpricedAnswer.body).not.toHaveProperty('cost');
    const unpricedHistory = await unpriced.getHistory('cost-2');
    expect(unpricedHistory.body.messages.at(-1)).not.toHaveProperty('cost');
    expect(unpricedHistory.body.usage).not.toHaveProperty('cost');
  });
});

describe('30-turn conversations that change topic every turn', () => {
  const STRATEGIES: Record<string, Record<string, unknown> | undefined> = {
    'window (default)': undefined,
    compact: { mode: 'compact', compact_keep: 2, token_budget: 4000 },
    summarize: { mode: 'summarize', token_budget: 4000, keep_last_n_turns: 2, summary_token_budget: 600 },
    // Issue 25's case: a tighter budget, so the summary is remade more often.
    'summarize (token_budget 3000)': { mode: 'summarize', token_budget: 3000, keep_last_n_turns: 2 },
  };
  const TARGETS: Record<string, number> = { 'window (default)': 0.7, compact: 0.7, summarize: 0.6, 'summarize (token_budget 3000)': 0.6 };
  /** Sums over turns 5–30 of every model call (usage counts the summary's and rewrite's calls too); summary_*: those calls alone. */
  const figures: Record<
    string,
    { prompt_tokens: number; cached_tokens: number; share: number; summary_prompt_tokens: number; summary_cached_tokens: number; max_tokens_after: number; history_starts: number }
  > = {};

  afterAll(() => {
    const dir = path.join(REPO_ROOT, 'test-artifacts');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'prompt-cache-http.json'), `${JSON.stringify({ turns: TURNS, counted_from: COUNTED_FROM, figures }, null, 2)}\n`);
  });

  it.each(Object.keys(STRATEGIES))('%s: the share of prompt tokens served from the cache over turns 5–30 meets the target, within the budget', async (name) => {
    stub.setDefaultChat((body) => {
      const last = String(body.messages.at(-1)?.content ?? '');
      // The summarizer's request (summarize; it comes last, after the answer's prefix) gets a short summary; every other call an answer.
      if (last.includes('rolling summary')) return { content: '- Customer: asked about returns, shipping and payments.' };
      return { content: answerFor(last) };
    });
    const session = `cache-${name.replace(/\W+/g, '-')}`;
    let prompt = 0;
    let cached = 0;
    let summaryPrompt = 0;
    let summaryCached = 0;
    let maxAfter = 0;
    const starts = new Set<number>();
    for (let turn = 1; turn <= TURNS; turn++) {
      const topic = TOPICS[(turn * 7) % TOPICS.length];
      const message = `Question ${turn}: can you explain ${topic}? I am asking for turn ${turn}.`;
      const strategy = STRATEGIES[name];
      const { status, body } = await priced.postChat({ message, session_id: session, ...(strategy && { memory_strategy: strategy }) });
      expect(status).toBe(200);
      if (strategy?.token_budget) expect(body.memory.tokens_after).toBeLessThanOrEqual(strategy.token_budget as number);
      maxAfter = Math.max(maxAfter, body.memory.tokens_after);
      // Where the history the model was sent starts after the pinned opening (the first questions, then a
      // gap where the window cut): it moves only at the steps. summarize's summary stands for the opening.
      const sent = stub.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: string }>;
      const questions = sent.flatMap((m) => (m.role === 'user' ? [Number(/^Question (\d+):/.exec(m.content)?.[1] ?? NaN)] : [])).filter((q) => q > 0);
      const gap = questions.findIndex((q, i) => i > 0 && q !== questions[i - 1]! + 1);
      if (gap > 0 && strategy?.mode !== 'summarize') expect(questions[0]).toBe(1);
      starts.add(gap > 0 ? questions[gap]! : (questions[0] ?? 0));
      if (turn >= COUNTED_FROM) {
        prompt += body.usage.prompt_tokens;
        cached += body.usage.cached_tokens;
        summaryPrompt += body.usage.by_purpose.summary?.prompt_tokens ?? 0;
        summaryCached += body.usage.by_purpose.summary?.cached_tokens ?? 0;
      }
    }
    const share = cached / prompt;
    figures[name] = {
      prompt_tokens: prompt,
      cached_tokens: cached,
      share: Math.round(share * 1000) / 1000,
      summary_prompt_tokens: summaryPrompt,
      summary_cached_tokens: summaryCached,
      max_tokens_after: maxAfter,
      history_starts: starts.size,
    };
    // The history was cut (the budget binds), and in a few steps rather than on every turn.
    expect(starts.size).toBeGreaterThan(1);
    expect(starts.size).toBeLessThan(TURNS / 3);
    expect(share).toBeGreaterThanOrEqual(TARGETS[name]!);
  });
});
