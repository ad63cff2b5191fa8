import fs from 'node:fs';
import path from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { buildPromptMessages, buildSystemPrompt, formatAnswerLanguage, formatKnowledge } from '../../src/agent/prompts';
import type { SentenceMeaning } from '../../src/models/sentence-meaning';
import { SEARCH_QUERY_MAX_CHARS } from '../../src/knowledge/search-query';
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

  it('lets meaning reorder its quotes in a language the encoder knows, and answers by words when the encoder fails', async () => {
    // A bicycle shop's workshop page first, as the retriever hands it over (tests/fixtures/judge-kb).
    const documents: RetrievedDocument[] = ['workshop.md', 'shipping.md'].map((file, i) => {
      const content = fs.readFileSync(path.join(__dirname, '../fixtures/judge-kb/en', file), 'utf8');
      return { ...refunds, id: String(i), source: file, title: content.split('\n')[0]!.replace('# ', ''), content };
    });
    const ask = (question: string, language: string) =>
      buildPromptMessages({ system: buildSystemPrompt({}), history: [], knowledge: `${formatKnowledge(documents)}\n\n${formatAnswerLanguage(language)}`, question, toolOutputMaxChars: 4000 });
    const firstQuote = (text: string) => text.split('\n').find((line) => line.startsWith('> '));
    const question = 'what guarantee do i get on a repair';
    const asked: string[][] = [];
    // A stand-in encoder that finds the warranty sentence closest: what the real one does (tests/integration/offline-judgement.test.ts).
    const meaning: SentenceMeaning = {
      languages: ['en'],
      closeness: async (_question, sentences) => {
        asked.push([...sentences]);
        return new Map(sentences.map((s) => [s, s.includes('warranty') ? 0.9 : 0.1]));
      },
    };
    const counter = new TokenCounter('gpt-4o-mini');
    const byWords = firstQuote((await new ExtractiveChatModel(counter).invoke(ask(question, 'en'))).text);
    expect(byWords).not.toContain('warranty');
    expect(firstQuote((await new ExtractiveChatModel(counter, { meaning }).invoke(ask(question, 'en'))).text)).toBe('> Parts we fit carry our two-year warranty.');
    expect(asked).toHaveLength(1);
    // Not asked in a language it does not know: the words' order stands.
    expect(firstQuote((await new ExtractiveChatModel(counter, { meaning }).invoke(ask(question, 'de'))).text)).toBe(byWords);
    expect(asked).toHaveLength(1);
    // A pasted essay reaches the encoder as the search reads it, bounded.
    const questions: string[] = [];
    const recording: SentenceMeaning = { languages: ['en'], closeness: async (q, sentences) => (questions.push(q), new Map(sentences.map((s) => [s, 0]))) };
    await new ExtractiveChatModel(counter, { meaning: recording }).invoke(ask(`${question} ${'and the repair again '.repeat(2000)}`, 'en'));
    expect(questions).toHaveLength(1);
    // Its two ends, joined by a space (boundedSearchText).
    expect(questions[0]!.length).toBeLessThanOrEqual(SEARCH_QUERY_MAX_CHARS + 1);
    const failing: SentenceMeaning = { languages: ['en'], closeness: async () => Promise.reject(new Error('encoder worker timed out')) };
    expect(firstQuote((await new ExtractiveChatModel(counter, { meaning: failing }).invoke(ask(question, 'en'))).text)).toBe(byWords);
  });
});
