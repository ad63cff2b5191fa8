import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelParams, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { answerLanguageOf, parseKnowledge, type PromptPassage } from '../agent/prompts';
import { foldDecimalDigits } from '../knowledge/language/digits';
import { boundedSearchText } from '../knowledge/search-query';
import type { TokenCounter } from '../memory/tokens';
import { orderNumberPattern, type OrderNumberFormat } from '../agent/tools/lookup-order';
import type { CustomerSentences } from '../agent/tools/conversation-customer';
import type { AnswerFields } from '../connectors/connector-config';
import { isSentToolCall } from '../connectors/guarded-tool';
import {
  answerFieldsOf,
  describeAnswer,
  offlineActionCall,
  offlineActionsOf,
  outcomeSentence,
  proofsInText,
  readStringFields,
  runHasVerifiedCustomer,
  runSentences,
  type OfflineAction,
} from './offline-actions';
import { rankSentences } from './sentence-ranking';
import type { SentenceMeaning } from './sentence-meaning';

export const OFFLINE_CHAT_MODEL = 'offline-extractive';

/**
 * Set on the offline responder's reply (response_metadata) when no sentence of the passages
 * answers the question: generate_response escalates the turn, as it does on low confidence.
 */
export const OFFLINE_NOTHING_CLEARS = 'offline_nothing_clears';

/**
 * Set on the offline responder's reply (response_metadata) beside its quotes: the best support
 * any quoted sentence has, its share of the question's word weight (ScoredSentence.coverage,
 * 0–1). The judge answers a strongly supported quote whatever retrieval's confidence.
 */
export const OFFLINE_QUOTE_SUPPORT = 'offline_quote_support';

/**
 * Set on the offline responder's reply (response_metadata): the highest coverage any sentence of the
 * passages has of the question's own words, without the previous message's (SentenceRanking.bestCoverage).
 * A follow-up whose own words find nothing ("who won the world cup?" after a shipping question) is not
 * carried by the conversation's article.
 */
export const OFFLINE_OWN_WORDS_SUPPORT = 'offline_own_words_support';

/** The first sentence of an offline answer, unless the shop file's `words.offline_notice` says otherwise. */
export const OFFLINE_NOTICE =
  'I am running in offline mode (no language model is configured), so I can only quote our help center and our records.';

/**
 * The order lookup's arguments from a message: the order number (in the shop's
 * format, as customers type it: "ZX-14440", "zx 14440", "#ZX14440") and any
 * e-mail address or postcode given with it. Without a format nothing is taken
 * for an order number.
 */
export function orderLookupArguments(typed: string, format: OrderNumberFormat | null = null): { order_id: string; email?: string; postcode?: string } | null {
  // Digits of every script as their values: "ZX-١٤٤٤٠" is ZX-14440.
  const orderId = format ? orderNumberPattern(format, false).exec(foldDecimalDigits(typed))?.[0] : undefined;
  if (!orderId) return null;
  return { order_id: orderId, ...proofsInText(typed) };
}

/**
 * The offline responder: a chat model that needs no network. It reads the
 * knowledge passages sent with the question, exactly as a real model would see
 * them, and answers with the sentences that share the most words with the
 * question, each with its source. Same graph, same storage, no API key.
 */
export class ExtractiveChatModel extends BaseChatModel {
  constructor(
    private readonly tokenCounter: TokenCounter,
    private readonly options: {
      /** Pause between streamed pieces, so a streamed offline answer arrives as a hosted one would. */
      streamPieceDelayMs?: number;
      /** The tools it may call (bindTools); it calls them by simple rules. */
      toolNames?: readonly string[];
      /** The shop's read-only actions it may call by the rule of offline-actions.ts (set by bindTools). */
      offlineActions?: readonly OfflineAction[];
      /** The fields each tool of the shop's systems is read out from (set by bindTools). */
      answerFields?: Record<string, AnswerFields | null>;
      /** The shop's order numbers, which make it call lookup_order or a read-only action (offline-actions.ts); null or absent: it never does. */
      orderNumbers?: OrderNumberFormat | null;
      /** The answer's first sentence (the shop file's `words.offline_notice`); default OFFLINE_NOTICE. */
      offlineNotice?: string;
      /** The shop's offline notice in a language (its `words.<lang>.offline_notice`, else the default set's). */
      offlineNoticeFor?: (language: string) => string;
      /** Reads the best candidate sentences' closeness in meaning to the question (the offline encoder), in the languages it knows. */
      meaning?: SentenceMeaning;
    } & BaseChatModelParams = {},
  ) {
    super(options);
  }

  override bindTools(tools: BindToolsInput[]): ExtractiveChatModel {
    return new ExtractiveChatModel(this.tokenCounter, {
      ...this.options,
      toolNames: tools.map(toolNameOf),
      offlineActions: offlineActionsOf(tools),
      answerFields: answerFieldsOf(tools),
    });
  }

  _llmType(): string {
    return OFFLINE_CHAT_MODEL;
  }

  async _generate(messages: BaseMessage[], _options: this['ParsedCallOptions'], _run?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const message = await this.reply(messages);
    return { generations: [{ text: message.text, message }] };
  }

