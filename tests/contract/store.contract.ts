/**
 * The store contract: what ChatStore, KnowledgeStore and the rate-limit counters
 * promise, checked through their public methods only, so every backend runs the
 * same suite.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddingModelMismatchError } from '../../src/errors';
import { EMBEDDING_DIMENSIONS } from '../../src/knowledge/embeddings';
import type { RateLimitCounters } from '../../src/store/rate-limit-store';
import type { ChatStore, DocumentChunk, KnowledgeStore, NewMessage } from '../../src/store/types';

export interface StoreUnderTest {
  chat: ChatStore;
  /** Absent where the backend has no pgvector; the knowledge part is then not run. */
  knowledge?: KnowledgeStore;
  rateLimits: RateLimitCounters;
  /** Empties every table, so each test starts from nothing. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface ContractOptions {
  /** Why the knowledge part does not apply to this backend; omit when it does. */
  withoutKnowledge?: string;
}

export function describeStoreContract(backend: string, open: () => Promise<StoreUnderTest>, options: ContractOptions = {}): void {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await open();
  });
  afterAll(async () => {
    await subject?.close();
  });
  beforeEach(async () => {
    await subject.reset();
  });

  const turn = (sessionId: string, messages: NewMessage[], userId: string | null = null) =>
    subject.chat.appendTurn({ sessionId, userId, agentType: 'support', messages });
  const user = (content: string, tokenCount = 10): NewMessage => ({ role: 'user', content, tokenCount });
  const answer = (content: string, tokenCount = 10): NewMessage => ({ role: 'assistant', content, tokenCount });

  describe(`ChatStore contract on ${backend}`, () => {
    it('stores every field of a turn and returns the rows as stored, numbered from 1', async () => {
      const content = 'Grüße 🙂 "quoted" \\ back\\slash, 配送 and a $1 placeholder';
      const stored = await turn('contract:fields.1', [
        user(content, 21),
        { role: 'assistant', content: '', tokenCount: 15, toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'NW-1', items: [1, 2] } }] },
        { role: 'tool', content: '{"status":"shipped"}', tokenCount: 8, toolCallId: 'call_1', name: 'lookup_order' },
        { role: 'assistant', content: 'It shipped.', tokenCount: 6, confidence: 0.625, escalated: false, metadata: { model: 'm', sources: [{ title: 'T', score: 0.5 }] } },
      ]);

      expect(stored.map((m) => [m.seq, m.role])).toEqual([[1, 'user'], [2, 'assistant'], [3, 'tool'], [4, 'assistant']]);
      expect(stored[0]).toMatchObject({ sessionId: 'contract:fields.1', content, tokenCount: 21, toolCalls: null, metadata: {} });
      expect(stored[1]!.toolCalls).toEqual([{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'NW-1', items: [1, 2] } }]);
      expect(stored[2]).toMatchObject({ toolCallId: 'call_1', name: 'lookup_order', content: '{"status":"shipped"}' });
      expect(stored[3]).toMatchObject({ confidence: 0.625, escalated: false, metadata: { model: 'm', sources: [{ title: 'T', score: 0.5 }] } });
      expect(new Set(stored.map((m) => m.id)).size).toBe(4);
      expect(stored.every((m) => m.createdAt instanceof Date && !Number.isNaN(m.createdAt.getTime()))).toBe(true);

      // Read back, the rows are the same as appendTurn returned.
      expect(await subject.chat.listRecentMessages('contract:fields.1', 10)).toEqual(stored);
    });

    it('continues numbering across turns and keeps the session metadata in step', async () => {
      const question = `Where is my parcel? ${'x'.repeat(150)}`;
      await turn('contract-meta', [user(question), answer('On its way.')], 'lukas@example.com');
      const before = await subject.chat.getSession('contract-meta');
      const second = await turn('contract-meta', [user('Thanks'), { ...answer(`You are welcome. ${'y'.repeat(300)}`), escalated: true }], 'someone-else');
      const third = await turn('contract-meta', [user('Bye'), { ...answer('Goodbye.'), escalated: false }]);

      expect(second.map((m) => m.seq)).toEqual([3, 4]);
      expect(third.map((m) => m.seq)).toEqual([5, 6]);
      const session = await subject.chat.getSession('contract-meta');
      expect(session).toMatchObject({
        sessionId: 'contract-meta',
        userId: 'lukas@example.com', // the first turn's user is kept
        agentType: 'support',
        title: question.slice(0, 100),
        lastMessage: 'Goodbye.',
        messageCount: 6,
        active: true,
        escalated: true, // once escalated, the session stays flagged
      });
      expect(session!.createdAt).toEqual(before!.createdAt);
      expect(session!.updatedAt.getTime()).toBeGreaterThanOrEqual(before!.updatedAt.getTime());
      expect((await turn('contract-meta-long', [user('Hi'), answer('z'.repeat(300))])).length).toBe(2);
      expect((await subject.chat.getSession('contract-meta-long'))!.lastMessage).toBe('z'.repeat(200));
    });

    it('numbers each session on its own', async () => {
      await turn('contract-a', [user('a1'), answer('a2')]);
      await turn('contract-b', [user('b1'), answer('b2')]);
      const a = await turn('contract-a', [user('a3'), answer('a4')]);
      expect(a.map((m) => m.seq)).toEqual([3, 4]);
      expect((await subject.chat.listRecentMessages('contract-b', 10)).map((m) => [m.seq, m.content])).toEqual([[1, 'b1'], [2, 'b2']]);
    });

    it('stores a turn entirely or not at all, on a new session and on an existing one', async () => {
      const broken = [user('Hello'), { role: 'robot' as 'assistant', content: 'Beep', tokenCount: 4 }];
      await expect(turn('contract-atomic', broken)).rejects.toThrow();
      expect(await subject.chat.getSession('contract-atomic')).toBeNull();

      await turn('contract-atomic', [user('Hello'), answer('Hi')]);
      await expect(turn('contract-atomic', broken)).rejects.toThrow();
      expect((await subject.chat.getSession('contract-atomic'))!.messageCount).toBe(2);
      expect((await subject.chat.listRecentMessages('contract-atomic', 10)).map((m) => m.seq)).toEqual([1, 2]);
      // The failed turn used no numbers: the next one follows without a gap.
      expect((await turn('contract-atomic', [user('Again'), answer('Yes')])).map((m) => m.seq)).toEqual([3, 4]);
    });

    it('refuses an empty turn', async () => {
      await expect(turn('contract-empty', [])).rejects.toThrow();
      expect(await subject.chat.getSession('contract-empty')).toBeNull();
    });

    it('knows nothing of a session that was never stored', async () => {
      expect(await subject.chat.getSession('contract-never')).toBeNull();
      expect(await subject.chat.listRecentMessages('contract-never', 10)).toEqual([]);
      expect(await subject.chat.loadHistoryWindow('contract-never', { maxMessages: 20, maxTokens: 4000 })).toEqual([]);
    });

    it('lists the newest messages of every role, oldest first', async () => {
      await turn('contract-recent', [{ role: 'system', content: 'note', tokenCount: 3 }, user('q1'), answer('a1')]);
      await turn('contract-recent', [user('q2'), answer('a2')]);
      expect((await subject.chat.listRecentMessages('contract-recent', 3)).map((m) => m.content)).toEqual(['a1', 'q2', 'a2']);
      expect((await subject.chat.listRecentMessages('contract-recent', 100)).map((m) => m.role)).toEqual([
        'system', 'user', 'assistant', 'user', 'assistant',
      ]);
    });

    it('loads the newest messages within both limits, oldest first, never opening on a reply or a system message', async () => {
      await turn('contract-window', [{ role: 'system', content: 'note', tokenCount: 5 }, user('q1', 10), answer('a1', 10)]);
      await turn('contract-window', [
        user('q2', 10),
        { role: 'assistant', content: '', tokenCount: 10, toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: {} }] },
        { role: 'tool', content: 'r', tokenCount: 10, toolCallId: 'c1', name: 'lookup_order' },
        answer('a2', 10),
      ]);
      const window = (maxMessages: number, maxTokens: number) =>
        subject.chat.loadHistoryWindow('contract-window', { maxMessages, maxTokens }).then((ms) => ms.map((m) => m.seq));

      expect(await window(20, 4000)).toEqual([2, 3, 4, 5, 6, 7]);
      expect(await window(20, 60)).toEqual([2, 3, 4, 5, 6, 7]); // exactly fits
      expect(await window(20, 59)).toEqual([4, 5, 6, 7]); // q1 no longer fits, so neither does its orphaned answer
      expect(await window(5, 4000)).toEqual([4, 5, 6, 7]); // five would open on a1
      expect(await window(3, 4000)).toEqual([]); // three would open on the tool call
      expect(await window(20, 9)).toEqual([]);
      const loaded = await subject.chat.loadHistoryWindow('contract-window', { maxMessages: 20, maxTokens: 4000 });
      expect(loaded[3]!.toolCalls).toEqual([{ id: 'c1', name: 'lookup_order', arguments: {} }]);
    });
  });

  describe(`conversation memory and session listing on ${backend}`, () => {
    it('lists the non-system messages after a seq, oldest first, and keeps the session token total', async () => {
      await turn('contract:after', [user('one', 5), answer('two', 7)]);
      await turn('contract:after', [user('three', 11), { role: 'system', content: 'note', tokenCount: 2 }, answer('four', 13)]);
      expect((await subject.chat.listMessagesAfter('contract:after', 0)).map((m) => m.content)).toEqual(['one', 'two', 'three', 'four']);
      expect((await subject.chat.listMessagesAfter('contract:after', 2)).map((m) => m.seq)).toEqual([3, 5]);
      expect((await subject.chat.getSession('contract:after'))!.tokenCount).toBe(5 + 7 + 11 + 2 + 13);
    });

    it('stores a rolling summary only when it reaches further, and shares it with the customer on request', async () => {
      await turn('contract:summary', [user('a'), answer('b'), user('c'), answer('d')], 'customer@example.com');
      expect(await subject.chat.saveSummary('contract:summary', { summary: 'first', throughSeq: 2, shareWithUser: false })).toBe(true);
      expect(await subject.chat.saveSummary('contract:summary', { summary: 'stale', throughSeq: 2, shareWithUser: true })).toBe(false);
      expect(await subject.chat.latestUserSummary('customer@example.com', 'another-session')).toBeNull();
      expect(await subject.chat.saveSummary('contract:summary', { summary: 'second', throughSeq: 4, shareWithUser: true })).toBe(true);
      expect(await subject.chat.saveSummary('contract:nobody', { summary: 'x', throughSeq: 1, shareWithUser: true })).toBe(false);

      const session = await subject.chat.getSession('contract:summary');
      expect(session).toMatchObject({ summary: 'second', summarizedThroughSeq: 4 });
      expect(await subject.chat.latestUserSummary('customer@example.com', 'another-session')).toEqual({
        sessionId: 'contract:summary',
        summary: 'second',
      });
      // A customer's own session is not "another session".
      expect(await subject.chat.latestUserSummary('customer@example.com', 'contract:summary')).toBeNull();
    });

    it('sets and clears the conversation-level memory setting of an existing session only', async () => {
      await turn('contract:memory', [user('a'), answer('b')]);
      const setting = { strategy: { mode: 'compact' as const, compact_keep: 3 }, memory_injection: true };
      expect(await subject.chat.setMemorySetting('contract:memory', setting)).toBe(true);
      expect((await subject.chat.getSession('contract:memory'))!.memorySetting).toEqual(setting);
      expect(await subject.chat.setMemorySetting('contract:memory', null)).toBe(true);
      expect((await subject.chat.getSession('contract:memory'))!.memorySetting).toBeNull();
      expect(await subject.chat.setMemorySetting('contract:nobody', setting)).toBe(false);
    });

    it('pages through sessions newest first, finds text literally, filters escalation', async () => {
      for (let i = 0; i < 5; i++) await turn(`contract:list.${i}`, [user(`question ${i} about 50%_off`), answer('ok')]);
      await turn('contract:list.escalated', [user('help!'), { ...answer('sorry'), escalated: true }]);

      const seen: string[] = [];
      let after = undefined as Parameters<ChatStore['listSessions']>[0]['after'];
      for (let page = 0; page < 10; page++) {
        const result = await subject.chat.listSessions({ limit: 2, after });
        seen.push(...result.sessions.map((s) => s.sessionId));
        if (!result.nextCursor) break;
        after = result.nextCursor;
      }
      expect(seen).toEqual(['contract:list.escalated', 'contract:list.4', 'contract:list.3', 'contract:list.2', 'contract:list.1', 'contract:list.0']);
      expect((await subject.chat.listSessions({ limit: 10, text: 'QUESTION 3' })).sessions.map((s) => s.sessionId)).toEqual(['contract:list.3']);
      expect((await subject.chat.listSessions({ limit: 10, text: '50%_off' })).sessions).toHaveLength(5);
      expect((await subject.chat.listSessions({ limit: 10, text: '5_%' })).sessions).toHaveLength(0);
      expect((await subject.chat.listSessions({ limit: 10, escalated: true })).sessions.map((s) => s.sessionId)).toEqual(['contract:list.escalated']);
      expect((await subject.chat.listSessions({ limit: 10, escalated: false })).sessions).toHaveLength(5);
    });
  });

  describe(`rate-limit counters contract on ${backend}`, () => {
    const counters = () => subject.rateLimits;
    // An hour: no test here runs long enough to cross into the next window by chance.
    const HOUR = 3_600_000;

    it('counts hits of a key within a window, up to a reset time in the future on the window grid', async () => {
      const before = Date.now();
      const hits = [];
      for (let i = 0; i < 3; i++) hits.push(await counters().hit('client:1', HOUR));
      expect(hits.map((h) => h.hits)).toEqual([1, 2, 3]);
      const resetAt = hits[0]!.resetAt.getTime();
      expect(hits.map((h) => h.resetAt.getTime())).toEqual([resetAt, resetAt, resetAt]);
      expect(resetAt % HOUR).toBe(0);
      // The database's clock decides; allow it a few seconds' disagreement with ours.
      expect(resetAt).toBeGreaterThan(before - 5_000);
      expect(resetAt).toBeLessThanOrEqual(before + HOUR + 5_000);
    });

    it('counts each key on its own', async () => {
      for (let i = 0; i < 3; i++) await counters().hit('client:a', HOUR);
      expect((await counters().hit('client:b', HOUR)).hits).toBe(1);
      expect((await counters().hit('session:a', HOUR)).hits).toBe(1);
      expect((await counters().hit('client:a', HOUR)).hits).toBe(4);
    });

    it('starts a new window from 1 once the last one has ended', async () => {
      const windowMs = 300;
      const first = await counters().hit('client:short', windowMs);
      const second = await counters().hit('client:short', windowMs);
      // The two may straddle a window boundary: then the second is a new window's first.
      expect(second.hits).toBe(second.resetAt.getTime() === first.resetAt.getTime() ? 2 : 1);
      await sleep(second.resetAt.getTime() - Date.now() + 50);
      const next = await counters().hit('client:short', windowMs);
      expect(next.hits).toBe(1);
      expect(next.resetAt.getTime()).toBeGreaterThanOrEqual(second.resetAt.getTime() + windowMs);
      expect(next.resetAt.getTime() % windowMs).toBe(0);
    });

    it('takes back a hit (never below zero) and forgets a key on reset', async () => {
      for (let i = 0; i < 3; i++) await counters().hit('client:undo', HOUR);
      expect(await counters().undo('client:undo', HOUR)).toBe(true);
      expect((await counters().hit('client:undo', HOUR)).hits).toBe(3);

      expect(await counters().reset('client:undo')).toBe(true);
      expect((await counters().hit('client:undo', HOUR)).hits).toBe(1);
      expect(await counters().undo('client:undo', HOUR)).toBe(true);
      expect(await counters().undo('client:undo', HOUR)).toBe(false); // already at zero
      expect((await counters().hit('client:undo', HOUR)).hits).toBe(1);

      expect(await counters().undo('client:never', HOUR)).toBe(false);
      expect(await counters().reset('client:never')).toBe(false);
      expect((await counters().hit('client:other', HOUR)).hits).toBe(1); // untouched by the rest
    });

    it('gives 20 concurrent hits on one key the counts 1 to 20, each once', async () => {
      const hits = await Promise.all(Array.from({ length: 20 }, () => counters().hit('session:hot', HOUR)));
      expect(hits.map((h) => h.hits).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(new Set(hits.map((h) => h.resetAt.getTime())).size).toBe(1);
    });

    it('refuses a window shorter than a millisecond', async () => {
      await expect(counters().hit('client:zero', 0)).rejects.toThrow(/at least 1 ms/);
    });
  });

  const knowledgeDescribe = options.withoutKnowledge ? describe.skip : describe;
  const knowledgeTitle = `KnowledgeStore contract on ${backend}${options.withoutKnowledge ? ` (not run: ${options.withoutKnowledge})` : ''}`;
  knowledgeDescribe(knowledgeTitle, () => {
    const knowledge = () => subject.knowledge!;
    const MODEL = 'contract-embedder';

    /** A unit vector along `axis`, leaning towards `towards` by `lean` (0: none). */
    const unit = (axis: number, towards = 0, lean = 0): number[] => {
      const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
      v[axis] = 1 - lean;
      v[towards] = (v[towards] ?? 0) + lean;
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const chunk = (source: string, chunkIndex: number, embedding: number[], model = MODEL): DocumentChunk => ({
      source,
      title: `Title of ${source}`,
      chunkIndex,
      content: `chunk ${chunkIndex} of ${source}`,
      contentHash: `hash-${source}-${chunkIndex}`,
      metadata: { headings: ['A', 'B'], chunk: chunkIndex },
      embedding,
      embeddingModel: model,
    });
    const query = (embedding: number[], count = 4, minSimilarity = -1) =>
      knowledge().matchDocuments({ embedding, embeddingModel: MODEL, count, minSimilarity });

    it('finds the nearest chunks first, with their cosine similarity and what was stored with them', async () => {
      await knowledge().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(0)), chunk('docs/a.md', 1, unit(1))]);
      await knowledge().replaceSourceChunks('docs/b.md', [chunk('docs/b.md', 0, unit(2, 0, 0.5))]);

      const found = await query(unit(0));
      expect(found.map((d) => [d.source, d.chunkIndex])).toEqual([['docs/a.md', 0], ['docs/b.md', 0], ['docs/a.md', 1]]);
      expect(found[0]!.similarity).toBeCloseTo(1, 5);
      expect(found[1]!.similarity).toBeCloseTo(Math.SQRT1_2, 5); // 45 degrees
      expect(found[2]!.similarity).toBeCloseTo(0, 5);
      expect(found[0]).toMatchObject({ title: 'Title of docs/a.md', content: 'chunk 0 of docs/a.md', metadata: { headings: ['A', 'B'], chunk: 0 } });
      expect(typeof found[0]!.id).toBe('string');
    });

    it('returns at most `count` chunks, none below the similarity floor', async () => {
      await knowledge().replaceSourceChunks('docs/a.md', [0, 1, 2, 3, 4].map((i) => chunk('docs/a.md', i, unit(i))));
      expect(await query(unit(0), 2)).toHaveLength(2);
      expect((await query(unit(0), 10, 0.5)).map((d) => d.chunkIndex)).toEqual([0]);
      expect(await query(unit(7), 10, 0.5)).toEqual([]);
    });

    it('replaces a source whole, leaving other sources alone', async () => {
      await knowledge().replaceSourceChunks('docs/a.md', [0, 1, 2].map((i) => chunk('docs/a.md', i, unit(i))));
      await knowledge().replaceSourceChunks('docs/b.md', [chunk('docs/b.md', 0, unit(5))]);
      await knowledge().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(3))]);

      expect(await knowledge().listSourceChunks('docs/a.md')).toEqual([{ chunkIndex: 0, contentHash: 'hash-docs/a.md-0', embeddingModel: MODEL }]);
      expect(await knowledge().listSourceChunks('docs/b.md')).toHaveLength(1);
      expect(await knowledge().listSourceChunks('docs/none.md')).toEqual([]);
      expect((await query(unit(3), 1))[0]).toMatchObject({ source: 'docs/a.md', chunkIndex: 0 });
    });

    it('keeps the old chunks when a replacement fails part-way', async () => {
      await knowledge().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(0)), chunk('docs/a.md', 1, unit(1))]);
      const tooShort = { ...chunk('docs/a.md', 1, unit(1)), embedding: [1, 0, 0] };
      await expect(knowledge().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(4)), tooShort])).rejects.toThrow();
      expect((await knowledge().listSourceChunks('docs/a.md')).map((c) => c.chunkIndex)).toEqual([0, 1]);
      expect((await query(unit(0), 1))[0]!.similarity).toBeCloseTo(1, 5);
    });

    it('hands back stored embeddings by content hash for the same model only', async () => {
      const embedding = unit(10, 11, 0.3);
      await knowledge().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, embedding)]);
      const found = await knowledge().findEmbeddingsByHash(['hash-docs/a.md-0', 'hash-unknown'], MODEL);
      expect([...found.keys()]).toEqual(['hash-docs/a.md-0']);
      found.get('hash-docs/a.md-0')!.forEach((x, i) => expect(x).toBeCloseTo(embedding[i]!, 6)); // stored as float4
      expect((await knowledge().findEmbeddingsByHash(['hash-docs/a.md-0'], 'another-model')).size).toBe(0);
      expect((await knowledge().findEmbeddingsByHash([], MODEL)).size).toBe(0);
    });

    it('refuses to compare a query with vectors of another embedding model, and lists the models stored', async () => {
      expect(await knowledge().listEmbeddingModels()).toEqual([]);
      await knowledge().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(0))]);
      await knowledge().replaceSourceChunks('docs/old.md', [chunk('docs/old.md', 0, unit(0), 'old-embedder')]);
      expect(await knowledge().listEmbeddingModels()).toEqual([MODEL, 'old-embedder'].sort());
      await expect(query(unit(0))).rejects.toBeInstanceOf(EmbeddingModelMismatchError);
      await expect(query(unit(0))).rejects.toThrow(/old-embedder/);
    });
  });
}
