import type { StructuredToolInterface } from '@langchain/core/tools';

/**
 * The tools an agent is offered: a fixed list, or a function read at each run, for
 * tools that come and go while the service runs (an MCP server that connects after
 * the start). A function should return the same array until its tools change, so
 * what is derived from the list (the model's tool binding, the definitions' tokens)
 * is kept between runs.
 */
export type ToolList = StructuredToolInterface[] | (() => StructuredToolInterface[]);

/** The tools offered now. */
export function toolsNow(list: ToolList): StructuredToolInterface[] {
  return typeof list === 'function' ? list() : list;
}

/**
 * `derive(tools)` for the tools offered now, computed again only when the list's
 * members change (compared one by one, so a provider that builds a new array of the
 * same tools costs nothing).
 */
export function derivedFromTools<T>(list: ToolList, derive: (tools: StructuredToolInterface[]) => T): () => T {
  let last: StructuredToolInterface[] | null = null;
  let value: T;
  return () => {
    const tools = toolsNow(list);
    if (last === null || tools.length !== last.length || tools.some((t, i) => t !== last![i])) {
      value = derive(tools);
      last = [...tools];
    }
    return value;
  };
}
