import { AIMessage, HumanMessage, ToolMessage, trimMessages, type BaseMessage } from '@langchain/core/messages';
import { TokenCounter } from '../../src/memory/tokens';
import type { SqlDatabase } from '../../src/store/database';
import type { SqlStore } from '../../src/store/sql-store';
import type { NewMessage } from '../../src/store/types';
import { openTestStore } from '../support/database';
import { seededRandom } from '../support/seeded-random';

/** [role, tokens] pairs; tool chains are written as assistant-with-call then tool. */
type Spec = Array<['user' | 'assistant' | 'call' | 'tool' | 'system', number]>;

let db: SqlDatabase;
let store: SqlStore;
let sessionCounter = 0;

beforeAll(async () => {
  ({ db, store } = await openTestStore());
});
afterAll(async () => {
  await db.close();
});

/** Stores a conversation as one turn (seq 1…n) and returns its session id. */
async function storeConversation(spec: Spec): Promise<string> {
  const sessionId = `window-${++sessionCounter}`;
  let callId = 0;
  const messages: NewMessage[] = spec.map(([kind, tokens], i) => {
    if (kind === 'call') {
      callId++;
      return { role: 'assistant', content: '', tokenCount: tokens, toolCalls: [{ id: `call_${callId}`, name: 'lookup_order', arguments: {} }] };
    }
    if (kind === 'tool') return { role: 'tool', content: `result ${i}`, tokenCount: tokens, toolCallId: `call_${callId}`, name: 'lookup_order' };
    return { role: kind, content: `${kind} ${i + 1}`, tokenCount: tokens };
  });
  await store.appendTurn({ sessionId, userId: null, agentType: 'support', messages });
  return sessionId;
}

async function windowSeqs(sessionId: string, maxTokens: number, maxMessages = 100): Promise<number[]> {
  const window = await store.loadHistoryWindow(sessionId, { maxMessages, maxTokens });
  return window.map((m) => m.seq);
}

