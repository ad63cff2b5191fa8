/**
 * Where an answer's time went, in milliseconds: the session row, the history the
 * strategy needs (and cross-session memory), retrieval (embedding the question and
 * hybrid_search), the memory strategy, the model calls (with tool rounds), and
 * storing the turn. `total` is the whole of ChatService.answer.
 */
export interface StageTimings {
  session: number;
  window: number;
  /** Making a follow-up's search query (a model call with QUERY_REWRITE=model): the rewrite's hidden cost. */
  rewrite: number;
  retrieval: number;
  memory: number;
  model: number;
  tools: number;
  persist: number;
  total: number;
}

/** The stage each graph node's time counts to. */
export const NODE_STAGES: Record<string, keyof StageTimings> = {
  rewrite_query: 'rewrite',
  retrieve: 'retrieval',
  apply_memory: 'memory',
  generate_response: 'model',
  tools: 'tools',
};

export function roundStages(stages: StageTimings): StageTimings {
  return Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, Math.round(v * 100) / 100])) as unknown as StageTimings;
}

/** Time per stage of one answer: each lap adds the time since the previous one to a stage. */
export class StageClock {
  readonly stages: StageTimings = { session: 0, window: 0, rewrite: 0, retrieval: 0, memory: 0, model: 0, tools: 0, persist: 0, total: 0 };
  private mark: number;

  constructor(startedAt: number) {
    this.mark = startedAt;
  }

  lap(stage: keyof StageTimings): void {
    const now = performance.now();
    this.stages[stage] += now - this.mark;
    this.mark = now;
  }
}
