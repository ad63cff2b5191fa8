import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatOpenAI } from '@langchain/openai';
import type { Config } from '../config';
import type { TokenCounter } from '../memory/tokens';
import { ExtractiveChatModel, OFFLINE_CHAT_MODEL } from './extractive-chat-model';
import { retryRateLimitsWithBackoff } from './retries';

/** What the offline responder needs of the shop (its order numbers, to call lookup_order, and its offline notice) and of the embedder (its reading of meaning). */
export type OfflineShopWords = Pick<ConstructorParameters<typeof ExtractiveChatModel>[1] & object, 'orderNumbers' | 'offlineNotice' | 'offlineNoticeFor' | 'meaning'>;

/** A chat model and the name answers are recorded under. */
export interface ChatModelChoice {
  model: BaseChatModel;
  name: string;
}

/**
 * ChatOpenAI when an API key is set, with a bounded timeout and few retries (the
 * client's own defaults, ten minutes and six retries, would hold a customer for
 * minutes behind a dead model); the offline extractive responder otherwise.
 */
export function createChatModel(config: Config, tokenCounter: TokenCounter, model = config.openai.chatModel, offline: OfflineShopWords = {}): ChatModelChoice {
  const { apiKey, baseURL, timeoutMs, maxRetries } = config.openai;
  if (!apiKey) {
    return { model: new ExtractiveChatModel(tokenCounter, { streamPieceDelayMs: config.offlineStreamDelayMs, ...offline }), name: OFFLINE_CHAT_MODEL };
  }
  return {
    model: new ChatOpenAI({
      model,
      apiKey,
      temperature: 0.2,
      timeout: timeoutMs,
      maxRetries,
      onFailedAttempt: retryRateLimitsWithBackoff,
      configuration: baseURL ? { baseURL } : undefined,
    }),
    name: model,
  };
}
