import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ContextMessage } from '../../src/memory/context';
import { ExtractiveSummarizer, capSummary } from '../../src/memory/summarizer';
import { TokenCounter } from '../../src/memory/tokens';
import type { ToolCall } from '../../src/store/types';

const counter = new TokenCounter('gpt-4o-mini');
const summarizer = new ExtractiveSummarizer(counter);

const EVAL_FILE = path.resolve(__dirname, '../fixtures/eval-conversations.jsonl');

interface EvalConversation {
  id: string;
  messages: Array<{ role: ContextMessage['role']; content: string; tool_calls?: ToolCall[]; tool_call_id?: string; name?: string }>;
  facts: Array<{ id: string; text: string; seq: number }>;
}

function loadEvalSet(): Array<{ id: string; messages: ContextMessage[]; facts: EvalConversation['facts'] }> {
  return readFileSync(EVAL_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as EvalConversation)
    .map((c) => ({
      id: c.id,
      facts: c.facts,
      messages: c.messages.map((m, seq) => ({ ...m, tokens: counter.countMessage(m), seq })),
    }));
}

/** Where the last `turns` user turns begin (a user turn: a user message and what follows it). */
function startOfLastUserTurns(messages: ContextMessage[], turns: number): number {
  const userPositions = messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  return userPositions[userPositions.length - turns]!;
}

function message(role: ContextMessage['role'], content: string, extra: Partial<ContextMessage> = {}): ContextMessage {
  return { role, content, tokens: counter.countMessage({ content, ...extra }), ...extra };
}

const orderLookup: ToolCall = { id: 'call_1', name: 'lookup_order', arguments: { order_id: 'ZX-1' } };
const TOOL_OUTPUT = JSON.stringify({ order_id: 'ZX-1', carrier: 'PostNord', tracking_events: [{ location: 'Hub Q-7734', status: 'held' }] });

const supportChat: ContextMessage[] = [
  message('user', 'Hello! My name is Ana Silva and my order number is ZX-1.'),
  message('assistant', 'Hello! How can I help you today?'),
  message('user', 'Where is my parcel?'),
  message('assistant', '', { tool_calls: [orderLookup] }),
  message('tool', TOOL_OUTPUT, { tool_call_id: 'call_1', name: 'lookup_order' }),
  message('assistant', 'Thanks, I have noted order ZX-1. It shipped with PostNord on 2026-03-02.'),
  message('user', 'Great, thank you.'),
  message('assistant', 'Of course.'),
  message('user', 'Could you repeat that more simply?'),
  message('assistant', 'Take your time.'),
  message('user', 'Thanks'),
  message('user', 'I prefer email only, and please deliver the replacement to Rua Augusta 12 in Lisbon.'),
  message('assistant', 'Noted: the replacement goes to Rua Augusta 12 in Lisbon, and we will contact you by email only.'),
];

