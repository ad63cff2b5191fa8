import { createHash } from 'node:crypto';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { ModelTimeoutError, ModelUnavailableError } from '../../errors';
import { traceModelCall, usageOf } from '../../observability/instrument';
import type { Tracing } from '../../observability/langfuse';
import type { CountMessageTokens } from '../../memory/context';
import { truncateToolOutput } from '../../memory/context';
import { applyInputCeiling, toolDefinitionTokens } from '../../memory/input-ceiling';
import { OFFLINE_NOTHING_CLEARS, OFFLINE_OWN_WORDS_SUPPORT, OFFLINE_QUOTE_SUPPORT } from '../../models/extractive-chat-model';
import { buildPromptMessages } from '../prompts';
import { handOffOf } from '../tools/hand-off-to-person';
import { derivedFromTools, type ToolList } from '../tool-list';
import type { Logger } from '../../observability/logger';
import { DEGRADED_MODEL, type SupportStateType, type SupportStateUpdate } from '../state';

/** Rounds of tool calls in one turn before the model must answer with what it has. */
export const MAX_TOOL_ROUNDS = 4;

export interface GenerateResponseOptions {
  chatModel: BaseChatModel;
  modelName: string;
  /** The tools the model is offered, read per run (see ToolList). */
  tools: ToolList;
  /** Deadline for each model call, retries included (OPENAI_TIMEOUT_MS). */
  timeoutMs: number;
  toolOutputMaxChars: number;
  /** Answers when the model fails (MODEL_FALLBACK=offline): the offline responder. */
  fallbackModel?: BaseChatModel;
  logger: Logger;
  /** Each model call as a generation (model, token usage) of the request's trace. */
  tracing?: Tracing;
  /** Send OpenAI's prompt_cache_key (promptCacheKeyFor the session) with every call (OPENAI_PROMPT_CACHE_KEY, default on). */
  sendPromptCacheKey?: boolean;
  /** Tokens of a message as a chat request costs it. */
  countTokens: CountMessageTokens;
  /** MODEL_INPUT_MAX_TOKENS: checked again before each call after a tool round, whose results count too. */
  inputMaxTokens: number;
}

/**
 * The conversation's prompt cache key: the same for every request of a session, so
 * the provider routes them to where its prefix is cached. A hash, so the session id
 * itself never leaves the service.
 */
export function promptCacheKeyFor(sessionId: string): string {
  return `conv-${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`;
}

/**
 * generate_response: sends the model the system prompt, the history as the
 * memory strategy left it, the question and this turn's tool results so far. A
 * reply with tool calls goes to the tools node and comes back here; a reply in
 * words is the answer, with its token usage and whether the offline responder found
 * nothing that answers (the judge, after the graph, decides whether it is escalated).
 */
export function makeGenerateResponseNode(options: GenerateResponseOptions) {
  // Bound and counted once per set of tools, not per run.
  const withToolsNow = derivedFromTools(options.tools, (tools) => {
    const withTools = (model: BaseChatModel): Runnable<BaseMessage[], AIMessage> =>
      tools.length > 0 && model.bindTools ? model.bindTools(tools) : model;
    return {
      primary: { withTools: withTools(options.chatModel), plain: options.chatModel },
      fallback: options.fallbackModel ? { withTools: withTools(options.fallbackModel), plain: options.fallbackModel } : null,
      toolTokens: toolDefinitionTokens(tools, (text) => options.countTokens({ content: text })),
    };
  });

  return async function generateResponse(
    state: SupportStateType,
    config: LangGraphRunnableConfig,
  ): Promise<SupportStateUpdate> {
    const { primary, fallback, toolTokens } = withToolsNow();
    // After a tool round its calls and results are sent too: the ceiling counts them, and
    // leaves out more of the oldest history if they do not fit beside it.
    const ceiling = state.messages.length > 0 ? ceilingWithToolRounds(state, options, toolTokens) : null;
    const history = ceiling?.model_history ?? state.model_history;
    const messages = buildPromptMessages({
      system: state.system_prompt,
      history,
      knowledge: state.knowledge_prompt,
      question: state.query,
      turn: state.messages,
      toolOutputMaxChars: options.toolOutputMaxChars,
    });
    const callOptions = options.sendPromptCacheKey ? { promptCacheKey: promptCacheKeyFor(state.session_id) } : {};
    const toolRounds = state.messages.filter((m) => m.getType() === 'ai').length;
    const pick = (choice: typeof primary) => (toolRounds < MAX_TOOL_ROUNDS ? choice.withTools : choice.plain);

    // Once the turn fell back to the offline responder it stays with it.
    const fellBackBefore = state.degraded.includes(DEGRADED_MODEL) && fallback !== null;
    let reply: AIMessage;
    let degraded: string[] = [];
    try {
      reply = await traceModelCall(options.tracing, options.modelName, messages, () =>
        invokeWithDeadline(pick(fellBackBefore ? fallback : primary), messages, config, options, callOptions),
      );
    } catch (error) {
      const modelFailed = error instanceof ModelUnavailableError || error instanceof ModelTimeoutError;
      if (!fallback || fellBackBefore || !modelFailed || config.signal?.aborted) throw error;
      options.logger.warn({ err: error, cause: error.cause, session_id: state.session_id }, 'The model failed: the offline responder answers (MODEL_FALLBACK=offline)');
      reply = await traceModelCall(options.tracing, options.modelName, messages, () => invokeWithDeadline(pick(fallback), messages, config, options, callOptions));
      degraded = [DEGRADED_MODEL];
    }
    const usage = usageOf(reply);
    const model = (reply.response_metadata?.model_name as string | undefined) ?? options.modelName;
    if (reply.tool_calls?.length && toolRounds < MAX_TOOL_ROUNDS) {
      return { messages: [reply], usage, degraded, model, ...ceiling };
    }

    const finalText = reply.text.trim();
    if (finalText === '') {
      throw new ModelUnavailableError(`The language model (${options.modelName}) returned an empty answer. Please try again.`);
    }
    // What the model wrote beside its tool calls this turn ("Let me look that up.") was
    // streamed to the customer, so it stays part of the answer they are given and shown.
    // Whether the answer goes to a person is the judge's to say (src/chat/escalation.ts), after the graph.
    return {
      response: answerText(state.messages, finalText),
      nothing_answers: reply.response_metadata?.[OFFLINE_NOTHING_CLEARS] === true,
      quote_support: typeof reply.response_metadata?.[OFFLINE_QUOTE_SUPPORT] === 'number' ? reply.response_metadata[OFFLINE_QUOTE_SUPPORT] : 0,
      own_words_support: typeof reply.response_metadata?.[OFFLINE_OWN_WORDS_SUPPORT] === 'number' ? reply.response_metadata[OFFLINE_OWN_WORDS_SUPPORT] : 0,
      usage,
      degraded,
      model,
      ...ceiling,
    };
  };
}

