import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { MemoryReport } from '../memory/strategies';

/** The service's Prometheus metrics, on a registry of its own (GET /metrics). */
export class Metrics {
  readonly registry = new Registry();

  private readonly compactionItems = new Counter({
    name: 'memory_compaction_items_total',
    help: 'Tool results replaced by placeholders in what the model was sent, by tool',
    labelNames: ['tool'] as const,
    registers: [this.registry],
  });

  private readonly memoryTokens = new Histogram({
    name: 'memory_tokens_before_after',
    help: 'Prompt tokens with the whole history (before) and as sent after the memory strategy (after)',
    labelNames: ['stage', 'strategy'] as const,
    buckets: [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 512000],
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  recordMemory(report: MemoryReport, compactedByTool: Record<string, number>): void {
    this.memoryTokens.observe({ stage: 'before', strategy: report.strategy }, report.tokens_before);
    this.memoryTokens.observe({ stage: 'after', strategy: report.strategy }, report.tokens_after);
    for (const [tool, items] of Object.entries(compactedByTool)) this.compactionItems.inc({ tool }, items);
  }
}
