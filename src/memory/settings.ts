import { z } from 'zod';

export const MEMORY_MODES = ['none', 'window', 'trim', 'summarize', 'compact'] as const;
export type MemoryMode = (typeof MEMORY_MODES)[number];

const count = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number` })
    .int(`${field} must be a whole number`)
    .min(min, `${field} must be at least ${min}`)
    .max(max, `${field} must be at most ${max}`);

const share = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .gt(0, `${field} must be above 0`)
    .lt(1, `${field} must be below 1 (a share, e.g. 0.2 for 20%)`);

const toolNames = (field: string) =>
  z
    .array(z.string({ error: `${field} must list tool names` }).regex(/^[A-Za-z0-9_-]{1,64}$/, `${field} must list tool names`), {
      error: `${field} must be a list of tool names`,
    })
    .max(50, `${field} may name at most 50 tools`);

/**
 * A memory strategy as a request, a conversation or an agent gives it. Unknown keys
 * and out-of-range values are refused, so a typo never silently falls back to a default.
 */
export const memoryStrategySchema = z
  .strictObject({
    mode: z.enum(MEMORY_MODES, { error: `mode must be one of: ${MEMORY_MODES.join(', ')}` }),
    compact_keep: count('compact_keep', 0, 1000).optional(),
    compact_trigger_turns: count('compact_trigger_turns', 1, 100_000).optional(),
    context_limit: count('context_limit', 1, 100_000).optional(),
    token_budget: count('token_budget', 100, 10_000_000).optional(),
    token_soft_budget: count('token_soft_budget', 100, 10_000_000).optional(),
    context_window_tokens: count('context_window_tokens', 1000, 10_000_000).optional(),
    token_remaining_pct: share('token_remaining_pct').optional(),
    token_soft_remaining_pct: share('token_soft_remaining_pct').optional(),
    compact_clear_tool_inputs: z.boolean({ error: 'compact_clear_tool_inputs must be true or false' }).optional(),
    compact_exclude_tools: toolNames('compact_exclude_tools').optional(),
    compact_include_tools: toolNames('compact_include_tools').optional(),
    max_turns: count('max_turns', 1, 100_000).optional(),
    keep_last_n_turns: count('keep_last_n_turns', 1, 1000).optional(),
    summary_token_budget: count('summary_token_budget', 50, 100_000).optional(),
    low_water_pct: z
      .number({ error: 'low_water_pct must be a number' })
      .gt(0, 'low_water_pct must be above 0')
      .max(1, 'low_water_pct must be at most 1 (a share of the budget, e.g. 0.6 for 60%)')
      .optional(),
    pin_opening_pct: z
      .number({ error: 'pin_opening_pct must be a number' })
      .min(0, 'pin_opening_pct must be at least 0 (0 pins nothing)')
      .max(0.5, 'pin_opening_pct must be at most 0.5 (a share of the budget, e.g. 0.15 for 15%)')
      .optional(),
  })
  .superRefine((s, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (s.keep_last_n_turns !== undefined && s.max_turns !== undefined && s.keep_last_n_turns > s.max_turns) {
      problem('keep_last_n_turns', 'keep_last_n_turns must not be larger than max_turns');
    }
    if (s.keep_last_n_turns !== undefined && s.context_limit !== undefined && s.keep_last_n_turns > s.context_limit) {
      problem('keep_last_n_turns', 'keep_last_n_turns must not be larger than context_limit');
    }
    if (s.token_soft_budget !== undefined && s.token_budget !== undefined && s.token_soft_budget > s.token_budget) {
      problem('token_soft_budget', 'token_soft_budget must not be larger than token_budget');
    }
    if (
      s.token_soft_remaining_pct !== undefined &&
      s.token_remaining_pct !== undefined &&
      s.token_soft_remaining_pct < s.token_remaining_pct
    ) {
      problem('token_soft_remaining_pct', 'token_soft_remaining_pct must not be smaller than token_remaining_pct');
    }
  });

export type MemoryStrategyInput = z.infer<typeof memoryStrategySchema>;

/** A strategy with every default filled in: what the strategies work with. */
export interface MemorySettings {
  mode: MemoryMode;
  compact_keep: number;
  compact_trigger_turns?: number;
  context_limit?: number;
  token_budget?: number;
  token_soft_budget?: number;
  context_window_tokens: number;
  token_remaining_pct?: number;
  token_soft_remaining_pct?: number;
  compact_clear_tool_inputs: boolean;
  compact_exclude_tools: string[];
  compact_include_tools: string[];
  max_turns: number;
  keep_last_n_turns: number;
  summary_token_budget: number;
  /**
   * Where a strategy that must shed history cuts down to, as a share of its budget
   * (0.6: 60%): it sheds that much at once, then appends until the budget is reached
   * again, so the turns in between extend one cached prompt prefix. 1 cuts to just
   * under the budget (the history then moves on every turn).
   */
  low_water_pct: number;
  /**
   * The share of a budget kept for the conversation's opening turns (tool results as
   * placeholders) once a strategy must shed history: pinned at the head of the view,
   * they keep who the customer is and what the case is, and the prompt prefix through
   * them stays cacheable. 0 pins nothing.
   */
  pin_opening_pct: number;
}

export const MEMORY_DEFAULTS = {
  compact_keep: 2,
  context_window_tokens: 400_000,
  /** When no trigger is given, summarize/compact act once less than this share of the window is left. */
  default_remaining_pct: 0.2,
  compact_clear_tool_inputs: false,
  max_turns: 20,
  keep_last_n_turns: 4,
  summary_token_budget: 2000,
  low_water_pct: 0.6,
  pin_opening_pct: 0.15,
} as const;

export function withDefaults(input: MemoryStrategyInput): MemorySettings {
  return {
    ...input,
    compact_keep: input.compact_keep ?? MEMORY_DEFAULTS.compact_keep,
    context_window_tokens: input.context_window_tokens ?? MEMORY_DEFAULTS.context_window_tokens,
    compact_clear_tool_inputs: input.compact_clear_tool_inputs ?? MEMORY_DEFAULTS.compact_clear_tool_inputs,
    compact_exclude_tools: input.compact_exclude_tools ?? [],
    compact_include_tools: input.compact_include_tools ?? [],
    // A default never makes the pair the schema refuses (keep_last_n_turns > max_turns or
    // > context_limit): it yields to the value that was given.
    max_turns: input.max_turns ?? Math.max(MEMORY_DEFAULTS.max_turns, input.keep_last_n_turns ?? 0),
    keep_last_n_turns:
      input.keep_last_n_turns ??
      Math.min(MEMORY_DEFAULTS.keep_last_n_turns, input.max_turns ?? Infinity, input.context_limit ?? Infinity),
    summary_token_budget: input.summary_token_budget ?? MEMORY_DEFAULTS.summary_token_budget,
    low_water_pct: input.low_water_pct ?? MEMORY_DEFAULTS.low_water_pct,
    pin_opening_pct: input.pin_opening_pct ?? MEMORY_DEFAULTS.pin_opening_pct,
  };
}

/** One level's memory setting (request, agent); either part may be left to the next level. */
export interface MemoryLevel {
  strategy?: MemoryStrategyInput;
  memory_injection?: boolean;
}

/** Where the effective strategy came from. */
export type MemorySettingSource = 'request' | 'conversation' | 'agent' | 'default';

export interface EffectiveMemory {
  settings: MemorySettings;
  /** The strategy as its level gave it, before defaults (what a person set, for display). */
  strategy: MemoryStrategyInput;
  source: MemorySettingSource;
  memoryInjection: boolean;
}

/** The conversation-level setting as stored on the session (PATCH …/memory). */
export interface ConversationMemorySetting {
  strategy?: MemoryStrategyInput;
  memory_injection?: boolean;
}

/**
 * Precedence: request > conversation > agent > the `window` default. The first
 * level that sets a strategy gives all of it (levels are not mixed field by field,
 * so what applies is always one strategy somebody wrote down); memory_injection is
 * resolved the same way on its own.
 */
export function resolveMemory(levels: {
  request?: MemoryLevel;
  conversation?: ConversationMemorySetting | null;
  agent?: MemoryLevel;
}): EffectiveMemory {
  const ordered = [
    ['request', levels.request],
    ['conversation', levels.conversation ?? undefined],
    ['agent', levels.agent],
  ] as const;
  const withStrategy = ordered.find(([, level]) => level?.strategy !== undefined);
  const withInjection = ordered.find(([, level]) => level?.memory_injection !== undefined);
  const strategy = withStrategy?.[1]?.strategy ?? { mode: 'window' };
  return {
    settings: withDefaults(strategy),
    strategy,
    source: withStrategy?.[0] ?? 'default',
    memoryInjection: withInjection?.[1]?.memory_injection ?? false,
  };
}
