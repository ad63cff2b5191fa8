/**
 * Document-level retrieval scores of a conversation set, the service beside a
 * baseline on the same turns, and the paired difference's 95% interval by a
 * bootstrap over conversations (turns of one conversation are not independent).
 */
import type { TurnResult } from './answer-eval';
import { seededRandom } from '../../tests/support/seeded-random';

/** One judged turn: where the service and the baseline put its first judged document (null: not found). */
export interface RankedTurn {
  conversation: string;
  first: boolean;
  service: number | null;
  baseline: number | null;
}

export function rankedTurn(result: TurnResult, baselineRanking: string[]): RankedTurn {
  const labels = result.turn.articles ?? (result.turn.article ? [result.turn.article] : []);
  const at = baselineRanking.findIndex((file) => labels.includes(file));
  return { conversation: result.dialogue, first: result.turn.type === 'first', service: result.rank, baseline: at >= 0 ? at + 1 : null };
}

const hit = (rank: number | null, k: number) => rank !== null && rank <= k;

/** R@1, R@3 and R@5 of the service and of the baseline, as fractions. */
export function recallAt(turns: RankedTurn[]): { service: Record<number, number>; bm25: Record<number, number> } {
  const at = (pick: (t: RankedTurn) => number | null, k: number) => (turns.length === 0 ? 0 : turns.filter((t) => hit(pick(t), k)).length / turns.length);
  const ks = [1, 3, 5];
  return {
    service: Object.fromEntries(ks.map((k) => [k, at((t) => t.service, k)])),
    bm25: Object.fromEntries(ks.map((k) => [k, at((t) => t.baseline, k)])),
  };
}

/**
 * 95% interval of R@k(service) − R@k(baseline): conversations drawn with replacement
 * (2,000 draws), the difference over the drawn conversations' turns, its 2.5th and
 * 97.5th percentiles.
 */
export function pairedInterval(turns: RankedTurn[], k: number, draws = 2000, seed = 20261125): [number, number] {
  const byConversation = new Map<string, { hits: number; n: number }>();
  for (const t of turns) {
    const c = byConversation.get(t.conversation) ?? { hits: 0, n: 0 };
    c.hits += (hit(t.service, k) ? 1 : 0) - (hit(t.baseline, k) ? 1 : 0);
    c.n += 1;
    byConversation.set(t.conversation, c);
  }
  const groups = [...byConversation.values()];
  if (groups.length === 0) return [0, 0];
  const random = seededRandom(seed);
  const differences: number[] = [];
  for (let d = 0; d < draws; d++) {
    let sum = 0;
    let n = 0;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[Math.floor(random() * groups.length)]!;
      sum += g.hits;
      n += g.n;
    }
    differences.push(n === 0 ? 0 : sum / n);
  }
  differences.sort((x, y) => x - y);
  return [differences[Math.floor(0.025 * draws)]!, differences[Math.min(draws - 1, Math.floor(0.975 * draws))]!];
}
