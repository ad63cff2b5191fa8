import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { capToolOutput, type CountMessageTokens } from '../../memory/context';
import { applyInputCeiling, windowLimitsFor } from '../../memory/input-ceiling';
import {
  compactStrategy,
  noneStrategy,
  summarizeStrategy,
  trimStrategy,
  windowStrategy,
  type StrategyInput,
  type StrategyResult,
} from '../../memory/strategies';
import type { Summarizer } from '../../memory/summarizer';
import type { Logger } from '../../observability/logger';
import type { ChatStore } from '../../store/types';
import { buildSystemPrompt, formatKnowledge } from '../prompts';
import type { SupportStateType, SupportStateUpdate } from '../state';

export interface ApplyMemoryOptions {
  instructions: string;
  countTokens: CountMessageTokens;
  toolOutputMaxChars: number;
  summarizer: Summarizer;
  store: Pick<ChatStore, 'saveSummary'>;
  /** The window the service loaded (window mode re-applies it to the capped messages). */
  windowLimits: { maxMessages: number; maxTokens: number };
  /** MODEL_INPUT_MAX_TOKENS: the most one model call is sent, applied after the strategy. */
  inputMaxTokens: number;
  logger: Logger;
}

/**
 * apply_memory: turns the loaded durable history into what the model is sent,
 * with the conversation's memory strategy. It runs after retrieval because the
 * triggers count the whole prompt: instructions, knowledge and the question too.
 * A new rolling summary is stored at once, so it is made only once.
 */
export function makeApplyMemoryNode(options: ApplyMemoryOptions) {
  return async function applyMemory(state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> {
    const system = buildSystemPrompt({ instructions: options.instructions, crossSessionMemory: state.cross_session_memory });
    const knowledge = formatKnowledge(state.retrieved_documents);
    const fixedTokens =
      options.countTokens({ content: system }) + options.countTokens({ content: knowledge }) + options.countTokens({ content: state.query });
    const input: StrategyInput = {
      messages: state.conversation_history.map((m) => capToolOutput(m, options.toolOutputMaxChars, options.countTokens)),
      state: state.memory_state,
      settings: state.memory_settings,
      fixedTokens,
      countTokens: options.countTokens,
      historyTokensTotal: state.history_tokens_total,
      historyMessagesTotal: state.history_messages_total,
    };

    let result: StrategyResult;
    switch (input.settings.mode) {
      case 'none':
        result = noneStrategy(input);
        break;
      case 'window':
        // The limits the service loaded the window with.
        result = windowStrategy(input, windowLimitsFor(input.settings.token_budget, options.windowLimits, options.inputMaxTokens));
        break;
      case 'trim':
        result = trimStrategy(input);
        break;
      case 'compact':
        result = compactStrategy(input);
        break;
      case 'summarize': {
        const summarized = await summarizeStrategy(input, (request) =>
          options.summarizer.summarize({ ...request, signal: config.signal }),
        );
        if (summarized.summarizerError) {
          if (config.signal?.aborted) throw summarized.summarizerError;
          options.logger.warn(
            { err: summarized.summarizerError, session_id: state.session_id, summary_model: options.summarizer.model },
            'The summarizer failed: trimming this conversation instead',
          );
        }
        if (summarized.newState) {
          await options.store.saveSummary(state.session_id, {
            summary: summarized.newState.summary!,
            throughSeq: summarized.newState.summarizedThroughSeq!,
            shareWithUser: state.memory_injection && state.user_id !== null,
          });
        }
        result = summarized;
        break;
      }
    }

    // The operator's ceiling, after whatever the strategy did.
    result = applyInputCeiling(result, fixedTokens, options.inputMaxTokens);

    return {
      system_prompt: system,
      knowledge_prompt: knowledge,
      model_history: result.messages,
      memory_report: result.report,
      compacted_by_tool: result.compactedByTool,
    };
  };
}
