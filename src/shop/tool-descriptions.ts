import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BindingSource } from '../connectors/connector-config';
import { isReadOnlyAction, shopToolFacts } from '../connectors/shop-tool-facts';

/** One tool of the shop's systems as an operator reads it: `npm run shop -- check` and the console's tools page. */
export interface ToolDescription {
  name: string;
  kind: 'action' | 'mcp';
  /** The API's host, or the MCP server's name. */
  source: string;
  /** An action's HTTP method; null for an MCP tool. */
  method: string | null;
  /** 'no' for a GET action, 'yes' for any other action, 'unknown' for an MCP tool (MCP does not say). */
  writes: 'yes' | 'no' | 'unknown';
  description: string;
  /** The arguments the model may send, as the model is offered them. */
  arguments: Array<{ name: string; required: boolean; type: string }>;
  /** The arguments filled from the verified customer; the model is not offered them. */
  bound: Array<{ name: string; from: BindingSource }>;
}

/** The shop's tools (actions and MCP tools; built-in tools are left out), described. */
export function describeShopTools(tools: readonly StructuredToolInterface[]): ToolDescription[] {
  return tools.flatMap((tool) => {
    const facts = shopToolFacts(tool);
    if (!facts) return [];
    const schema = tool.schema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
    const required = new Set(schema.required ?? []);
    return [
      {
        name: tool.name,
        kind: facts.kind,
        source: facts.source,
        method: facts.method,
        writes: facts.kind === 'mcp' ? 'unknown' : isReadOnlyAction(facts) ? 'no' : 'yes',
        description: tool.description,
        arguments: Object.entries(schema.properties ?? {}).map(([name, property]) => ({
          name,
          required: required.has(name),
          type: typeof property?.type === 'string' ? property.type : Array.isArray(property?.type) ? property.type.join(' or ') : 'any',
        })),
        bound: Object.entries(facts.bound).map(([name, from]) => ({ name, from })),
      },
    ];
  });
}