/**
 * The operator's ceiling before a call that follows a tool round: the tool definitions,
 * instructions, knowledge, question and this turn's tool calls and results, plus the
 * history, must fit in MODEL_INPUT_MAX_TOKENS; the oldest whole turns of the history
 * go when they do not. The memory report then says what was sent at most.
 */
function ceilingWithToolRounds(
  state: SupportStateType,
  options: GenerateResponseOptions,
  toolTokens: number,
): Pick<SupportStateUpdate, 'model_history' | 'memory_report'> {
  const count = options.countTokens;
  const fixed = count({ content: state.system_prompt }) + count({ content: state.knowledge_prompt }) + count({ content: state.query });
  const turnTokens = state.messages.reduce((sum, m) => {
    if (m.getType() === 'tool') return sum + count({ content: truncateToolOutput(m.text, options.toolOutputMaxChars), name: m.name ?? null });
    const calls = (m as AIMessage).tool_calls?.map((c) => ({ id: c.id ?? '', name: c.name, arguments: c.args }));
    return sum + count({ content: m.text, ...(calls?.length && { tool_calls: calls }) });
  }, 0);
  const previous = state.memory_report;
  const result = applyInputCeiling({ messages: state.model_history, report: previous, compactedByTool: {} }, fixed, options.inputMaxTokens, toolTokens + turnTokens);
  const dropped = (previous.input_ceiling?.dropped_turns ?? 0) + result.report.input_ceiling.dropped_turns;
  return {
    model_history: result.messages,
    memory_report: {
      ...result.report,
      input_ceiling: {
        ...previous.input_ceiling,
        ...result.report.input_ceiling,
        dropped_turns: dropped,
        input_tokens: Math.max(previous.input_ceiling?.input_tokens ?? 0, result.report.input_ceiling.input_tokens ?? 0),
      },
    },
  };
}

/** Between the texts of one answer's model calls: a blank line (the stream sends the same). */
export const ANSWER_TEXT_SEPARATOR = '\n\n';

function joinAnswerTexts(texts: string[]): string {
  return texts.filter((t) => t !== '').join(ANSWER_TEXT_SEPARATOR);
}

/** The words of this turn's tool-calling replies, trimmed, in order. */
function spokenBesideToolCalls(turn: BaseMessage[]): string[] {
  return turn.filter((m) => m.getType() === 'ai').map((m) => m.text.trim());
}

/** The answer's text: what the model said beside this turn's tool calls, then its final words (empty when it wrote none). */
export function answerText(turn: BaseMessage[], finalText = ''): string {
  return joinAnswerTexts([...spokenBesideToolCalls(turn), finalText]);
}

/** After generate_response: run the tools it asked for, or finish. */
export function routeAfterResponse(state: SupportStateType): 'tools' | '__end__' {
  return state.response === undefined ? 'tools' : '__end__';
}

/** After the tools: the model answers with their results, unless it handed the conversation to a person (the turn ends there). */
export function routeAfterTools(state: SupportStateType): 'generate_response' | '__end__' {
  return handOffOf(state.messages) ? '__end__' : 'generate_response';
}

async function invokeWithDeadline(
  model: Runnable<BaseMessage[], AIMessage>,
  messages: BaseMessage[],
  config: LangGraphRunnableConfig,
  options: GenerateResponseOptions,
  callOptions: { promptCacheKey?: string },
): Promise<AIMessage> {
  // Our own deadline, checked by its signal: the client's timeout errors are not
  // reliably recognisable (under some runtimes they surface as connection errors).
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = config.signal ? AbortSignal.any([config.signal, deadline]) : deadline;
  try {
    // Call options beyond RunnableConfig (promptCacheKey) reach ChatOpenAI; other models ignore them.
    return await model.invoke(messages, { ...config, signal, ...callOptions } as LangGraphRunnableConfig);
  } catch (error) {
    if (config.signal?.aborted) throw error;
    if (deadline.aborted) {
      throw new ModelTimeoutError(
        `The language model did not answer within ${options.timeoutMs} ms (${options.modelName}).`,
        { cause: error },
      );
    }
    // The upstream text goes to the log (as the cause), not to the customer: it
    // can name internals, and OpenAI's auth errors echo part of the API key.
    throw new ModelUnavailableError(`The language model (${options.modelName}) is unavailable. Please try again.`, {
      cause: error,
    });
  }
}
