import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { parseKnowledge, type PromptPassage } from '../agent/prompts';
import { tokenizeWords } from '../knowledge/embeddings';
import type { TokenCounter } from '../memory/tokens';

export const OFFLINE_CHAT_MODEL = 'offline-extractive';

/** How many passages an offline answer quotes, and at most how many sentences of each. */
const PASSAGES_QUOTED = 2;
const SENTENCES_QUOTED = 3;

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

/** The offline answer: the notice, then the best excerpt of the best passages with their sources. */
export function composeExtractiveAnswer(question: string, passages: PromptPassage[]): string {
  if (passages.length === 0) {
    return `${OFFLINE_NOTICE} I found nothing in the help center about that.`;
  }
  const questionWords = new Set(tokenizeWords(question));
  const quotes = passages
    .slice(0, PASSAGES_QUOTED)
    .map((p) => `From "${p.title}" (${p.source}):\n> ${bestExcerpt(p.content, questionWords)}`);
  return `${OFFLINE_NOTICE} Here is what it says:\n\n${quotes.join('\n\n')}`;
}

/**
 * The run of up to SENTENCES_QUOTED consecutive sentences, within one paragraph,
 * that covers the most distinct question words (the earliest on a tie). Help
 * centers answer in paragraphs, so a paragraph keeps the answer with its context.
 */
function bestExcerpt(content: string, questionWords: Set<string>): string {
  let best = { text: '', covered: -1 };
  for (const paragraph of paragraphsOf(content)) {
    const sentences = paragraph.split(/(?<=[.!?])\s+/).filter((s) => s.length > 0);
    for (let start = 0; start < Math.max(1, sentences.length - SENTENCES_QUOTED + 1); start++) {
      const text = sentences.slice(start, start + SENTENCES_QUOTED).join(' ');
      const covered = new Set(tokenizeWords(text).filter((w) => questionWords.has(w))).size;
      if (covered > best.covered) best = { text, covered };
    }
  }
  return best.text;
}

/** Paragraphs of prose: headings dropped (they are titles, not answers), list markers and bold removed. */
function paragraphsOf(content: string): string[] {
  return content
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .split('\n')
        .filter((line) => !/^\s*#/.test(line))
        .map((line) => line.replace(/^\s*(?:[-*]|\d+\.)\s+/, '').replaceAll('**', '').trim())
        .join(' ')
        .trim(),
    )
    .filter((p) => p.length > 0);
}
