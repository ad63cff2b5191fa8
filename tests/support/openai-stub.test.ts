/**
 * Proves the loopback stub is faithful enough for the real LangChain OpenAI
 * clients: if these pass, other suites can trust `startOpenAIStub()`.
 */
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { AIMessage, HumanMessage, SystemMessage, type AIMessageChunk } from '@langchain/core/messages';
import { startOpenAIStub, type OpenAIStub } from './openai-stub';

/** Poll until `check` holds; the server learns about client aborts asynchronously. */
async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const norm = (v: number[]) => Math.hypot(...v);

describe('OpenAI stub with the real LangChain clients', () => {
  let stub: OpenAIStub;

  beforeAll(async () => {
    stub = await startOpenAIStub();
  });
  afterEach(() => stub.reset());
  afterAll(async () => {
    await stub.close();
  });

  const chatModel = (extra: Record<string, unknown> = {}) =>
    new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'test-key',
      configuration: { baseURL: stub.baseURL },
      maxRetries: 0,
      timeout: 5000,
      ...extra,
    });

  const embeddings = () =>
    new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      apiKey: 'test-key',
      configuration: { baseURL: stub.baseURL },
      maxRetries: 0,
    });

  describe('chat completions', () => {
    it('invoke returns content and usage, and records the messages in order', async () => {
      stub.enqueueChat({ content: 'Your order ships tomorrow.', usage: { prompt_tokens: 42, completion_tokens: 7 } });

      const res = await chatModel().invoke([
        new SystemMessage('You are a support agent.'),
        new HumanMessage('Where is my order?'),
        new AIMessage('Could you share the order number?'),
        new HumanMessage('It is #1234.'),
      ]);

      expect(res.content).toBe('Your order ships tomorrow.');
      expect(res.usage_metadata).toMatchObject({ input_tokens: 42, output_tokens: 7, total_tokens: 49 });

      const [req] = stub.chatRequests();
      expect(stub.chatRequests()).toHaveLength(1);
      expect(req.body.model).toBe('gpt-4o-mini');
      expect(req.body.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
      expect(req.body.messages[3].content).toBe('It is #1234.');
      expect(req.headers.authorization).toBe('Bearer test-key');
    });

    it('default reply echoes the last user message with estimated usage', async () => {
      const res = await chatModel().invoke('hello there');
      expect(res.content).toBe('stub answer to: hello there');
      // ceil(20 / 4) prompt tokens ("<user>\nhello there\n", the prompt as rendered), ceil(27 / 4) completion tokens.
      expect(res.usage_metadata).toMatchObject({ input_tokens: 5, output_tokens: 7, total_tokens: 12 });
    });

    describe('simulated prompt cache', () => {
      // 5,000 characters: 1,250 tokens at the stub's 4 characters a token, above OpenAI's 1,024.
      const longInstructions = 'You are the support agent of a shop. '.repeat(135);

      it('serves the longest prefix shared with an earlier request, in 128-token steps from 1,024, and reports it as cached tokens', async () => {
        const first = await chatModel().invoke([new SystemMessage(longInstructions), new HumanMessage('Where is my order?')]);
        expect(first.usage_metadata?.input_token_details?.cache_read).toBe(0);

        const second = await chatModel().invoke([
          new SystemMessage(longInstructions),
          new HumanMessage('Where is my order?'),
          new AIMessage('Could you share the order number?'),
          new HumanMessage('It is #1234.'),
        ]);
        const [, secondRequest] = stub.chatRequests();
        const sharedTokens = Math.ceil(`<system>\n${longInstructions}\n<user>\nWhere is my order?\n`.length / 4);
        const expected = Math.floor(sharedTokens / 128) * 128;
        expect(expected).toBeGreaterThanOrEqual(1024);
        expect(secondRequest!.usage!.prompt_tokens_details.cached_tokens).toBe(expected);
        expect(second.usage_metadata?.input_token_details?.cache_read).toBe(expected);
      });

      it('serves nothing when the prompt changes near its start, or when it is under 1,024 tokens', async () => {
        await chatModel().invoke([new SystemMessage(longInstructions), new HumanMessage('One')]);
        const changedHead = await chatModel().invoke([new SystemMessage(`Today is Monday. ${longInstructions}`), new HumanMessage('One')]);
        expect(changedHead.usage_metadata?.input_token_details?.cache_read).toBe(0);
        await chatModel().invoke('short prompt');
        const shortAgain = await chatModel().invoke('short prompt');
        expect(shortAgain.usage_metadata?.input_token_details?.cache_read).toBe(0);
      });

      it('reports cached tokens in the usage chunk of a stream', async () => {
        await chatModel().invoke([new SystemMessage(longInstructions), new HumanMessage('Refunds?')]);
        const chunks: AIMessageChunk[] = [];
        for await (const chunk of await chatModel().stream([new SystemMessage(longInstructions), new HumanMessage('Refunds?')])) chunks.push(chunk);
        const full = chunks.reduce((acc, c) => acc.concat(c));
        const reported = stub.chatRequests()[1]!.usage!;
        expect(reported.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
        expect(full.usage_metadata?.input_token_details?.cache_read).toBe(reported.prompt_tokens_details.cached_tokens);
        expect(full.usage_metadata?.input_tokens).toBe(reported.prompt_tokens);
      });

      it('passes a prompt cache key through from the client', async () => {
        await chatModel({ promptCacheKey: 'conversation-1' }).invoke('hello');
        expect(stub.chatRequests()[0]!.body.prompt_cache_key).toBe('conversation-1');
      });
    });

    it('setDefaultChat accepts a function of the request body', async () => {
      stub.setDefaultChat((body) => ({ content: `model=${body.model}` }));
      expect((await chatModel().invoke('x')).content).toBe('model=gpt-4o-mini');
    });

    it('streams several chunks that rejoin to the content, with usage', async () => {
      const content = 'Refunds are processed within five business days.';
      stub.enqueueChat({ content, usage: { prompt_tokens: 12, completion_tokens: 9 } });

      const chunks: AIMessageChunk[] = [];
      for await (const chunk of await chatModel().stream('How long do refunds take?')) chunks.push(chunk);

      expect(chunks.filter((c) => c.content !== '').length).toBeGreaterThan(1);
      const full = chunks.reduce((acc, c) => acc.concat(c));
      expect(full.content).toBe(content);
      expect(full.usage_metadata).toMatchObject({ input_tokens: 12, output_tokens: 9, total_tokens: 21 });

      const [req] = stub.chatRequests();
      expect(req.body.stream).toBe(true);
      expect(req.body.stream_options).toEqual({ include_usage: true });
    });

    it('an HTTP 500 reply makes invoke reject and is recorded', async () => {
      stub.enqueueChat({ status: 500, error: 'boom' });
      await expect(chatModel().invoke('hi')).rejects.toThrow(/boom|500/);
      expect(stub.chatRequests()).toHaveLength(1);
      expect(stub.chatRequests()[0].aborted).toBe(false);
    });

    it('queued replies are consumed in order, then the default is used', async () => {
      stub.enqueueChat({ content: 'first' }, { content: 'second' });
      const model = chatModel();
      expect((await model.invoke('a')).content).toBe('first');
      expect((await model.invoke('b')).content).toBe('second');
      expect((await model.invoke('c')).content).toBe('stub answer to: c');
    });

    it('a delayed reply aborted by the client is marked aborted', async () => {
      stub.enqueueChat({ delayMs: 5000 });
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 100);

      const started = Date.now();
      await expect(chatModel().invoke('slow please', { signal: controller.signal })).rejects.toThrow();
      clearTimeout(timer);
      expect(Date.now() - started).toBeLessThan(4000);

      await waitFor(() => stub.chatRequests()[0]?.aborted === true);
    });

    it('a short delayed reply still answers', async () => {
      stub.enqueueChat({ delayMs: 50, content: 'late but here' });
      expect((await chatModel().invoke('hi')).content).toBe('late but here');
      expect(stub.chatRequests()[0].aborted).toBe(false);
    });
  });

  describe('embeddings', () => {
    it('embedQuery returns a deterministic unit vector via the base64 wire format', async () => {
      const emb = embeddings();
      const a = await emb.embedQuery('reset my password');
      const b = await emb.embedQuery('reset my password');
      const c = await emb.embedQuery('cancel my subscription');

      expect(a).toHaveLength(1536);
      expect(a.every((x) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
      expect(norm(a)).toBeCloseTo(1, 5);
      expect(b).toEqual(a);
      expect(c).not.toEqual(a);

      const [req] = stub.embeddingRequests();
      expect(req.body.encoding_format).toBe('base64');
      expect(req.body.input).toBe('reset my password');
    });

    it('embedDocuments embeds several texts consistently with embedQuery', async () => {
      const emb = embeddings();
      const texts = ['shipping policy', 'return policy', 'warranty terms'];
      const vectors = await emb.embedDocuments(texts);

      expect(vectors).toHaveLength(3);
      for (const v of vectors) {
        expect(v).toHaveLength(1536);
        expect(norm(v)).toBeCloseTo(1, 5);
      }
      expect(await emb.embedQuery('return policy')).toEqual(vectors[1]);
      expect(stub.embeddingRequests()[0].body.input).toEqual(texts);
    });

    it('answers with number arrays when encoding_format is float', async () => {
      const emb = new OpenAIEmbeddings({
        model: 'text-embedding-3-small',
        apiKey: 'test-key',
        configuration: { baseURL: stub.baseURL },
        maxRetries: 0,
        encodingFormat: 'float',
      });
      const v = await emb.embedQuery('reset my password');
      expect(stub.embeddingRequests()[0].body.encoding_format).toBe('float');
      // Same text, other wire format: float32 round-trip is the only difference.
      const viaBase64 = await embeddings().embedQuery('reset my password');
      v.forEach((x, i) => expect(x).toBeCloseTo(viaBase64[i], 6));
    });

    it('setEmbeddingsFailure makes embedQuery reject', async () => {
      stub.setEmbeddingsFailure(503);
      await expect(embeddings().embedQuery('anything')).rejects.toThrow();
      expect(stub.embeddingRequests()).toHaveLength(1);
    });
  });

  it('unknown paths get a 404 JSON error', async () => {
    const res = await fetch(`${stub.baseURL}/nope`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.message).toMatch(/no route/);
  });
});
