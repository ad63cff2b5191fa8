import { ordersAgent } from './orders/spec';
import type { AgentSpec } from './spec';
import { supportAgent } from './support/spec';

export type { AgentSpec } from './spec';

/** Every agent a request may choose with `agent_type`. */
export const AGENT_SPECS: ReadonlyMap<string, AgentSpec> = new Map([supportAgent, ordersAgent].map((spec) => [spec.key, spec]));

export const DEFAULT_AGENT_TYPE = supportAgent.key;
