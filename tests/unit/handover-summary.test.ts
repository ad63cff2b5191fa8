import { ToolMessage } from '@langchain/core/messages';
import { handoverSummary, type HandoverFacts } from '../../src/chat/handover-summary';
import type { SentToolCall } from '../../src/connectors/guarded-tool';

const facts = (over: Partial<HandoverFacts>): HandoverFacts => ({
  reason: 'not_in_help_center',
  question: 'Where is my parcel?',
  earlierQuestion: null,
  documents: [],
  confidence: 0.12,
  messages: [],
  ...over,
});

const failedCall = (name: string, failure: string): ToolMessage => {
  const artifact: SentToolCall = { kind: 'sent_tool_call', sent_arguments: { order_id: 'A1' }, bound: [], model_arguments: { order_id: 'A1' }, outcome: 'failed', failure };
  return new ToolMessage({ content: 'The system failed.', tool_call_id: 'call_1', name, artifact });
};

describe('the hand-over summary the service writes when the bot, not the model, hands over', () => {
  it('names the system that failed, and only a failure of the system (not a 4xx)', () => {
    expect(handoverSummary(facts({ reason: 'tool_failed', messages: [failedCall('order_status', 'timeout')] }))).toBe(
      'The customer asked “Where is my parcel?”. The shop\'s system failed on order_status, so it could not be looked up.',
    );
    expect(handoverSummary(facts({ reason: 'tool_failed', messages: [failedCall('order_status', 'http_404')] }))).toContain('failed on a lookup');
  });

  it('says when the help center could not be searched, or found nothing', () => {
    expect(handoverSummary(facts({ reason: 'knowledge_unavailable' }))).toBe('The customer asked “Where is my parcel?”. The help center could not be searched (the knowledge base was unavailable).');
    expect(handoverSummary(facts({}))).toBe('The customer asked “Where is my parcel?”. The help center search found no article.');
  });

  it('leaves the model’s hand-off to the model’s own summary', () => {
    expect(handoverSummary(facts({ reason: 'model' }))).toBeNull();
  });

  it('quotes a long message on one line, cut short', () => {
    const summary = handoverSummary(facts({ reason: 'customer_asked', question: `I want a person\n\n${'really '.repeat(5000)}now` }))!;
    expect(summary).toMatch(/^The customer asked for a person: “I want a person really really/);
    expect(summary).not.toContain('\n');
    expect(summary.length).toBeLessThan(260);
    expect(summary).toMatch(/…”\.$/);
  });
});
