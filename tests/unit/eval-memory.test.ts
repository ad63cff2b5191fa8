import type { ContextMessage } from '../../src/memory/context';
import { aggregate, isRetained, retainedShare, tokenBreakdown, type ProbeRecord } from '../../scripts/eval-memory';

function message(role: ContextMessage['role'], content: string, extra: Partial<ContextMessage> = {}): ContextMessage {
  return { role, content, tokens: 10, ...extra };
}

function record(tokensSent: number, needed: number, retained: number, toolHeavy = true): ProbeRecord {
  return {
    conversationId: 'c',
    toolHeavy,
    probeIndex: 0,
    tokensSent,
    withSummary: false,
    breakdown: tokenBreakdown([]),
    needed,
    retained,
    lost: [],
  };
}

describe('eval:memory scoring', () => {
  it('finds a fact in message text, in tool-call arguments and in the summary pair', () => {
    const fact = { text: 'ZX-14440' };
    expect(isRetained(fact, [message('user', 'My order number is ZX-14440.')])).toBe(true);
    const call = message('assistant', '', { tool_calls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'ZX-14440' } }] });
    expect(isRetained(fact, [call])).toBe(true);
    const summary = message('user', 'Summary of the earlier part:\n- Customer: My order number is ZX-14440.', { synthetic: true });
    expect(isRetained(fact, [summary])).toBe(true);
  });

  it('does not find a fact that only a compacted tool result carried', () => {
    const placeholder = message('tool', '⟦removed: tool output for lookup_order (call_id=call_1); reason=context_compaction⟧', {
      compacted: true,
      tool_call_id: 'call_1',
    });
    expect(isRetained({ text: 'PostNord' }, [message('user', 'Where is it?'), placeholder])).toBe(false);
  });

  it('matches the exact text only (case and spelling matter)', () => {
    expect(isRetained({ text: 'a phone call after 6pm' }, [message('user', 'Please contact me by a phone call after 6pm.')])).toBe(true);
    expect(isRetained({ text: 'a phone call after 6pm' }, [message('user', 'Please contact me by phone after 6 pm.')])).toBe(false);
    expect(isRetained({ text: 'Gdańsk' }, [message('user', 'Ship it to Gdansk.')])).toBe(false);
  });

  it('aggregates tokens and retained shares over probes', () => {
    const stats = aggregate([record(1000, 2, 2), record(3000, 1, 0), record(2000, 1, 1)]);
    expect(stats).toEqual({ probes: 3, meanTokens: 2000, maxTokens: 3000, factsNeeded: 4, factsRetained: 3 });
    expect(retainedShare(stats)).toBe(0.75);
    expect(aggregate([])).toEqual({ probes: 0, meanTokens: 0, maxTokens: 0, factsNeeded: 0, factsRetained: 0 });
  });

  it('splits a view into text, tool calls, whole results, placeholders and the summary pair', () => {
    const view = [
      message('user', 'summary', { synthetic: true, tokens: 50 }),
      message('assistant', 'ack', { synthetic: true, tokens: 5 }),
      message('user', 'question', { tokens: 7 }),
      message('assistant', '', { tokens: 20, tool_calls: [{ id: 'a', name: 'lookup_order', arguments: {} }] }),
      message('tool', 'placeholder', { tokens: 30, compacted: true }),
      message('tool', 'json', { tokens: 900 }),
      message('assistant', 'answer', { tokens: 12 }),
    ];
    expect(tokenBreakdown(view)).toEqual({
      'user + assistant text': 19,
      'tool calls': 20,
      'whole tool results': 900,
      placeholders: 30,
      'summary pair': 55,
    });
  });
});
