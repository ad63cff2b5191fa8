import type { StrategyInput, StrategyResult } from './types';
import { sanitize, finish } from './building-blocks';

/** `none`: every durable message. */
export function noneStrategy(input: StrategyInput): StrategyResult {
  return finish(input, 'none', sanitize(input.messages), { triggeredBy: null });
}
