import { type StrategyInput, effectiveContextWindow, type SummarizeResult, type SummarizeFunction } from './types';
import { NOT_PINNED } from './window';
import { triggerReason } from './triggers';
import { splitTurns, countUserTurns, summaryPair, enforceBudget, sumTokens, finish } from './building-blocks';

/**
 * `summarize`: when triggered, the turns before the last keep_last_n_turns are
 * folded into the rolling summary (the previous summary merged in), which the
 * model sees as a user/assistant pair ahead of the verbatim tail. `messages` are
 * the durable messages after state.summarizedThroughSeq. If the summarizer fails,
 * the strategy trims instead and reports the error; no error text is ever sent.
 */
export async function summarizeStrategy(input: StrategyInput, summarize: SummarizeFunction): Promise<SummarizeResult> {
  const { settings, state } = input;
  const previousPair = state.summary ? summaryPair(state.summary, input.countTokens) : [];
  const turns = splitTurns(input.messages);
  const triggeredBy = triggerReason(
    settings,
    countUserTurns(turns),
    input.fixedTokens + sumTokens(previousPair) + sumTokens(input.messages),
    effectiveContextWindow(input),
  );
  const keep = Math.max(settings.keep_last_n_turns, 1);
  const unchanged = (): SummarizeResult => {
    const bounded = enforceBudget(previousPair, turns, input, NOT_PINNED);
    return {
      ...finish(input, 'summarize', bounded.messages, { triggeredBy, trimmedTurns: bounded.droppedTurns }),
      newState: null,
      summarizerError: null,
    };
  };
  if (!triggeredBy || turns.length <= keep) return unchanged();

  // A fold already moves in steps: it leaves the summary and the last keep_last_n_turns
  // turns, and the turns after it append to that prefix until a trigger fires again.
  const tailStart = turns.length - keep;
  const prefix = turns.slice(0, tailStart).flat();
  const tail = turns.slice(tailStart);
  const throughSeq = [...prefix].reverse().find((m) => m.seq !== undefined)?.seq;
  if (throughSeq === undefined) return unchanged();

  let summary: string;
  try {
    summary = (
      await summarize({ previousSummary: state.summary, messages: prefix, tokenBudget: settings.summary_token_budget })
    ).trim();
    if (summary === '') throw new Error('The summarizer returned an empty summary');
  } catch (error) {
    const bounded = enforceBudget(previousPair, tail, input, NOT_PINNED);
    return {
      ...finish(input, 'summarize', bounded.messages, {
        triggeredBy,
        trimmedTurns: tailStart + bounded.droppedTurns,
      }),
      newState: null,
      summarizerError: error,
    };
  }

  const bounded = enforceBudget(summaryPair(summary, input.countTokens), tail, input, NOT_PINNED);
  return {
    ...finish(input, 'summarize', bounded.messages, { triggeredBy, summarized: true, trimmedTurns: bounded.droppedTurns }),
    newState: { summary, summarizedThroughSeq: throughSeq },
    summarizerError: null,
  };
}
