import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { parseKnowledge, type PromptPassage } from '../agent/prompts';
import { tokenizeWords } from '../knowledge/embeddings';
import type { TokenCounter } from '../memory/tokens';

export const OFFLINE_CHAT_MODEL = 'offline-extractive';

/** How many passages and sentences per passage an offline answer quotes. */
const PASSAGES_QUOTED = 2;
const SENTENCES_PER_PASSAGE = 2;

export const OFFLINE_NOTICE = 'I am running in offline mode (no language model is configured), so I can only quote our help center.';

/**
 * The offline responder: a chat model that needs no network. It reads the
 * knowledge passages from the system prompt, exactly as a real model would see
 * them, and answers with the sentences that share the most words with the
 * question, each with its source. Same graph, same storage, no API key.
 */
export class ExtractiveChatModel extends BaseChatModel {
  constructor(
    private readonly tokenCounter: TokenCounter,
    params: BaseChatModelParams = {},
  ) {
    super(params);
  }

  _llmType(): string {
    return OFFLINE_CHAT_MODEL;
  }

  async _generate(messages: BaseMessage[], _options: this['ParsedCallOptions'], _run?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const systemPrompt = messages.find((m) => m.getType() === 'system')?.text ?? '';
    const question = [...messages].reverse().find((m) => m.getType() === 'human')?.text ?? '';
    const answer = composeExtractiveAnswer(question, parseKnowledge(systemPrompt));

    const promptTokens = messages.reduce((sum, m) => sum + this.tokenCounter.countMessage({ content: m.text }), 0);
    const completionTokens = this.tokenCounter.countText(answer);
    const message = new AIMessage({
      content: answer,
      usage_metadata: {
        input_tokens: promptTokens,
        output_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      response_metadata: { model_name: OFFLINE_CHAT_MODEL },
    });
    return { generations: [{ text: answer, message }] };
  }
}

/** The offline answer: the notice, then the best sentences of the best passages with their sources. */
export function composeExtractiveAnswer(question: string, passages: PromptPassage[]): string {
  if (passages.length === 0) {
    return `${OFFLINE_NOTICE} I found nothing in the help center about that.`;
  }
  const questionWords = new Set(tokenizeWords(question));
  const quotes = passages.slice(0, PASSAGES_QUOTED).map((p) => {
    const sentences = bestSentences(p.content, questionWords, SENTENCES_PER_PASSAGE);
    return `From "${p.title}" (${p.source}):\n> ${sentences.join(' ')}`;
  });
  return `${OFFLINE_NOTICE} Here is what it says:\n\n${quotes.join('\n\n')}`;
}

/** The sentences sharing most words with the question, kept in their original order. */
function bestSentences(content: string, questionWords: Set<string>, count: number): string[] {
  const sentences = content
    .split('\n')
    .filter((line) => !/^\s*#/.test(line)) // headings are titles, not answers
    .join(' ')
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.replace(/^[-*]\s+|\*\*/g, '').trim())
    .filter((s) => s.length > 0);
  const scored = sentences.map((text, index) => ({
    text,
    index,
    score: tokenizeWords(text).filter((w) => questionWords.has(w)).length,
  }));
  return scored
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index)
    .map((s) => s.text);
}
