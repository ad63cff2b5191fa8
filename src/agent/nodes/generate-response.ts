import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { ModelTimeoutError, ModelUnavailableError } from '../../errors';
import { buildPromptMessages } from '../prompts';
import type { SupportStateType, SupportStateUpdate } from '../state';

/** Appended when confidence is below the threshold: the customer is offered a person. */
export const HUMAN_HANDOFF_OFFER =
  'I am not confident I have the right answer, so I have flagged this conversation for our support team: a human agent can take over if you would like.';

export interface GenerateResponseOptions {
  chatModel: BaseChatModel;
  modelName: string;
  escalationThreshold: number;
  /** Deadline for the whole model call, retries included (OPENAI_TIMEOUT_MS). */
  timeoutMs: number;
  instructions?: string;
}

/**
 * generate_response: sends the model the instructions with the retrieved
 * knowledge, the history as role messages and the question last; records the
 * answer, its token usage and whether it had to be escalated.
 */
export function makeGenerateResponseNode(options: GenerateResponseOptions) {
  return async function generateResponse(
    state: SupportStateType,
    config: LangGraphRunnableConfig,
  ): Promise<SupportStateUpdate> {
    const messages = buildPromptMessages({
      instructions: options.instructions,
      documents: state.retrieved_documents,
      history: state.conversation_history,
      question: state.query,
    });

    // Our own deadline, checked by its signal: the client's timeout errors are not
    // reliably recognisable (under some runtimes they surface as connection errors).
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = config.signal ? AbortSignal.any([config.signal, deadline]) : deadline;

    let reply: AIMessage;
    try {
      reply = await options.chatModel.invoke(messages, { ...config, signal });
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

    const answer = reply.text.trim();
    if (answer === '') {
      throw new ModelUnavailableError(`The language model (${options.modelName}) returned an empty answer. Please try again.`);
    }
    const escalated = state.confidence < options.escalationThreshold;
    const usage = reply.usage_metadata;
    return {
      response: escalated ? `${answer}\n\n${HUMAN_HANDOFF_OFFER}` : answer,
      escalated,
      usage: {
        prompt_tokens: usage?.input_tokens ?? 0,
        completion_tokens: usage?.output_tokens ?? 0,
        total_tokens: usage?.total_tokens ?? 0,
      },
      model: (reply.response_metadata?.model_name as string | undefined) ?? options.modelName,
    };
  };
}
