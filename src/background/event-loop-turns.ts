/**
 * Long work on the service's thread in turns: `await turn()` between steps gives the event loop
 * back (a setImmediate, so waiting timers and sockets run) once `budgetMs` of work has passed
 * since the last turn, and costs nothing before that. An `await` alone never does: a loop of
 * awaits that resolve at once runs as one block, however long.
 */
export function eventLoopTurns(budgetMs = 20): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
