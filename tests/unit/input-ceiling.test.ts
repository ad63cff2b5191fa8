import type { ContextMessage } from '../../src/memory/context';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { createSupportTools } from '../../src/agent/tools';
import type { OrderProofs } from '../../src/identity/order-proofs';
import type { Retriever } from '../../src/knowledge/retriever';
import { applyInputCeiling, historyLoadBound, publicStrategyRefusal, toolDefinitionTokens } from '../../src/memory/input-ceiling';
import type { CommerceStore } from '../../src/store/commerce-store';
import { noneStrategy, summaryPair } from '../../src/memory/strategies';
import { withDefaults } from '../../src/memory/settings';

const countTokens = (m: { content: string }) => 3 + Math.ceil(m.content.length / 4);
const message = (role: ContextMessage['role'], content: string, extra: Partial<ContextMessage> = {}): ContextMessage => ({
  role,
  content,
  tokens: countTokens({ content }),
  ...extra,
});

/** Ten turns of about 100 tokens each; turn 5 has a tool call and its result. */
function conversation(): ContextMessage[] {
  const messages: ContextMessage[] = [];
  for (let i = 0; i < 10; i++) {
    messages.push(message('user', `question ${i} `.padEnd(200, 'q'), { seq: messages.length + 1 }));
    if (i === 5) {
      messages.push(message('assistant', '', { seq: messages.length + 1, tool_calls: [{ id: 'c1', name: 'lookup_order', arguments: {} }] }));
      messages.push(message('tool', '{"status":"shipped"}', { seq: messages.length + 1, tool_call_id: 'c1', name: 'lookup_order' }));
    }
    messages.push(message('assistant', `answer ${i} `.padEnd(200, 'a'), { seq: messages.length + 1 }));
  }
  return messages;
}

function run(messages: ContextMessage[], fixedTokens: number, maxTokens: number) {
  const result = noneStrategy({ messages, state: { summary: null, summarizedThroughSeq: null }, settings: withDefaults({ mode: 'none' }), fixedTokens, countTokens });
  return applyInputCeiling(result, fixedTokens, maxTokens);
}

describe('the ceiling on one model call, after the strategy', () => {
  it('leaves a prompt within the ceiling as the strategy made it, and says it did not cut', () => {
    const messages = conversation();
    const capped = run(messages, 500, 100_000);
    expect(capped.messages).toEqual(messages);
    expect(capped.report.input_ceiling).toEqual({ max_tokens: 100_000, dropped_turns: 0, input_tokens: capped.report.tokens_after });
  });

  it('counts what the strategy does not (tool definitions, this turn\'s tool rounds) against the ceiling, but not in tokens_after', () => {
    const messages = conversation();
    const history = messages.reduce((sum, m) => sum + m.tokens, 0);
    // Fits by itself; with 600 tokens of tool definitions and tool results beside it, it does not.
    const result = noneStrategy({ messages, state: { summary: null, summarizedThroughSeq: null }, settings: withDefaults({ mode: 'none' }), fixedTokens: 500, countTokens });
    const alone = applyInputCeiling(result, 500, 500 + history);
    expect(alone.report.input_ceiling.dropped_turns).toBe(0);
    const withTools = applyInputCeiling(result, 500, 500 + history, 600);
    expect(withTools.report.input_ceiling.dropped_turns).toBeGreaterThan(0);
    expect(withTools.report.input_ceiling.input_tokens).toBeLessThanOrEqual(500 + history);
    expect(withTools.report.input_ceiling.input_tokens).toBe(withTools.report.tokens_after + 600);
    expect(withTools.messages[0]!.role).toBe('user');
  });

  it('counts the tool definitions as the chat completions API receives them', () => {
    const tool = createSupportTools({ commerce: {} as CommerceStore, retriever: {} as Retriever, orderProofs: {} as OrderProofs }).find((t) => t.name === 'lookup_order')!;
    const rendered = JSON.stringify(convertToOpenAITool(tool));
    expect(rendered).toContain('lookup_order');
    expect(toolDefinitionTokens([tool], (text) => text.length)).toBe(rendered.length);
    expect(toolDefinitionTokens([tool, tool], (text) => text.length)).toBe(2 * rendered.length);
  });

  it('drops the oldest whole turns until the prompt fits, never splitting a tool call from its result, starting on a user turn', () => {
    const capped = run(conversation(), 500, 1000);
    expect(capped.report.tokens_after).toBeLessThanOrEqual(1000);
    expect(capped.report.input_ceiling!.dropped_turns).toBeGreaterThan(0);
    expect(capped.report.trimmed_turns).toBe(capped.report.input_ceiling!.dropped_turns);
    expect(capped.messages[0]!.role).toBe('user');
    expect(capped.messages.at(-1)!.content).toMatch(/^answer 9/);
    const calls = capped.messages.filter((m) => m.tool_calls?.length).length;
    const results = capped.messages.filter((m) => m.role === 'tool').length;
    expect(calls).toBe(results);
  });

  it('drops every turn when the instructions and the question alone fill the ceiling', () => {
    const capped = run(conversation(), 5000, 4000);
    expect(capped.messages).toEqual([]);
    expect(capped.report.input_ceiling!.dropped_turns).toBe(10);
  });

  it('counts the summary pair as the oldest turn', () => {
    const messages = [...summaryPair('Earlier: the customer asked about ZX-14440.', countTokens), ...conversation().slice(-2)];
    const capped = run(messages, 100, 100 + messages.at(-2)!.tokens + messages.at(-1)!.tokens);
    expect(capped.messages.map((m) => m.synthetic ?? false)).toEqual([false, false]);
    expect(capped.report.input_ceiling!.dropped_turns).toBe(1);
  });

  it('bounds history loading to the ceiling in tokens and in messages (each costs at least its framing)', () => {
    expect(historyLoadBound(16_000)).toEqual({ maxTokens: 16_000, maxMessages: 5334 });
  });
});

describe('what a public caller (no agent key) may ask for', () => {
  it('any mode but none, and token fields up to the ceiling', () => {
    expect(publicStrategyRefusal({ mode: 'none' }, 16_000)).toMatch(/mode "none" needs the agent key/);
    for (const mode of ['window', 'trim', 'summarize', 'compact'] as const) expect(publicStrategyRefusal({ mode }, 16_000)).toBeNull();
    expect(publicStrategyRefusal({ mode: 'window', token_budget: 16_000 }, 16_000)).toBeNull();
    for (const field of ['token_budget', 'token_soft_budget', 'context_window_tokens', 'summary_token_budget'] as const) {
      expect(publicStrategyRefusal({ mode: 'summarize', [field]: 16_001 }, 16_000)).toContain(`memory_strategy.${field} may be at most 16000`);
    }
    expect(publicStrategyRefusal({ mode: 'trim', max_turns: 100_000, keep_last_n_turns: 1000 }, 16_000)).toBeNull();
  });
});
