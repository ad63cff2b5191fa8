import type { NewMessage } from '../../src/store/types';

/**
 * Turn k of a worker: the question, then (for k % 4 of 1–3) one assistant message
 * calling that many tools and their results, then the answer. Every fourth turn
 * carries a large tool result (about 200 kB), so a write takes long enough to be
 * killed in the middle of. Each message names its worker and turn.
 */
export function turnMessages(worker: string, k: number): NewMessage[] {
  const calls = k % 4;
  const big = k % 4 === 3;
  const ids = Array.from({ length: calls }, (_, j) => `call-${worker}-${k}-${j}`);
  return [
    { role: 'user', content: `question ${worker}:${k}`, tokenCount: 7 },
    ...(calls > 0
      ? [
          {
            role: 'assistant' as const,
            content: '',
            toolCalls: ids.map((id) => ({ id, name: 'lookup_order', arguments: { order_id: `ZX-${k}` } })),
            tokenCount: 11,
          },
          ...ids.map(
            (id, j): NewMessage => ({
              role: 'tool',
              content: `result ${worker}:${k}:${j} ${big && j === 0 ? 'x'.repeat(200_000) : ''}`.trim(),
              toolCallId: id,
              name: 'lookup_order',
              tokenCount: big && j === 0 ? 25_000 : 5,
            }),
          ),
        ]
      : []),
    { role: 'assistant', content: `answer ${worker}:${k}`, tokenCount: 9 },
  ];
}
