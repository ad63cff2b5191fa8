/**
 * The store contract: what ChatStore, KnowledgeStore, the rate-limit counters and
 * the customer-data store's tool-trial audit promise, checked through their public methods only, so every backend runs the
 * same suite.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddingModelMismatchError } from '../../src/errors';
import { EMBEDDING_DIMENSIONS } from '../../src/knowledge/embeddings';
import type { CustomerDataStore } from '../../src/privacy/customer-data';
import { ReplyRefusedError, type HandoffStore } from '../../src/store/handoff-store';
import { sourceContentHash } from '../../src/knowledge/ingest';
import type { KnowledgeAdminStore } from '../../src/store/knowledge-admin-store';
import type { RateLimitCounters } from '../../src/store/rate-limit-store';
import type { ChatStore, DocumentChunk, KnowledgeStore, NewMessage } from '../../src/store/types';

export interface StoreUnderTest {
  chat: ChatStore;
  /** Absent where the backend has no pgvector; the knowledge part is then not run. */
  knowledge?: KnowledgeStore;
  /** The knowledge API's store over the same backend (present wherever `knowledge` is). */
  knowledgeAdmin?: KnowledgeAdminStore;
  rateLimits: RateLimitCounters;
  /** Human takeover's functions; the part is not run where absent. */
  handoff?: HandoffStore;
  /** The customer-data functions (audits, erasure) over the same backend. */
  customerData: CustomerDataStore;
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

    it('loads the first messages of a session, oldest first, without system messages, at most as many as asked (a pinned opening is chosen from them)', async () => {
      await turn('contract-opening', [{ role: 'system', content: 'note', tokenCount: 5 }, user('q1', 10), answer('a1', 10)]);
      await turn('contract-opening', [
        user('q2', 10),
        { role: 'assistant', content: '', tokenCount: 10, toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { order_id: 'ZX-14440' } }] },
        { role: 'tool', content: 'r', tokenCount: 10, toolCallId: 'c1', name: 'lookup_order' },
        answer('a2', 10),
      ]);
      const opening = (maxMessages: number) => subject.chat.loadHistoryOpening('contract-opening', maxMessages);
      expect((await opening(40)).map((m) => m.seq)).toEqual([2, 3, 4, 5, 6, 7]);
      expect((await opening(3)).map((m) => m.content)).toEqual(['q1', 'a1', 'q2']);
      expect((await opening(0))).toEqual([]);
      expect((await opening(40))[3]!.toolCalls).toEqual([{ id: 'c1', name: 'lookup_order', arguments: { order_id: 'ZX-14440' } }]);
      expect(await subject.chat.loadHistoryOpening('contract-never', 40)).toEqual([]);
    });
  });

  describe(`answers' usage and cost on ${backend}`, () => {
    it('sums the usage and estimated cost the answers stored, over the whole session; no cost when none was priced', async () => {
      const priced = (usage: Record<string, number>, cost?: number) => ({
        role: 'assistant' as const,
        content: 'answer',
        tokenCount: 3,
        metadata: { usage, ...(cost !== undefined && { cost }) },
      });
      await turn('contract-usage', [user('q1'), priced({ prompt_tokens: 2000, completion_tokens: 100, total_tokens: 2100, cached_tokens: 0 }, 0.00036)]);
      // An answer stored before cached_tokens existed counts 0 cached tokens.
      await turn('contract-usage', [user('q2'), priced({ prompt_tokens: 3000, completion_tokens: 200, total_tokens: 3200 })]);
      await turn('contract-usage', [user('q3'), priced({ prompt_tokens: 3100, completion_tokens: 50, total_tokens: 3150, cached_tokens: 2944 }, 0.00025)]);
      await turn('contract-usage', [user('q4'), answer('no usage stored')]);
      const usage = await subject.chat.sessionUsage('contract-usage');
      expect(usage).toMatchObject({ answers: 3, promptTokens: 8100, cachedTokens: 2944, completionTokens: 350, pricedAnswers: 2 });
      expect(usage.cost).toBeCloseTo(0.00061, 10);

      await turn('contract-usage-unpriced', [user('q'), priced({ prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, cached_tokens: 0 })]);
      expect(await subject.chat.sessionUsage('contract-usage-unpriced')).toMatchObject({ answers: 1, cost: null, pricedAnswers: 0 });
      expect(await subject.chat.sessionUsage('contract-never')).toEqual({
        answers: 0, promptTokens: 0, cachedTokens: 0, completionTokens: 0, cost: null, pricedAnswers: 0,
      });
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

    it("keeps and forgets the conversation's language on an existing session only", async () => {
      await turn('contract:language', [user('Wo ist meine Bestellung?'), answer('Sie ist unterwegs.')]);
      expect((await subject.chat.getSession('contract:language'))!.language).toBeNull();
      expect(await subject.chat.setSessionLanguage('contract:language', 'de')).toBe(true);
      expect((await subject.chat.getSession('contract:language'))!.language).toBe('de');
      // A later turn leaves it as it is.
      await turn('contract:language', [user('ok'), answer('Gern.')]);
      expect((await subject.chat.getSession('contract:language'))!.language).toBe('de');
      expect(await subject.chat.setSessionLanguage('contract:language', null)).toBe(true);
      expect((await subject.chat.getSession('contract:language'))!.language).toBeNull();
      expect(await subject.chat.setSessionLanguage('contract:nobody', 'de')).toBe(false);
      // Only a two-letter code is stored, whatever a caller sends.
      await expect(subject.chat.setSessionLanguage('contract:language', 'deutsch')).rejects.toThrow();
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

    it("stores why an answer was escalated; the session keeps its latest escalation's reason and hand-off summary", async () => {
      const escalatedAnswer = (escalationReason: string, metadata: Record<string, unknown> = {}): NewMessage => ({
        ...answer('A person will follow up.'),
        escalated: true,
        escalationReason,
        metadata,
      });
      const first = await turn('contract:reason.1', [
        user('Where is my refund?'),
        escalatedAnswer('model', { handoff_summary: 'Refund for order 7 not received; the policy passages did not cover it.' }),
      ]);
      expect(first.map((m) => m.escalationReason)).toEqual([null, 'model']);
      expect(await subject.chat.getSession('contract:reason.1')).toMatchObject({
        escalationReason: 'model',
        handoffSummary: 'Refund for order 7 not received; the policy passages did not cover it.',
      });

      // An answer that is not escalated changes neither; a later escalation's reason replaces the reason, and the summary stays until a new one.
      await turn('contract:reason.1', [user('ok'), { ...answer('Thanks for waiting.'), escalated: false }]);
      expect(await subject.chat.getSession('contract:reason.1')).toMatchObject({ escalationReason: 'model' });
      await turn('contract:reason.1', [user('A person, please'), escalatedAnswer('customer_asked')]);
      expect(await subject.chat.getSession('contract:reason.1')).toMatchObject({
        escalationReason: 'customer_asked',
        handoffSummary: 'Refund for order 7 not received; the policy passages did not cover it.',
      });
      expect((await subject.chat.listRecentMessages('contract:reason.1', 10)).map((m) => m.escalationReason)).toEqual([null, 'model', null, null, null, 'customer_asked']);

      await turn('contract:reason.2', [user('Do you sell bikes?'), escalatedAnswer('not_in_help_center')]);
      await turn('contract:reason.3', [user('Hello'), answer('Hi!')]);
      expect(await subject.chat.getSession('contract:reason.3')).toMatchObject({ escalationReason: null, handoffSummary: null });
      const withReason = async (escalationReason: string) =>
        (await subject.chat.listSessions({ limit: 10, escalationReason })).sessions.map((s) => [s.sessionId, s.escalationReason, s.handoffSummary !== null]);
      expect(await withReason('not_in_help_center')).toEqual([['contract:reason.2', 'not_in_help_center', false]]);
      expect(await withReason('customer_asked')).toEqual([['contract:reason.1', 'customer_asked', true]]);
      expect(await withReason('model')).toEqual([]);
    });
  });

  describe(`human takeover contract on ${backend}`, () => {
    const handoff = () => {
      if (!subject.handoff) throw new Error('no handoff store');
      return subject.handoff;
    };
    const note = (content: string): NewMessage => ({ role: 'system', content, tokenCount: 5, metadata: { handoff: { handler: 'human' } } });
    const escalatedTurn = (sessionId: string) => turn(sessionId, [user('Can I talk to a person?'), { ...answer('Flagged for a person.'), escalated: true }]);
    const refusal = (promise: Promise<unknown>) => promise.then(() => 'stored', (e) => (e instanceof ReplyRefusedError ? e.reason : String(e)));

    it('moves a conversation between the bot and named people, one holder at a time, each change a note with the next seq', async () => {
      expect(await handoff().takeOver('contract:nobody', 'Maria', false, note('joined'))).toEqual({ outcome: 'not_found' });
      await escalatedTurn('contract:handoff.1');
      expect(await handoff().takeOver('contract:handoff.1', 'Maria', false, note('Maria joined'))).toEqual({ outcome: 'changed', previousAgentName: null, noteSeq: 3 });
      expect(await handoff().takeOver('contract:handoff.1', 'Maria', false, note('again'))).toEqual({ outcome: 'unchanged' });
      expect(await handoff().takeOver('contract:handoff.1', 'Jonas', false, note('Jonas joined'))).toEqual({ outcome: 'held', agentName: 'Maria' });
      expect(await handoff().takeOver('contract:handoff.1', 'Jonas', true, note('Jonas joined'))).toEqual({ outcome: 'changed', previousAgentName: 'Maria', noteSeq: 4 });
      const session = await subject.chat.getSession('contract:handoff.1');
      expect(session).toMatchObject({ handler: 'human', agentName: 'Jonas', messageCount: 4 });
      expect(await handoff().release('contract:handoff.1', note('left'))).toEqual({ outcome: 'changed', previousAgentName: 'Jonas', noteSeq: 5 });
      expect(await handoff().release('contract:handoff.1', note('left'))).toEqual({ outcome: 'unchanged' });
      expect(await subject.chat.getSession('contract:handoff.1')).toMatchObject({ handler: 'bot', agentName: null, messageCount: 5 });
      // The notes are outside the model's window.
      const window = await subject.chat.loadHistoryWindow('contract:handoff.1', { maxMessages: 50, maxTokens: 10_000 });
      expect(window.map((m) => m.role)).toEqual(['user', 'assistant']);
    });

    it("stores a person's reply with its author only while that person holds the conversation", async () => {
      expect(await refusal(handoff().appendHumanReply('contract:nobody', null, answer('Hi')))).toBe('not_found');
      await escalatedTurn('contract:handoff.2');
      expect(await refusal(handoff().appendHumanReply('contract:handoff.2', null, answer('Hi')))).toBe('held_by_bot');
      await handoff().takeOver('contract:handoff.2', 'Maria', false, note('Maria joined'));
      expect(await refusal(handoff().appendHumanReply('contract:handoff.2', 'Jonas', answer('Hi')))).toBe('held_by_other');
      const reply = await handoff().appendHumanReply('contract:handoff.2', 'Maria', answer('Hi, Maria here.'));
      expect(reply).toMatchObject({ seq: 4, role: 'assistant', content: 'Hi, Maria here.', metadata: { author: { type: 'human', name: 'Maria' } } });
      expect(await handoff().appendHumanReply('contract:handoff.2', null, answer('And more.'))).toMatchObject({ seq: 5 });
      expect(await subject.chat.getSession('contract:handoff.2')).toMatchObject({ messageCount: 5, lastMessage: 'And more.' });
    });

    it("queues the customer's message only while a person holds the conversation", async () => {
      await escalatedTurn('contract:handoff.3');
      expect(await handoff().queueCustomerMessage('contract:handoff.3', user('Hello?'))).toBeNull();
      expect(await handoff().queueCustomerMessage('contract:nobody', user('Hello?'))).toBeNull();
      expect((await subject.chat.getSession('contract:handoff.3'))!.messageCount).toBe(2);
      await handoff().takeOver('contract:handoff.3', 'Maria', false, note('Maria joined'));
      const queued = await handoff().queueCustomerMessage('contract:handoff.3', user('Hello?'));
      expect(queued).toMatchObject({ seq: 4, role: 'user', content: 'Hello?', metadata: { queued_for: 'Maria' } });
      const events = await handoff().eventsAfter('contract:handoff.3', 2, 100);
      expect(events.map((m) => [m.seq, m.role])).toEqual([[3, 'system'], [4, 'user']]);
      expect((await handoff().eventsAfter('contract:handoff.3', 0, 2)).map((m) => m.seq)).toEqual([1, 2]);
      expect(await handoff().newestSeqs(['contract:handoff.3', 'contract:nobody'])).toEqual(new Map([['contract:handoff.3', 4]]));
    });

    it('keeps the waiting queue: an escalated answer starts the wait, a takeover, a release or a confident answer ends it', async () => {
      await escalatedTurn('contract:waiting.1');
      await turn('contract:waiting.2', [user('Refunds?'), { ...answer('Fourteen days.'), escalated: false }]);
      const waiting = async () => (await subject.chat.listSessions({ limit: 10, waiting: true })).sessions.map((s) => s.sessionId);
      expect(await waiting()).toEqual(['contract:waiting.1']);
      expect((await subject.chat.getSession('contract:waiting.1'))!.waitingSince).toBeInstanceOf(Date);
      expect((await subject.chat.listSessions({ limit: 10, waiting: false })).sessions.map((s) => s.sessionId)).toEqual(['contract:waiting.2']);

      await handoff().takeOver('contract:waiting.1', 'Maria', false, note('Maria joined'));
      expect(await waiting()).toEqual([]);
      expect((await subject.chat.listSessions({ limit: 10, handler: 'human' })).sessions.map((s) => s.sessionId)).toEqual(['contract:waiting.1']);
      await handoff().release('contract:waiting.1', note('left'));
      expect(await waiting()).toEqual([]);

      await escalatedTurn('contract:waiting.1');
      expect(await waiting()).toEqual(['contract:waiting.1']);
      await turn('contract:waiting.1', [user('Thanks, and refunds?'), { ...answer('Fourteen days.'), escalated: false }]);
      expect(await waiting()).toEqual([]);
    });
  });

  describe(`tool-trial audit contract on ${backend}`, () => {
    const data = () => subject.customerData;
    const trial = (tool: string, customerId: string | null) =>
      data().recordToolTrial({ source: 'console', tool, customerId, arguments: { orderId: 'BK-1001', customerId }, bound: ['customerId'], outcome: 'ok' });

    it('records trials and pages them newest first, keyset by id', async () => {
      const before = Date.now();
      const first = await trial('getMyOrder', ' ada@books.example ');
      await data().recordToolTrial({ source: 'cli', tool: 'cancelOrder', customerId: null, arguments: {}, bound: [], outcome: 'refused', errorCode: 'not_signed_in' });
      const third = await trial('getMyOrder', 'grace@books.example');

      const page = await data().toolTrialPage(null, 2);
      expect(page.map((t) => t.tool)).toEqual(['getMyOrder', 'cancelOrder']);
      expect(page[0]).toMatchObject({ id: third, source: 'console', customerId: 'grace@books.example', bound: ['customerId'], outcome: 'ok', errorCode: null });
      expect(page[1]).toMatchObject({ source: 'cli', customerId: null, customerPseudonym: null, arguments: {}, bound: [], outcome: 'refused', errorCode: 'not_signed_in' });
      const rest = await data().toolTrialPage(page[1]!.id, 2);
      // The id is kept as given, trimmed; the arguments as sent.
      expect(rest).toEqual([expect.objectContaining({ id: first, customerId: 'ada@books.example', arguments: { orderId: 'BK-1001', customerId: ' ada@books.example ' } })]);
      expect(rest[0]!.triedAt.getTime()).toBeGreaterThanOrEqual(before - 5_000);
      expect(await data().toolTrialPage(first, 2)).toEqual([]);
    });

    it("a customer's erasure keeps their trials with the pseudonym instead of the id and without the arguments; retention deletes old ones", async () => {
      await trial('getMyOrder', 'Ada@Books.example');
      await trial('getMyOrder', 'grace@books.example');
      await data().eraseCustomer('ada@books.example', 'c_ada', false, false);
      const [grace, ada] = await data().toolTrialPage(null, 10);
      expect(ada).toMatchObject({ tool: 'getMyOrder', customerId: null, customerPseudonym: 'c_ada', arguments: null, bound: ['customerId'], outcome: 'ok' });
      expect(grace).toMatchObject({ customerId: 'grace@books.example', customerPseudonym: null, arguments: { orderId: 'BK-1001', customerId: 'grace@books.example' } });

      // Nothing is older than a day yet: counted and deleted alike, none.
      expect(await data().expireToolTrials(86_400, true)).toBe(0);
      expect(await data().expireToolTrials(86_400, false)).toBe(0);
      await sleep(20);
      expect(await data().expireToolTrials(0.005, true)).toBe(2);
      expect(await data().toolTrialPage(null, 10)).toHaveLength(2);
      expect(await data().expireToolTrials(0.005, false)).toBe(2);
      expect(await data().toolTrialPage(null, 10)).toEqual([]);
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

    const hybrid = (text: string, embedding: number[], count = 4, minSimilarity = 0.5, closestPassage = false) =>
      knowledge().hybridSearch({ text, embedding, embeddingModel: MODEL, count, minSimilarity, history: [], fullTextWeight: 1, semanticWeight: 1, closestPassage });
    const worded = (source: string, chunkIndex: number, content: string, embedding: number[]): DocumentChunk => ({
      ...chunk(source, chunkIndex, embedding),
      content,
      contentHash: `hash-${source}-${chunkIndex}-${content.length}`,
    });

    it("weighs each document's coverage of a question by its words' idf, a word no document holds at the most", async () => {
      await knowledge().replaceSourceChunks('docs/payments.md', [worded('docs/payments.md', 0, 'Klarna lets you pay for your order later.', unit(5))]);
      await knowledge().replaceSourceChunks('docs/shipping.md', [worded('docs/shipping.md', 0, 'Your order ships in 3 to 5 days.', unit(0))]);
      await knowledge().replaceSourceChunks('docs/returns.md', [worded('docs/returns.md', 0, 'Return your order within 30 days.', unit(1))]);
      const sources = ['docs/payments.md', 'docs/shipping.md', 'docs/returns.md'];

      // "order" is in every document (idf near 0), "Klarna" in one: payments holds almost all of the question.
      const klarna = await knowledge().queryCoverage('Can I pay for my order with Klarna?', sources);
      expect(klarna.get('docs/payments.md')).toBeCloseTo(1, 5);
      expect(klarna.get('docs/shipping.md')!).toBeLessThan(0.1);
      // A word no document holds weighs the most: the best document holds less than half of this question.
      const gift = await knowledge().queryCoverage('Do you sell gift cards for an order?', sources);
      expect(Math.max(...gift.values())).toBeLessThan(0.5);
      expect(Math.max(...gift.values())).toBeGreaterThan(0);
      // Stop words alone: no coverage at all, and no sources asked: none.
      expect((await knowledge().queryCoverage('Can I do it?', sources)).size).toBe(0);
      expect((await knowledge().queryCoverage('Klarna', [])).size).toBe(0);
    });

    it('hybrid search finds an exact word the vectors miss, and reports its similarity as it is', async () => {
      await knowledge().replaceSourceChunks('docs/payments.md', [worded('docs/payments.md', 0, 'Klarna pay-in-30 lets you pay later.', unit(5))]);
      await knowledge().replaceSourceChunks('docs/shipping.md', [worded('docs/shipping.md', 0, 'Standard delivery takes 3 to 5 days.', unit(0))]);

      // The query vector points at shipping, far from payments; the word Klarna is only in payments.
      const found = await hybrid('Can I use Klarna?', unit(0));
      expect(found.map((d) => d.source)).toEqual(expect.arrayContaining(['docs/payments.md', 'docs/shipping.md']));
      const payments = found.find((d) => d.source === 'docs/payments.md')!;
      expect(payments.fullTextRank).toBe(1);
      expect(payments.similarity).toBeCloseTo(0, 5); // below the floor, yet found by its word
      const shipping = found.find((d) => d.source === 'docs/shipping.md')!;
      expect(shipping.fullTextRank).toBeNull();
      expect(shipping.similarity).toBeCloseTo(1, 5);

      // Without the word, only the vector side answers, and the floor applies to it.
      expect((await hybrid('What does it cost?', unit(0))).map((d) => d.source)).toEqual(['docs/shipping.md']);
      expect(await hybrid('?', unit(7))).toEqual([]);
    });

    it('hybrid search ranks a chunk both sides found above one that either side found alone', async () => {
      await knowledge().replaceSourceChunks('docs/a.md', [worded('docs/a.md', 0, 'Refunds are issued within 5 to 7 business days.', unit(0, 1, 0.3))]);
      await knowledge().replaceSourceChunks('docs/b.md', [worded('docs/b.md', 0, 'Refunds for gift cards are not possible.', unit(3))]);
      await knowledge().replaceSourceChunks('docs/c.md', [worded('docs/c.md', 0, 'Express parcels travel by air.', unit(0))]);

      const found = await hybrid('How long do refunds take?', unit(0), 4, 0.5);
      // a: found by both; c: nearest vector, no word; b: a word, far vector (each side alone scores at most 1).
      expect(found.map((d) => d.source)).toEqual(['docs/a.md', expect.any(String), expect.any(String)]);
      expect(found.slice(1).map((d) => d.source).sort()).toEqual(['docs/b.md', 'docs/c.md']);
      const [a, ...others] = found.map((d) => d.evidence!);
      expect(a!.fullTextScore).toBeGreaterThan(0.5);
      expect(a!.documentSimilarity).toBeGreaterThan(0.9);
      for (const o of others) expect(a!.score).toBeGreaterThan(o.score);
      expect(found.find((d) => d.source === 'docs/c.md')!.evidence).toMatchObject({ fullTextScore: 0, semanticRank: 1 });
    });

    it('hybrid search cites each document once before any document twice', async () => {
      await knowledge().replaceSourceChunks('docs/long.md', [0, 1, 2].map((i) => worded('docs/long.md', i, `Warranty claims, section ${i}: warranty repairs.`, unit(0, i + 1, 0.1))));
      await knowledge().replaceSourceChunks('docs/short.md', [worded('docs/short.md', 0, 'A warranty card is in the box.', unit(9))]);

      const found = await hybrid('warranty', unit(0), 3, -1);
      expect(found).toHaveLength(3);
      expect(new Set(found.slice(0, 2).map((d) => d.source))).toEqual(new Set(['docs/long.md', 'docs/short.md']));
      expect(found[2]!.source).toBe('docs/long.md');
    });

    it("hybrid search hands over the best document's closest chunk by meaning beside its chunk by words, when asked", async () => {
      // "long" is rare, so the words pick chunk 0 ("as long as"); chunk 1 is what the vector asks for.
      await knowledge().replaceSourceChunks('docs/refunds.md', [
        worded('docs/refunds.md', 0, 'A partial refund applies as long as the box is missing.', unit(0, 5, 0.6)),
        worded('docs/refunds.md', 1, 'We issue the refund within 5 business days.', unit(0)),
        worded('docs/refunds.md', 2, 'Refunds go to the original payment method.', unit(6)),
      ]);
      await knowledge().replaceSourceChunks('docs/returns.md', [worded('docs/returns.md', 0, 'Returns are free for a refund or an exchange.', unit(7))]);
      await knowledge().replaceSourceChunks('docs/gifts.md', [worded('docs/gifts.md', 0, 'Gift cards are never refunded.', unit(8))]);

      // Not asked (a model answers): each document once, the refunds' chunk chosen by its words.
      expect((await hybrid('How long does a refund take?', unit(0), 3, -1)).map((d) => [d.source, d.chunkIndex])[0]).toEqual(['docs/refunds.md', 0]);
      expect(await hybrid('How long does a refund take?', unit(0), 3, -1)).toHaveLength(3);

      const found = await hybrid('How long does a refund take?', unit(0), 3, -1, true);
      // One row more than asked: the best document's two, then every other chosen document once.
      expect(found.map((d) => [d.source, d.chunkIndex])).toEqual([
        ['docs/refunds.md', 0],
        ['docs/refunds.md', 1],
        [expect.any(String), 0],
        [expect.any(String), 0],
      ]);
      expect(new Set(found.slice(2).map((d) => d.source))).toEqual(new Set(['docs/returns.md', 'docs/gifts.md']));
      expect(found[1]!.similarity).toBeCloseTo(1, 5);
      expect(found[1]!.evidence).toEqual(found[0]!.evidence);
      // When the words and the meaning choose the same chunk, nothing is added.
      expect(await hybrid('When is the refund issued?', unit(0), 3, -1, true)).toHaveLength(3);
      expect(await hybrid('How long does a refund take?', unit(0), 0, -1, true)).toEqual([]);
    });

    it('hybrid search never cuts an English word it lacks into two it has', async () => {
      await knowledge().replaceSourceChunks('docs/phones.md', [worded('docs/phones.md', 0, 'A smart speaker pairs with your phone.', unit(0))]);
      // Only German, Dutch and the Nordic languages' words are read as compounds.
      expect(await hybrid('smartphones', unit(9), 4, 0.5)).toEqual([]);
      expect((await hybrid('smart phones', unit(9), 4, 0.5)).map((d) => d.source)).toEqual(['docs/phones.md']);
    });

    it("reads a customer's spelling of a word the knowledge base lacks as the knowledge base's own word: umlauts written out, one typo, a hyphen", async () => {
      const german = (source: string, content: string, embedding: number[]): DocumentChunk => ({
        ...worded(source, 0, content, embedding),
        language: 'de',
        textConfig: 'german',
      });
      await knowledge().replaceSourceChunks('de/rueckgabe.md', [german('de/rueckgabe.md', 'Du kannst jedes Fahrrad innerhalb von 30 Tagen zurückgeben.', unit(0))]);
      await knowledge().replaceSourceChunks('de/groessen.md', [german('de/groessen.md', 'Die richtige Größe des Rahmens hängt von deiner Schrittlänge ab.', unit(1))]);
      await knowledge().replaceSourceChunks('de/versand.md', [german('de/versand.md', 'Der Versand dauert drei Werktage, auch für Fahrräder.', unit(2))]);
      await knowledge().replaceSourceChunks('de/zubehoer.md', [german('de/zubehoer.md', 'Zubehör wird noch am selben Tag versandt. Der Versand ist ab 50 Euro frei.', unit(3))]);
      await knowledge().replaceSourceChunks('de/werkstatt.md', [german('de/werkstatt.md', 'Der Service für dein E-Bike kostet 89 Euro.', unit(4))]);
      const sources = ['de/rueckgabe.md', 'de/groessen.md', 'de/versand.md', 'de/zubehoer.md', 'de/werkstatt.md'];
      // The query's vector is far from every chunk: what is found, its words found.
      const byWords = async (text: string) => (await hybrid(text, unit(9), 2)).map((d) => d.source);
      const coverage = async (text: string, source: string) => (await knowledge().queryCoverage(text, sources)).get(source) ?? 0;

      // "ue", "oe" for "ü", "ö"; one letter swapped; "ebike" for "E-Bike".
      expect((await byWords('kann ich das zurueckgeben'))[0]).toBe('de/rueckgabe.md');
      expect((await byWords('welche groesse'))[0]).toBe('de/groessen.md');
      expect((await byWords('infos zum versnad'))[0]).toBe('de/versand.md');
      expect(await byWords('ebike')).toEqual(['de/werkstatt.md']);
      // Each counts as the word written right in the coverage confidence reads.
      for (const [customer, written, source] of [
        ['Kann ich das Fahrrad zurueckgeben?', 'Kann ich das Fahrrad zurückgeben?', 'de/rueckgabe.md'],
        ['Welche Groesse hat der Rahmen?', 'Welche Größe hat der Rahmen?', 'de/groessen.md'],
        ['Dauert der Versnad drei Werktage?', 'Dauert der Versand drei Werktage?', 'de/versand.md'],
      ] as const) {
        expect(await coverage(written, source)).toBeGreaterThan(0.5);
        expect(await coverage(customer, source)).toBeCloseTo(await coverage(written, source), 5);
      }

      // A word the knowledge base holds is read as it is: "versandt" is not "Versand", though one edit away and in fewer documents.
      expect(await byWords('wann versandt')).toEqual(['de/zubehoer.md']);
      // A word three edits from any the knowledge base holds, or a short one, is not corrected: it stays the question's rarest word.
      expect(await byWords('versxyzand')).toEqual([]);
      expect(await byWords('ersand')).toEqual([]);
      expect(await coverage('Wie lange dauert der Versxyzand?', 'de/versand.md')).toBeLessThan(0.5);
    });

    it('refuses to compare a query with vectors of another embedding model, and lists the models stored', async () => {
      expect(await knowledge().listEmbeddingModels()).toEqual([]);
      await knowledge().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(0))]);
      await knowledge().replaceSourceChunks('docs/old.md', [chunk('docs/old.md', 0, unit(0), 'old-embedder')]);
      expect(await knowledge().listEmbeddingModels()).toEqual([MODEL, 'old-embedder'].sort());
      await expect(query(unit(0))).rejects.toBeInstanceOf(EmbeddingModelMismatchError);
      await expect(query(unit(0))).rejects.toThrow(/old-embedder/);
      await expect(hybrid('anything', unit(0))).rejects.toBeInstanceOf(EmbeddingModelMismatchError);
    });

    describe('KnowledgeAdminStore', () => {
      const admin = () => subject.knowledgeAdmin!;

      it('lists sources by name with title, chunk count, content hash, model and size; pages and searches titles and names', async () => {
        await admin().replaceSourceChunks('docs/b.md', [0, 1].map((i) => chunk('docs/b.md', i, unit(i))));
        await admin().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(2))]);
        await admin().replaceSourceChunks('docs/100%_c.md', [chunk('docs/100%_c.md', 0, unit(3))]);

        const all = await admin().listSources({ limit: 10 });
        expect(all.sources.map((s) => s.source)).toEqual(['docs/100%_c.md', 'docs/a.md', 'docs/b.md']);
        expect(all.nextAfter).toBeNull();
        expect(all.sources[2]).toMatchObject({
          title: 'Title of docs/b.md',
          chunkCount: 2,
          embeddingModel: MODEL,
          charCount: 'chunk 0 of docs/b.md'.length * 2,
          contentHash: sourceContentHash(['hash-docs/b.md-0', 'hash-docs/b.md-1']),
        });
        expect(all.sources[2]!.updatedAt).toBeInstanceOf(Date);

        const first = await admin().listSources({ limit: 2 });
        expect(first.nextAfter).toBe('docs/a.md');
        expect((await admin().listSources({ limit: 2, after: first.nextAfter! })).sources.map((s) => s.source)).toEqual(['docs/b.md']);
        // % and _ are literal in a search.
        expect((await admin().listSources({ limit: 10, text: '%_' })).sources.map((s) => s.source)).toEqual(['docs/100%_c.md']);
        expect((await admin().listSources({ limit: 10, text: 'TITLE OF DOCS/A' })).sources.map((s) => s.source)).toEqual(['docs/a.md']);
        expect(await admin().getSource('docs/a.md')).toMatchObject({ source: 'docs/a.md', chunkCount: 1 });
        expect(await admin().getSource('docs/none.md')).toBeNull();
      });

      it('reads a source’s chunks in order, and deletes a source whole (no longer matched)', async () => {
        await admin().replaceSourceChunks('docs/a.md', [0, 1, 2].map((i) => chunk('docs/a.md', i, unit(i))));
        await admin().replaceSourceChunks('docs/b.md', [chunk('docs/b.md', 0, unit(5))]);
        const chunks = await admin().sourceChunks('docs/a.md');
        expect(chunks.map((c) => [c.chunkIndex, c.content, c.contentHash])).toEqual([0, 1, 2].map((i) => [i, `chunk ${i} of docs/a.md`, `hash-docs/a.md-${i}`]));
        expect(chunks[0]!.metadata).toEqual({ headings: ['A', 'B'], chunk: 0 });

        expect(await admin().deleteSource('docs/a.md')).toBe(3);
        expect(await admin().deleteSource('docs/a.md')).toBe(0);
        expect(await admin().sourceChunks('docs/a.md')).toEqual([]);
        expect((await query(unit(0), 10)).map((d) => d.source)).toEqual(['docs/b.md']);
      });

      it('counts the sources answers cited and the questions that found nothing, from stored answers', async () => {
        await admin().replaceSourceChunks('docs/a.md', [chunk('docs/a.md', 0, unit(0))]);
        const cite = (source: string) => ({ title: `Title of ${source}`, source, score: 0.5 });
        const answered = (q: string, sources: string[], confidence: number, escalated: boolean): NewMessage[] => [
          user(q),
          { role: 'assistant', content: 'a', tokenCount: 1, confidence, escalated, metadata: { sources: sources.map(cite) } },
        ];
        await turn('insights-1', answered('Refunds?', ['docs/a.md', 'docs/gone.md'], 0.6, false));
        await turn('insights-1', answered('Telescopes?', [], 0.05, true));
        await turn('insights-2', answered('  telescopes? ', [], 0.1, true));
        await turn('insights-2', answered('Refund time?', ['docs/a.md'], 0.15, false));

        const since = new Date(Date.now() - 3600_000);
        expect(await admin().mostCitedSources(since, 10)).toEqual([
          expect.objectContaining({ source: 'docs/a.md', title: 'Title of docs/a.md', answers: 2, inKnowledgeBase: true }),
          expect.objectContaining({ source: 'docs/gone.md', answers: 1, inKnowledgeBase: false }),
        ]);
        const nothing = await admin().unansweredQuestions(0.2, since, 10);
        expect(nothing.map((q) => [q.question.trim().toLowerCase(), q.times, q.escalated])).toEqual([
          ['telescopes?', 2, 2],
          ['refund time?', 1, 0],
        ]);
        expect(nothing[0]!.bestConfidence).toBeCloseTo(0.1, 5);
        expect(nothing[0]!.sessionId).toBe('insights-2');
        expect(await admin().mostCitedSources(new Date(Date.now() + 3600_000), 10)).toEqual([]);
      });

      it('lists each asking of a question the help center could not answer, newest first, bounded; not a request for a person or a failed tool', async () => {
        const answer = (q: string, confidence: number, escalated: boolean, escalationReason?: string): NewMessage[] => [
          user(q),
          { role: 'assistant', content: 'a', tokenCount: 1, confidence, escalated, ...(escalationReason && { escalationReason }) },
        ];
        await turn('asks-1', answer('Engraving?', 0.1, true, 'not_in_help_center'));
        await turn('asks-1', answer('A person please', 0.9, true, 'customer_asked'));
        await turn('asks-2', answer('Do you engrave?', 0.4, true, 'model'));
        await turn('asks-2', answer('Where is my order?', 0.1, true, 'tool_failed'));
        await turn('asks-3', answer('Gift cards?', 0.1, false));
        await turn('asks-3', answer('Refunds?', 0.8, false));
        await turn('asks-4', answer('Engraving??', 0.05, true));

        const since = new Date(Date.now() - 3600_000);
        const asks = await admin().unansweredAsks(0.2, since, 10);
        expect(asks.map((a) => [a.question, a.sessionId, a.escalated, a.escalationReason])).toEqual([
          ['Engraving??', 'asks-4', true, null],
          ['Gift cards?', 'asks-3', false, null],
          ['Do you engrave?', 'asks-2', true, 'model'],
          ['Engraving?', 'asks-1', true, 'not_in_help_center'],
        ]);
        expect(asks[0]!.askedAt).toBeInstanceOf(Date);
        expect(asks[1]!.confidence).toBeCloseTo(0.1, 5);
        expect((await admin().unansweredAsks(0.2, since, 2)).map((a) => a.question)).toEqual(['Engraving??', 'Gift cards?']);
        expect(await admin().unansweredAsks(0.2, new Date(Date.now() + 3600_000), 10)).toEqual([]);
      });
    });
  });
}