describe('the history window (history_window SQL function)', () => {
  it('returns every message, oldest first, when all fit', async () => {
    const session = await storeConversation([['user', 10], ['assistant', 10], ['user', 10], ['assistant', 10]]);
    expect(await windowSeqs(session, 40)).toEqual([1, 2, 3, 4]);
  });

  it('includes a message that fills the budget exactly, and drops it one token short', async () => {
    const session = await storeConversation([['user', 10], ['assistant', 10], ['user', 10], ['assistant', 10]]);
    expect(await windowSeqs(session, 40)).toEqual([1, 2, 3, 4]);
    // 39 tokens: message 1 no longer fits; message 2 would then open on an orphan reply, so it goes too.
    expect(await windowSeqs(session, 39)).toEqual([3, 4]);
  });

  it('stops at the first message that would overflow, even when older ones are small', async () => {
    const session = await storeConversation([['user', 5], ['assistant', 5], ['user', 500], ['assistant', 10], ['user', 10], ['assistant', 10]]);
    expect(await windowSeqs(session, 100)).toEqual([5, 6]);
  });

  it('is empty when the newest message alone exceeds the budget', async () => {
    const session = await storeConversation([['user', 10], ['assistant', 5000]]);
    expect(await windowSeqs(session, 4000)).toEqual([]);
  });

  it('caps the number of messages, then still starts on a user turn', async () => {
    const session = await storeConversation([['user', 1], ['assistant', 1], ['user', 1], ['assistant', 1], ['user', 1], ['assistant', 1]]);
    expect(await windowSeqs(session, 4000, 4)).toEqual([3, 4, 5, 6]);
    expect(await windowSeqs(session, 4000, 3)).toEqual([5, 6]);
  });

  it('never starts on a tool result or a tool call whose user turn was cut', async () => {
    const session = await storeConversation([
      ['user', 10], ['call', 10], ['tool', 300], ['assistant', 20],
      ['user', 10], ['call', 10], ['tool', 30], ['assistant', 20],
    ]);
    // Budget reaches back to the first chain's tool result: it must not open the window.
    expect(await windowSeqs(session, 400)).toEqual([5, 6, 7, 8]);
    expect(await windowSeqs(session, 10_000)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('leaves system messages out of the window', async () => {
    const session = await storeConversation([['system', 50], ['user', 10], ['assistant', 10]]);
    expect(await windowSeqs(session, 4000)).toEqual([2, 3]);
  });

  it('is empty for a session that does not exist', async () => {
    expect(await windowSeqs('no-such-session', 4000)).toEqual([]);
  });
});

describe('the history window agrees with LangChain trimMessages (strategy "last", same token counter)', () => {
  const counter = new TokenCounter('gpt-4o-mini');
  const words = ['refund', 'order', 'NW-482913', 'shipping', 'thanks', '🙂', 'Zustellung', '配送', 'the', 'parcel'];

  /** A random support conversation: user turns, answers, and tool chains. */
  function randomConversation(random: () => number): NewMessage[] {
    const text = () => Array.from({ length: 1 + Math.floor(random() * 60) }, () => words[Math.floor(random() * words.length)]).join(' ');
    const messages: NewMessage[] = [];
    const turns = 1 + Math.floor(random() * 12);
    for (let t = 0; t < turns; t++) {
      const push = (m: Omit<NewMessage, 'tokenCount'>) => messages.push({ ...m, tokenCount: counter.countMessage({ content: m.content, tool_calls: m.toolCalls, name: m.name }) });
      push({ role: 'user', content: text() });
      const chains = random() < 0.4 ? 1 + Math.floor(random() * 2) : 0;
      for (let c = 0; c < chains; c++) {
        const id = `call_${t}_${c}`;
        push({ role: 'assistant', content: '', toolCalls: [{ id, name: 'lookup_order', arguments: { order_id: 'NW-482913' } }] });
        push({ role: 'tool', content: text(), toolCallId: id, name: 'lookup_order' });
      }
      push({ role: 'assistant', content: text() });
    }
    return messages;
  }

  function toLangChain(m: NewMessage): BaseMessage {
    if (m.role === 'user') return new HumanMessage(m.content);
    if (m.role === 'tool') return new ToolMessage({ content: m.content, tool_call_id: m.toolCallId!, name: m.name });
    return new AIMessage({
      content: m.content,
      tool_calls: m.toolCalls?.map((c) => ({ id: c.id, name: c.name, args: c.arguments, type: 'tool_call' as const })),
    });
  }

  /** The same per-message cost the store saves, recomputed from each LangChain message. */
  function countLangChain(messages: BaseMessage[]): number {
    return messages.reduce((sum, m) => {
      const toolCalls = (m as AIMessage).tool_calls?.length
        ? (m as AIMessage).tool_calls!.map((c) => ({ id: c.id, name: c.name, arguments: c.args }))
        : undefined;
      const name = m.getType() === 'tool' ? (m as ToolMessage).name : undefined;
      return sum + counter.countMessage({ content: m.text, tool_calls: toolCalls, name });
    }, 0);
  }

  it('selects the same messages on 150 random conversations and budgets', async () => {
    const random = seededRandom(20261122);
    let nonTrivial = 0;
    for (let i = 0; i < 150; i++) {
      const messages = randomConversation(random);
      const total = messages.reduce((s, m) => s + m.tokenCount, 0);
      const budget = Math.floor(random() * total * 1.1);
      const sessionId = `random-${i}`;
      await store.appendTurn({ sessionId, userId: null, agentType: 'support', messages });

      // No message cap here: trimMessages has none, so that is where the rules are meant to agree.
      const ours = (await store.loadHistoryWindow(sessionId, { maxMessages: 10_000, maxTokens: budget })).map((m) => m.content);
      const theirs = (
        await trimMessages(messages.map(toLangChain), {
          maxTokens: budget,
          strategy: 'last',
          tokenCounter: countLangChain,
          startOn: 'human',
          allowPartial: false,
        })
      ).map((m) => m.text);

      expect({ case: i, budget, window: ours }).toEqual({ case: i, budget, window: theirs });
      if (ours.length > 0 && ours.length < messages.length) nonTrivial++;
    }
    // The comparison means something only if many windows were partial.
    expect(nonTrivial).toBeGreaterThan(50);
  });
});
