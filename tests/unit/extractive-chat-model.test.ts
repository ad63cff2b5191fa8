import { HumanMessage } from '@langchain/core/messages';
import { buildPromptMessages, buildSystemPrompt, formatKnowledge } from '../../src/agent/prompts';
import { ExtractiveChatModel, OFFLINE_NOTHING_CLEARS, OFFLINE_NOTICE, OFFLINE_QUOTE_SUPPORT, composeExtractiveAnswer } from '../../src/models/extractive-chat-model';
import { TokenCounter } from '../../src/memory/tokens';
import type { RetrievedDocument } from '../../src/store/types';

const refunds: RetrievedDocument = {
  id: '1',
  source: 'knowledge/help-center/refunds.md',
  title: 'Refund Policy',
  chunkIndex: 0,
  content:
    '## Timing\nWe accept returns within 30 days of delivery. Refunds reach your original payment method within 5–7 business days after we receive the return. Gift cards cannot be refunded.',
  metadata: {},
  similarity: 0.4,
};

describe('the offline extractive responder', () => {
  it('answers with the sentences that match the question, names the source, and says it is offline', () => {
    const answer = composeExtractiveAnswer('How many business days until the refund reaches my payment method?', [
      { title: refunds.title, source: refunds.source, content: refunds.content },
    ]);
    expect(answer.nothingClears).toBe(false);
    expect(answer.text.startsWith(OFFLINE_NOTICE)).toBe(true);
    expect(answer.text).toContain('\u2014 Refund Policy (knowledge/help-center/refunds.md)');
    expect(answer.text).toContain('> Refunds reach your original payment method within 5–7 business days');
    expect(answer.text).not.toContain('## Timing');
  });

  it('answers with the notice alone, and says nothing clears, when no passage was retrieved', () => {
    expect(composeExtractiveAnswer('Anything?', [])).toEqual({ text: OFFLINE_NOTICE, nothingClears: true, quoteSupport: 0, ownWordsSupport: 0 });
  });

  it('is a LangChain chat model that reads the knowledge from the prompt and reports token usage', async () => {
    const counter = new TokenCounter('gpt-4o-mini');
    const model = new ExtractiveChatModel(counter);
    const messages = buildPromptMessages({
      system: buildSystemPrompt({}),
      history: [],
      knowledge: formatKnowledge([refunds]),
      question: 'How many business days until the refund reaches my payment method?',
      toolOutputMaxChars: 4000,
    });
    const reply = await model.invoke(messages);

    expect(reply.text).toContain('5–7 business days');
    // The judge reads how well the best quote holds the question: a question that shares only a word or two with the passage is held less.
    const support = reply.response_metadata[OFFLINE_QUOTE_SUPPORT] as number;
    const passage = [{ title: refunds.title, source: refunds.source, content: refunds.content }];
    expect(support).toBe(composeExtractiveAnswer('How many business days until the refund reaches my payment method?', passage).quoteSupport);
    expect(support).toBeGreaterThan(composeExtractiveAnswer('How many days does the courier need to reach Iceland?', passage).quoteSupport);
    expect(support).toBeLessThanOrEqual(1);
    expect(reply.usage_metadata?.input_tokens).toBeGreaterThan(counter.countText(messages[0]!.text));
    expect(reply.usage_metadata?.output_tokens).toBe(counter.countText(reply.text));
    expect(reply.usage_metadata?.total_tokens).toBe(reply.usage_metadata!.input_tokens + reply.usage_metadata!.output_tokens);
  });

  it('quotes nothing, and marks the reply for escalation, when the prompt carries no knowledge block', async () => {
    const reply = await new ExtractiveChatModel(new TokenCounter('gpt-4o-mini')).invoke([new HumanMessage('Hi')]);
    expect(reply.text).toBe(OFFLINE_NOTICE);
    expect(reply.response_metadata[OFFLINE_NOTHING_CLEARS]).toBe(true);
  });
});