describe('the extractive summarizer, on the evaluation conversations', () => {
  it('finds the evaluation set beside the repository', () => {
    expect(existsSync(EVAL_FILE)).toBe(true);
  });

  it('keeps at least 90% of the facts of the summarized prefix verbatim, in a summary far smaller than the prefix', async () => {
    const tokenBudget = 1000;
    let factsInPrefix = 0;
    let factsRetained = 0;
    let prefixTokens = 0;
    let summaryTokens = 0;

    for (const conversation of loadEvalSet()) {
      // Everything but the last 2 user turns is summarized.
      const prefixEnd = startOfLastUserTurns(conversation.messages, 2);
      const prefix = conversation.messages.slice(0, prefixEnd);
      const summary = await summarizer.summarize({ previousSummary: null, messages: prefix, tokenBudget });

      const facts = conversation.facts.filter((f) => f.seq < prefixEnd);
      factsInPrefix += facts.length;
      factsRetained += facts.filter((f) => summary.includes(f.text)).length;
      const tokens = counter.countText(summary);
      expect(tokens).toBeLessThanOrEqual(tokenBudget);
      summaryTokens += tokens;
      prefixTokens += prefix.reduce((sum, m) => sum + m.tokens, 0);
    }

    expect(factsInPrefix).toBeGreaterThan(40);
    expect(factsRetained / factsInPrefix).toBeGreaterThanOrEqual(0.9);
    // Measured: about 4% of the prefix's tokens (tool outputs and repetition go).
    expect(summaryTokens / prefixTokens).toBeLessThan(0.1);
  });

  it('keeps the facts of both parts when a second part is merged into the first part’s summary', async () => {
    const conversation = loadEvalSet().find((c) => c.id === 'conv-7-0')!;
    const prefixEnd = startOfLastUserTurns(conversation.messages, 2);
    const split = 20; // part 1 holds the name, order, channel and carrier; part 2 the city
    const first = await summarizer.summarize({ previousSummary: null, messages: conversation.messages.slice(0, split), tokenBudget: 1000 });
    const rolled = await summarizer.summarize({
      previousSummary: first,
      messages: conversation.messages.slice(split, prefixEnd),
      tokenBudget: 1000,
    });

    const factsOfPart = (from: number, to: number) => conversation.facts.filter((f) => f.seq >= from && f.seq < to).map((f) => f.text);
    expect(factsOfPart(0, split)).toEqual(expect.arrayContaining(['Lukas Brandt', 'ZX-14440', 'a phone call after 6pm', 'PostNord']));
    expect(factsOfPart(split, prefixEnd)).toContain('Cork');
    for (const fact of factsOfPart(0, prefixEnd)) expect(rolled).toContain(fact);

    // The previous summary comes first, whole; sentences it already holds are not repeated.
    expect(rolled.startsWith(first)).toBe(true);
    const lines = rolled.split('\n');
    expect(new Set(lines).size).toBe(lines.length);
    expect(rolled.match(/It started last week/g)).toHaveLength(1);
  });
});

