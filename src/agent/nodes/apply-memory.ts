import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { capToolOutput, type CountMessageTokens } from '../../memory/context';
import { applyInputCeiling, toolDefinitionTokens, windowLimitsFor } from '../../memory/input-ceiling';
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
import { buildSystemPrompt, formatAnswerLanguage, formatKnowledge } from '../prompts';
import { derivedFromTools, toolsNow, type ToolList } from '../tool-list';
import type { SideModelCall } from '../../models/token-usage';
import type { SupportStateType, SupportStateUpdate } from '../state';
import { promptCacheKeyFor } from './generate-response';

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
  /** The tools the answering model is offered (read per run): their definitions count against the ceiling. */
  tools: ToolList;
  /** Send the conversation's prompt_cache_key with the summary's call, as with the answer's (OPENAI_PROMPT_CACHE_KEY). */
  sendPromptCacheKey?: boolean;
  logger: Logger;
}

/**
 * apply_memory: turns the loaded durable history into what the model is sent,
 * with the conversation's memory strategy. It runs after retrieval because the
 * triggers count the whole prompt: instructions, knowledge and the question too.
 * A new rolling summary is stored at once, so it is made only once.
 */
export function makeApplyMemoryNode(options: ApplyMemoryOptions) {
  // Counted once per set of tools, not per run.
  const toolTokensNow = derivedFromTools(options.tools, (tools) => toolDefinitionTokens(tools, (text) => options.countTokens({ content: text })));
  return async function applyMemory(state: SupportStateType, config: LangGraphRunnableConfig): Promise<SupportStateUpdate> {
    const toolTokens = toolTokensNow();
    const system = buildSystemPrompt({ instructions: options.instructions, crossSessionMemory: state.cross_session_memory });
    // The customer's language goes with the passages, just before the question, where models heed it most.
    const knowledge = state.language
      ? `${formatKnowledge(state.retrieved_documents)}\n\n${formatAnswerLanguage(state.language)}`
      : formatKnowledge(state.retrieved_documents);
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
      // The room the strategy's count (no tool definitions) has under the operator's ceiling.
      inputCeilingTokens: Math.max(0, options.inputMaxTokens - toolTokens),
    };
    const side_calls: SideModelCall[] = [];

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
          options.summarizer.summarize({
            ...request,
            signal: config.signal,
            ...(options.sendPromptCacheKey && { promptCacheKey: promptCacheKeyFor(state.session_id) }),
            onModelCall: (call) => side_calls.push({ purpose: 'summary', ...call }),
            // After the head of the answer's prompt, which the provider has cached.
            answerPrefix: { system, tools: toolsNow(options.tools) },
          }),
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

    // The operator's ceiling, after whatever the strategy did, counting the tool definitions
    // too (generate_response counts this turn's tool rounds before each of its calls).
    result = applyInputCeiling(result, fixedTokens, options.inputMaxTokens, toolTokens);

    return {
      system_prompt: system,
      knowledge_prompt: knowledge,
      model_history: result.messages,
      memory_report: result.report,
      compacted_by_tool: result.compactedByTool,
      side_calls,
    };
  };
}
