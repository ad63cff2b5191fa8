export type { AgentSpec } from './spec';