describe('the extractive summarizer', () => {
  it('keeps names, order numbers, preferences and addresses verbatim, as Customer and Agent bullet lines', async () => {
    const summary = await summarizer.summarize({ previousSummary: null, messages: supportChat, tokenBudget: 500 });
    expect(summary.split('\n').every((line) => /^- (Customer|Agent): /.test(line))).toBe(true);
    expect(summary).toContain('- Customer: My name is Ana Silva and my order number is ZX-1.'); // "Hello!" went
    expect(summary).toContain('I prefer email only, and please deliver the replacement to Rua Augusta 12 in Lisbon.');
    expect(summary).toContain('Thanks, I have noted order ZX-1.'); // an acknowledgement that carries a fact stays
  });

  it('drops greetings and acknowledgements that carry no fact', async () => {
    const summary = await summarizer.summarize({ previousSummary: null, messages: supportChat, tokenBudget: 500 });
    for (const filler of ['How can I help you today?', 'Great, thank you.', 'Of course.', 'Could you repeat that more simply?', 'Take your time.']) {
      expect(summary).not.toContain(filler);
    }
    expect(summary).not.toMatch(/^- Customer: Thanks$/m);
  });

  it('never copies tool outputs: a tool call leaves only a short note of what was looked up', async () => {
    const summary = await summarizer.summarize({ previousSummary: null, messages: supportChat, tokenBudget: 500 });
    expect(summary).not.toContain('Hub Q-7734');
    expect(summary).not.toContain('tracking_events');
    expect(summary).toContain('- Agent: called lookup_order (order_id: ZX-1)');
    expect(summary).toContain('It shipped with PostNord on 2026-03-02.'); // what the agent told the customer stays
  });

  it('keeps a sentence said many times once', async () => {
    const repeated = 'It started last week and happens almost every time I use it.';
    const messages = [
      message('user', `Also, the kettle leaks. ${repeated}`),
      message('user', `Also, the kettle rattles. ${repeated}`),
      message('user', repeated.toUpperCase()),
    ];
    const summary = await summarizer.summarize({ previousSummary: `- Customer: ${repeated}`, messages, tokenBudget: 500 });
    expect(summary).toBe([`- Customer: ${repeated}`, '- Customer: Also, the kettle leaks.', '- Customer: Also, the kettle rattles.'].join('\n'));
  });

  it('ignores system messages and synthetic ones (an earlier summary pair comes in as previousSummary)', async () => {
    const summary = await summarizer.summarize({
      previousSummary: null,
      messages: [
        message('system', 'You are the customer-support assistant of Acme.'),
        message('user', '[Conversation summary] - Customer: Old Name', { synthetic: true }),
        message('user', 'My order number is ZX-9.'),
      ],
      tokenBudget: 500,
    });
    expect(summary).toBe('- Customer: My order number is ZX-9.');
  });

  it('when over budget, drops the least informative lines first and keeps the rest in order', async () => {
    const full = await summarizer.summarize({ previousSummary: null, messages: supportChat, tokenBudget: 10_000 });
    const tokenBudget = Math.floor(counter.countText(full) / 2);
    const capped = await summarizer.summarize({ previousSummary: null, messages: supportChat, tokenBudget });

    expect(counter.countText(capped)).toBeLessThanOrEqual(tokenBudget);
    const fullLines = full.split('\n');
    const cappedLines = capped.split('\n');
    expect(cappedLines.length).toBeLessThan(fullLines.length);
    // Whole lines, in their original order.
    expect(fullLines.filter((line) => cappedLines.includes(line))).toEqual(cappedLines);
    // The tool-call note goes before the lines with the customer's facts.
    expect(capped).not.toContain('called lookup_order');
    expect(capped).toContain('Rua Augusta 12 in Lisbon');
  });

  it('never exceeds the budget, however small', async () => {
    for (const tokenBudget of [0, 1, 5, 12, 40]) {
      const summary = await summarizer.summarize({ previousSummary: '- Customer: My name is Ana Silva.', messages: supportChat, tokenBudget });
      expect(counter.countText(summary)).toBeLessThanOrEqual(tokenBudget);
    }
  });

  it('is deterministic and leaves its input untouched', async () => {
    const input = { previousSummary: '- Customer: My name is Ana Silva.', messages: supportChat, tokenBudget: 120 };
    const before = structuredClone(input);
    const first = await summarizer.summarize(input);
    const second = await summarizer.summarize(input);
    expect(second).toBe(first);
    expect(input).toEqual(before);
  });

  it('rejects when the caller has already given up', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(summarizer.summarize({ previousSummary: null, messages: supportChat, tokenBudget: 500, signal: controller.signal })).rejects.toThrow();
  });

  it('names itself as the offline model', () => {
    expect(summarizer.model).toBe('offline-extractive');
  });
});

describe('capSummary', () => {
  const lines = ['- Customer: My name is Ana Silva.', '- Customer: My order number is ZX-1. Please call me after 6pm.', '- Agent: It shipped with PostNord.'];
  const text = lines.join('\n');

  it('returns a summary within budget as it is', () => {
    expect(capSummary(text, 1000, counter)).toBe(text);
  });

  it('cuts at a line boundary', () => {
    const budget = counter.countText(lines.slice(0, 2).join('\n'));
    expect(capSummary(text, budget, counter)).toBe(lines.slice(0, 2).join('\n'));
  });

  it('cuts inside the first line that does not fit at a sentence boundary', () => {
    const budget = counter.countText(`${lines[0]}\n- Customer: My order number is ZX-1.`) + 1;
    expect(capSummary(text, budget, counter)).toBe(`${lines[0]}\n- Customer: My order number is ZX-1.`);
  });

  it('cuts hard only when not even one sentence fits', () => {
    const capped = capSummary('A single sentence far too long for a budget of three tokens', 3, counter);
    expect(counter.countText(capped)).toBeLessThanOrEqual(3);
    expect(capped.length).toBeGreaterThan(0);
    expect('A single sentence far too long for a budget of three tokens'.startsWith(capped)).toBe(true);
  });

  it('returns nothing for a budget of zero', () => {
    expect(capSummary(text, 0, counter)).toBe('');
  });
});
