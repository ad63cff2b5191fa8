import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { derivedFromTools, toolsNow, type ToolList } from '../../src/agent/tool-list';

const named = (name: string) => tool(async () => name, { name, description: name, schema: z.object({}) });

describe('an agent’s tool list, read per answer', () => {
  it('derives again only when the tools change, not when the same tools come in a new array', () => {
    const a = named('a');
    const b = named('b');
    let current = [a];
    const list: ToolList = () => [...current];
    let derivations = 0;
    const names = derivedFromTools(list, (tools) => {
      derivations++;
      return tools.map((t) => t.name);
    });
    expect(names()).toEqual(['a']);
    expect(names()).toEqual(['a']);
    expect(derivations).toBe(1);
    current = [a, b];
    expect(names()).toEqual(['a', 'b']);
    // The same names from new tool objects (a server that reconnected) is a change.
    current = [a, named('b')];
    expect(names()).toEqual(['a', 'b']);
    expect(derivations).toBe(3);
  });

  it('takes a fixed list as it is', () => {
    const fixed = [named('a')];
    expect(toolsNow(fixed)).toBe(fixed);
  });
});
