import {
  MEMORY_DEFAULTS,
  MEMORY_MODES,
  memoryStrategySchema,
  resolveMemory,
  withDefaults,
  type MemoryStrategyInput,
} from '../../src/memory/settings';

/** The messages of the issues the schema raised for an input that must be refused. */
function refusal(input: unknown): string[] {
  const result = memoryStrategySchema.safeParse(input);
  if (result.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  return result.error.issues.map((issue) => issue.message);
}

/** The one issue for a strategy refused for `field` alone: its path and message name the field. */
function expectRefusedFor(input: unknown, field: string) {
  const result = memoryStrategySchema.safeParse(input);
  expect(result.success).toBe(false);
  const issues = result.error!.issues;
  expect(issues).toHaveLength(1);
  expect(issues[0]!.path[0]).toBe(field);
  expect(issues[0]!.message).toContain(field);
}

const accepts = (input: unknown) => memoryStrategySchema.safeParse(input).success;

describe('memoryStrategySchema', () => {
  it('accepts every mode, alone', () => {
    for (const mode of MEMORY_MODES) expect(accepts({ mode })).toBe(true);
  });

  it('accepts a strategy with every field given', () => {
    const everything: MemoryStrategyInput = {
      mode: 'compact',
      compact_keep: 3,
      compact_trigger_turns: 10,
      context_limit: 12,
      token_budget: 8000,
      token_soft_budget: 6000,
      context_window_tokens: 128_000,
      token_remaining_pct: 0.2,
      token_soft_remaining_pct: 0.3,
      compact_clear_tool_inputs: true,
      compact_exclude_tools: ['get_user_profile'],
      compact_include_tools: ['lookup_order', 'search_knowledge_base'],
      max_turns: 8,
      keep_last_n_turns: 4,
      summary_token_budget: 1500,
      low_water_pct: 0.6,
    };
    expect(memoryStrategySchema.parse(everything)).toEqual(everything);
  });

  describe('refuses, naming the field', () => {
    it.each([['summarise'], ['Compact'], [''], [5], [null]])('an unknown mode: %j', (mode) => {
      expectRefusedFor({ mode }, 'mode');
      expect(refusal({ mode })[0]).toContain('none, window, trim, summarize, compact');
    });

    it('a missing mode', () => {
      expectRefusedFor({ compact_keep: 2 }, 'mode');
    });

    it('unknown keys, each by name (a typo never falls back to a default silently)', () => {
      const result = memoryStrategySchema.safeParse({ mode: 'compact', compact_kep: 3, tokenBudget: 100 });
      expect(result.success).toBe(false);
      const issue = result.error!.issues[0]!;
      expect(issue.code).toBe('unrecognized_keys');
      expect(issue.code === 'unrecognized_keys' && issue.keys).toEqual(['compact_kep', 'tokenBudget']);
      expect(issue.message).toContain('compact_kep');
      expect(issue.message).toContain('tokenBudget');
    });

    it('memory_injection inside the strategy (it is a field of its own, beside memory_strategy)', () => {
      expect(refusal({ mode: 'summarize', memory_injection: true })[0]).toContain('memory_injection');
    });

    /** Each whole-number field with its range: the bounds pass, one past each bound is refused. */
    const COUNTS: Array<[keyof MemoryStrategyInput, number, number]> = [
      ['compact_keep', 0, 1000],
      ['compact_trigger_turns', 1, 100_000],
      ['context_limit', 1, 100_000],
      ['token_budget', 100, 10_000_000],
      ['token_soft_budget', 100, 10_000_000],
      ['context_window_tokens', 1000, 10_000_000],
      ['max_turns', 1, 100_000],
      ['keep_last_n_turns', 1, 1000],
      ['summary_token_budget', 50, 100_000],
    ];

    it.each(COUNTS)('%s out of its range %d–%d', (field, min, max) => {
      expect(accepts({ mode: 'none', [field]: min })).toBe(true);
      expect(accepts({ mode: 'none', [field]: max })).toBe(true);
      expectRefusedFor({ mode: 'none', [field]: min - 1 }, field);
      expectRefusedFor({ mode: 'none', [field]: max + 1 }, field);
      expect(refusal({ mode: 'none', [field]: min - 1 })[0]).toBe(`${field} must be at least ${min}`);
      expect(refusal({ mode: 'none', [field]: max + 1 })[0]).toBe(`${field} must be at most ${max}`);
    });

    it.each(COUNTS.map(([field]) => [field]))('%s as a fraction, a text, null or Infinity', (field) => {
      expectRefusedFor({ mode: 'none', [field]: 2.5 }, field);
      expect(refusal({ mode: 'none', [field]: 2.5 })[0]).toBe(`${field} must be a whole number`);
      for (const wrong of ['200', null, true, Infinity, Number.NaN]) expectRefusedFor({ mode: 'none', [field]: wrong }, field);
    });

    it.each([['token_remaining_pct'], ['token_soft_remaining_pct']])('%s outside (0, 1) or not a number', (field) => {
      expect(accepts({ mode: 'none', [field]: 0.01 })).toBe(true);
      expect(accepts({ mode: 'none', [field]: 0.99 })).toBe(true);
      for (const wrong of [0, 1, 20, -0.2, '0.2', null]) expectRefusedFor({ mode: 'none', [field]: wrong }, field);
      expect(refusal({ mode: 'none', [field]: 20 })[0]).toContain('a share');
    });

    it('low_water_pct outside (0, 1] or not a number (1: cut to just under the budget)', () => {
      expect(accepts({ mode: 'window', low_water_pct: 0.01 })).toBe(true);
      expect(accepts({ mode: 'window', low_water_pct: 1 })).toBe(true);
      for (const wrong of [0, 1.01, 60, -0.5, '0.6', null]) expectRefusedFor({ mode: 'window', low_water_pct: wrong }, 'low_water_pct');
      expect(refusal({ mode: 'window', low_water_pct: 60 })[0]).toContain('a share of the budget');
    });

    it('compact_clear_tool_inputs that is not true or false', () => {
      for (const wrong of ['true', 1, null]) expectRefusedFor({ mode: 'compact', compact_clear_tool_inputs: wrong }, 'compact_clear_tool_inputs');
    });

    it.each([['compact_include_tools'], ['compact_exclude_tools']])('%s that is not a list of tool names', (field) => {
      expect(accepts({ mode: 'compact', [field]: [] })).toBe(true);
      expect(accepts({ mode: 'compact', [field]: Array.from({ length: 50 }, (_, i) => `tool_${i}`) })).toBe(true);
      for (const wrong of ['lookup_order', [1], [''], ['lookup order'], ['x'.repeat(65)], [null], Array.from({ length: 51 }, (_, i) => `tool_${i}`)]) {
        expectRefusedFor({ mode: 'compact', [field]: wrong }, field);
      }
    });
  });

  describe('refuses inconsistent pairs, naming the field to fix', () => {
    it.each([
      [{ max_turns: 3, keep_last_n_turns: 4 }, { max_turns: 4, keep_last_n_turns: 4 }, 'keep_last_n_turns', 'max_turns'],
      [{ context_limit: 3, keep_last_n_turns: 4 }, { context_limit: 4, keep_last_n_turns: 4 }, 'keep_last_n_turns', 'context_limit'],
      [{ token_budget: 1000, token_soft_budget: 1001 }, { token_budget: 1000, token_soft_budget: 1000 }, 'token_soft_budget', 'token_budget'],
      [
        { token_remaining_pct: 0.3, token_soft_remaining_pct: 0.2 },
        { token_remaining_pct: 0.3, token_soft_remaining_pct: 0.3 },
        'token_soft_remaining_pct',
        'token_remaining_pct',
      ],
    ] as const)('%j (while %j is fine)', (inconsistent, consistent, field, other) => {
      expect(accepts({ mode: 'summarize', ...consistent })).toBe(true);
      expectRefusedFor({ mode: 'summarize', ...inconsistent }, field);
      expect(refusal({ mode: 'summarize', ...inconsistent })[0]).toContain(other);
    });
  });
});

describe('withDefaults', () => {
  it('fills the documented defaults and sets no trigger', () => {
    expect(withDefaults({ mode: 'compact' })).toStrictEqual({
      mode: 'compact',
      compact_keep: 2,
      context_window_tokens: 400_000,
      compact_clear_tool_inputs: false,
      compact_exclude_tools: [],
      compact_include_tools: [],
      max_turns: 20,
      keep_last_n_turns: 4,
      summary_token_budget: 2000,
      low_water_pct: 0.6,
      pin_opening_pct: 0.15,
    });
    expect(MEMORY_DEFAULTS.default_remaining_pct).toBe(0.2);
  });

  it('keeps every value that was given', () => {
    const given: MemoryStrategyInput = {
      mode: 'summarize',
      compact_keep: 0,
      context_limit: 6,
      token_budget: 5000,
      token_soft_budget: 4000,
      context_window_tokens: 32_000,
      token_remaining_pct: 0.1,
      token_soft_remaining_pct: 0.25,
      compact_trigger_turns: 3,
      compact_clear_tool_inputs: true,
      compact_exclude_tools: ['a'],
      compact_include_tools: ['b'],
      max_turns: 9,
      keep_last_n_turns: 3,
      summary_token_budget: 600,
      low_water_pct: 0.5,
      pin_opening_pct: 0.25,
    };
    expect(withDefaults(given)).toStrictEqual(given);
  });

  it('does not change the strategy it was given', () => {
    const given: MemoryStrategyInput = { mode: 'trim', max_turns: 6 };
    withDefaults(given);
    expect(given).toStrictEqual({ mode: 'trim', max_turns: 6 });
  });

  // The schema refuses keep_last_n_turns > max_turns (or > context_limit) when both are written
  // down; a default must not produce the pair it would refuse.
  it('keeps the default keep_last_n_turns within a smaller max_turns or context_limit that was given', () => {
    expect(withDefaults({ mode: 'trim', max_turns: 3 })).toMatchObject({ max_turns: 3, keep_last_n_turns: 3 });
    expect(withDefaults({ mode: 'summarize', context_limit: 2 })).toMatchObject({ keep_last_n_turns: 2 });
    expect(withDefaults({ mode: 'trim', max_turns: 6 })).toMatchObject({ keep_last_n_turns: 4 });
  });

  it('raises the default max_turns to a larger keep_last_n_turns that was given', () => {
    expect(withDefaults({ mode: 'trim', keep_last_n_turns: 30 })).toMatchObject({ max_turns: 30, keep_last_n_turns: 30 });
    expect(withDefaults({ mode: 'trim', keep_last_n_turns: 5 })).toMatchObject({ max_turns: 20 });
  });
});

describe('resolveMemory', () => {
  const request = { strategy: { mode: 'compact', compact_keep: 1 } as MemoryStrategyInput };
  const conversation = { strategy: { mode: 'summarize', keep_last_n_turns: 2, context_limit: 6 } as MemoryStrategyInput };
  const agent = { strategy: { mode: 'trim', max_turns: 10, compact_keep: 7 } as MemoryStrategyInput };

  it('falls back to the window default, without memory injection', () => {
    expect(resolveMemory({})).toEqual({ settings: withDefaults({ mode: 'window' }), strategy: { mode: 'window' }, source: 'default', memoryInjection: false });
    expect(resolveMemory({ request: {}, conversation: null, agent: {} }).source).toBe('default');
  });

  it('request > conversation > agent > default', () => {
    expect(resolveMemory({ request, conversation, agent })).toMatchObject({ source: 'request', settings: { mode: 'compact' } });
    expect(resolveMemory({ conversation, agent })).toMatchObject({ source: 'conversation', settings: { mode: 'summarize' } });
    expect(resolveMemory({ request: {}, conversation: null, agent })).toMatchObject({ source: 'agent', settings: { mode: 'trim' } });
  });

  it('takes the whole strategy of one level, never mixing fields from several', () => {
    const resolved = resolveMemory({ request, conversation, agent });
    expect(resolved.settings).toStrictEqual(withDefaults(request.strategy));
    expect(resolved.settings.compact_keep).toBe(1);
    expect(resolved.settings.max_turns).toBe(20); // the default, not the agent's 10
    expect(resolved.settings.context_limit).toBeUndefined(); // not the conversation's 6
    expect(resolveMemory({ conversation, agent }).settings.compact_keep).toBe(2); // the default, not the agent's 7
  });

  it('resolves memory_injection on its own: the first level that sets it, even false', () => {
    expect(resolveMemory({ agent: { ...agent, memory_injection: true } }).memoryInjection).toBe(true);
    // the request's strategy, the conversation's memory_injection
    const mixed = resolveMemory({ request, conversation: { memory_injection: true }, agent: { memory_injection: false } });
    expect(mixed).toMatchObject({ source: 'request', memoryInjection: true });
    // an explicit false overrides a lower true
    expect(resolveMemory({ request: { memory_injection: false }, conversation: { ...conversation, memory_injection: true } }).memoryInjection).toBe(false);
    // a level that only sets memory_injection leaves the strategy to the levels below
    expect(resolveMemory({ request: { memory_injection: true }, agent })).toMatchObject({ source: 'agent', memoryInjection: true });
  });
});