  /**
   * The same reply in word-sized pieces, as a hosted model streams: the answer's
   * text first, then a last chunk with the tool call (if any) and the token usage.
   */
  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    run?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const reply = await this.reply(messages);
    const delayMs = this.options.streamPieceDelayMs ?? 0;
    for (const piece of reply.text.match(/\s*\S+\s*/g) ?? []) {
      if (delayMs > 0) await setTimeout(delayMs, undefined, { signal: options.signal });
      yield new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece }) });
      await run?.handleLLMNewToken(piece);
    }
    yield new ChatGenerationChunk({
      text: '',
      message: new AIMessageChunk({
        content: '',
        tool_call_chunks: reply.tool_calls?.map((c, index) => ({ id: c.id, name: c.name, args: JSON.stringify(c.args), index, type: 'tool_call_chunk' as const })),
        usage_metadata: reply.usage_metadata,
        response_metadata: reply.response_metadata,
      }),
    });
  }

  /**
   * This turn's tool results answer it; otherwise an order number calls
   * lookup_order (with any e-mail address or postcode in the message, the proof
   * an anonymous lookup needs); otherwise the passages do.
   */
  private async reply(messages: BaseMessage[]): Promise<AIMessage> {
    const questionAt = messages.findLastIndex((m) => m.getType() === 'human');
    // This turn's knowledge block is the system message just before the question.
    const knowledge = messages.slice(0, Math.max(questionAt, 0)).findLast((m) => m.getType() === 'system')?.text ?? '';
    const question = messages[questionAt]?.text ?? '';
    // The customer's earlier messages; the previous one is a follow-up's topic ("How long does it take?").
    const earlierMessages = messages.slice(0, Math.max(questionAt, 0)).filter((m) => m.getType() === 'human').map((m) => m.text);
    const earlierMessage = earlierMessages.at(-1) ?? '';
    const toolResults = messages.slice(questionAt + 1).filter((m) => ToolMessage.isInstance(m));

    // The shop's notice in the customer's language, which the knowledge block names (formatAnswerLanguage).
    const language = answerLanguageOf(knowledge);
    const notice = (language && this.options.offlineNoticeFor?.(language)) || (this.options.offlineNotice ?? OFFLINE_NOTICE);
    const lookup = orderLookupArguments(question, this.options.orderNumbers ?? null);
    // lookup_order first (the sample shop's tables); else the shop's own read-only action, by its rule.
    const call =
      toolResults.length > 0
        ? null
        : lookup && (this.options.toolNames ?? []).includes('lookup_order')
          ? { name: 'lookup_order', args: lookup as Record<string, string> }
          : offlineActionCall({ message: question, earlier: earlierMessages }, this.options.offlineActions ?? [], this.options.orderNumbers ?? null, runHasVerifiedCustomer());
    const toolCall = call ? { id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`, ...call, type: 'tool_call' as const } : null;
    const passages = parseKnowledge(knowledge);
    const extractive =
      toolCall || toolResults.length > 0 ? null : composeExtractiveAnswer(question, passages, notice, earlierMessage, await this.closeness(language, question, passages, earlierMessage));
    const readOut = { language: language ?? 'en', sentences: runSentences(), answerFields: this.options.answerFields ?? {} };
    const answer = toolCall ? '' : toolResults.length > 0 ? composeToolAnswer(question, toolResults, notice, readOut) : extractive!.text;

    const promptTokens = messages.reduce((sum, m) => sum + this.tokenCounter.countMessage({ content: m.text }), 0);
    const completionTokens = this.tokenCounter.countText(answer) + (toolCall ? this.tokenCounter.countText(JSON.stringify(toolCall.args)) : 0);
    return new AIMessage({
      content: answer,
      tool_calls: toolCall ? [toolCall] : [],
      usage_metadata: {
        input_tokens: promptTokens,
        output_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      response_metadata: {
        model_name: OFFLINE_CHAT_MODEL,
        ...(extractive?.nothingClears && { [OFFLINE_NOTHING_CLEARS]: true }),
        ...(extractive && !extractive.nothingClears && { [OFFLINE_QUOTE_SUPPORT]: extractive.quoteSupport }),
        ...(extractive && { [OFFLINE_OWN_WORDS_SUPPORT]: extractive.ownWordsSupport }),
      },
    });
  }

  /** The best candidate sentences' closeness in meaning to the question, where the encoder knows the customer's language. */
  private async closeness(language: string | null, question: string, passages: PromptPassage[], earlierMessage: string): Promise<ReadonlyMap<string, number> | undefined> {
    const meaning = this.options.meaning;
    if (!meaning || !language || !meaning.languages.includes(language)) return undefined;
    const { candidates } = rankSentences(question, passages, earlierMessage);
    if (candidates.length < 2) return undefined;
    try {
      // The question as the search reads it: a pasted essay costs the encoder no more than a question.
      return await meaning.closeness(boundedSearchText(question), candidates);
    } catch {
      // Meaning only reorders: when the encoder's worker fails or times out, the words' order stands.
      return undefined;
    }
  }
}

/** The offline answer's text, and whether the passages answered the question at all. */
export interface ExtractiveAnswer {
  text: string;
  /** No sentence cleared the bar (rankSentences): the answer is the notice alone, and the turn is escalated. */
  nothingClears: boolean;
  /** The highest coverage of the question among the quoted sentences (0 when none is quoted). */
  quoteSupport: number;
  /** The highest coverage any sentence has of the question's own words, the previous message left out. */
  ownWordsSupport: number;
}

/**
 * The offline answer: the notice, then the sentences that answer the question, best
 * first, each with its passage's title and source. It adds no words of its own
 * beyond the notice (the shop's words, in the customer's language when it has them):
 * when nothing clears the bar, the answer is the notice alone, and the escalation
 * offer follows it (generate_response).
 */
export function composeExtractiveAnswer(
  question: string,
  passages: PromptPassage[],
  notice = OFFLINE_NOTICE,
  earlierMessage = '',
  closeness?: ReadonlyMap<string, number>,
): ExtractiveAnswer {
  const ranking = rankSentences(question, passages, earlierMessage, closeness);
  const ownWords = earlierMessage === '' ? ranking : rankSentences(question, passages);
  const quotes = ranking.quotes.map((q) => `> ${q.text}\n— ${q.title} (${q.source})`);
  return {
    text: [notice, ...quotes].filter((part) => part !== '').join('\n\n'),
    nothingClears: ranking.nothingClears,
    quoteSupport: Math.max(0, ...ranking.quotes.map((q) => q.coverage)),
    ownWordsSupport: ownWords.bestCoverage,
  };
}

/** How the offline answer reads the shop's systems' results to the customer. */
export interface ReadOut {
  /** The customer's language: labels and dates are written in it. */
  language: string;
  /** The shop's sentences in that language; null: the results' own words (a direct call, without a conversation). */
  sentences: CustomerSentences | null;
  /** Per tool of the shop's systems, the fields its answer is read from (null: every scalar field). */
  answerFields: Record<string, AnswerFields | null>;
}

/**
 * The offline answer from this turn's tool results: orders and profiles described,
 * passages quoted, the shop's systems' answers written as a sentence, and what
 * came of a call that gave none (not found, failed, not allowed) told in the shop's
 * sentence: the text written for a model (its instructions included) is never quoted.
 */
export function composeToolAnswer(question: string, results: ToolMessage[], notice = OFFLINE_NOTICE, readOut: ReadOut = { language: 'en', sentences: null, answerFields: {} }): string {
  const parts = results.map((result) => {
    if (result.name === 'lookup_order') return describeOrder(result.text) ?? result.text;
    const data = parseJsonObject(result.text);
    if (result.name === 'get_user_profile' && data) return describeProfile(data);
    if (result.name === 'search_knowledge_base') {
      const passages = parseKnowledge(result.text);
      if (passages.length > 0) return composeExtractiveAnswer(question, passages, '').text;
    }
    const outcome = isSentToolCall(result.artifact) ? result.artifact.outcome : 'answered';
    if (outcome !== 'answered') return readOut.sentences ? outcomeSentence(outcome, readOut.sentences) : result.text;
    const described = describeAnswer(result.text, readOut.answerFields[result.name ?? ''] ?? null, readOut.language);
    // JSON with nothing to read (an empty list): nothing was found, said in the shop's words, never the JSON.
    if (described === '') return readOut.sentences?.order_not_found ?? '';
    return described ?? result.text;
  });
  return `${notice} ${parts.join('\n\n')}`;
}

/**
 * Reads the order from lookup_order's JSON. The model's copy may be cut at
 * TOOL_OUTPUT_MAX_CHARS, so the fields are read leniently rather than parsed.
 */
function describeOrder(text: string): string | null {
  const [head = '', events = ''] = text.split('"tracking_events"');
  const order = readStringFields(head);
  const latest = readStringFields(events);
  if (!order['order_id']) return null;
  const shipped = order['carrier'] ? ` It went with ${order['carrier']}${order['ship_date'] ? ` on ${order['ship_date']}` : ''}` : '';
  const destination = order['destination_city'] ? ` to ${order['destination_city']}.` : shipped ? '.' : '';
  const tracking = latest['ts']
    ? ` Latest tracking (${latest['ts']}): ${latest['status']} at ${latest['location']}. ${latest['detail'] ?? ''}`.trimEnd()
    : '';
  return `Order ${order['order_id']} is ${order['status']?.replaceAll('_', ' ')}.${shipped}${destination}${tracking}`;
}

function describeProfile(profile: Record<string, unknown>): string {
  const history = Array.isArray(profile['purchase_history']) ? profile['purchase_history'].length : 0;
  return `Your account (${profile['name']}) is at ${profile['loyalty_tier']} tier, a member since ${profile['member_since']}, with ${history} earlier purchase(s) on record.`;
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function toolNameOf(tool: BindToolsInput): string {
  if ('name' in tool && typeof tool.name === 'string') return tool.name;
  if ('function' in tool && tool.function && typeof tool.function === 'object' && 'name' in tool.function) return String(tool.function.name);
  return '';
}
